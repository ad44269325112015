"""A jury's own figures, beside ``stats``' (which read a jury as one judge): how far its
jurors agree with one another (Fleiss' kappa over the pairs where at least two gave a
verdict, equal to statsmodels'), and how far each juror, and the jury, agrees with the
reviewers (the export's human verdict), per dimension, in one pass over the pairs."""

from __future__ import annotations

from dataclasses import dataclass

from desktop.adapters.store.pair_reader import PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.domain import agreement as ag
from desktop.domain.pair_view import PairView
from desktop.domain.verdicts import Verdict
from desktop.services.rubric_choice import Judge, dimensions_of, pick_judge


@dataclass(frozen=True)
class JurorAgreement:
    judge: str
    vs_human: ag.Agreement  # confusion rows: the juror; columns: the reviewers


@dataclass(frozen=True)
class JuryDimension:
    dimension: str
    pairs: int  # pairs with verdicts from at least two jurors
    fleiss_kappa: float | None  # across the jurors
    jurors: list[JurorAgreement]
    jury: ag.Agreement  # the jury's verdict against the reviewers


@dataclass(frozen=True)
class JuryStats:
    rubric: str
    jury: str
    combine: str  # "majority" or "mean"
    jurors: list[str]
    dimensions: list[JuryDimension]


def jury_stats(store: ProjectStore, rubric: str, judge: Judge) -> JuryStats | None:
    """The figures of the jury ``judge`` names (kept or given) on ``rubric``; None where it
    names one judge."""
    from desktop.domain.jury import Jury, JuryRuling

    policy = pick_judge(store, rubric, judge)
    if not isinstance(policy, Jury):
        return None
    dims = dimensions_of(store, rubric)
    jurors = policy.jurors
    votes: dict[str, list[list[Verdict | None]]] = {d: [] for d in dims}
    matrices = {d: [ag.empty_matrix() for _ in jurors] for d in dims}
    jury = {d: ag.empty_matrix() for d in dims}
    for record in read_pairs(store, PairQuery(rubric, jurors, ("id",))):
        view = PairView(record, policy, accepted=False)  # accepts agree with the judge
        if view.broken:
            continue
        ruling = view.ruling
        assert isinstance(ruling, JuryRuling)
        for dim in dims:
            given = ruling.votes(dim)
            votes[dim].append(given)
            human = view.human(dim)
            if human is None:
                continue
            verdict = view.judge(dim).verdict
            if verdict is not None:
                ag.add_to_matrix(jury[dim], verdict, human)
            for matrix, vote in zip(matrices[dim], given, strict=True):
                if vote is not None:
                    ag.add_to_matrix(matrix, vote, human)
    return JuryStats(
        rubric=rubric,
        jury=policy.name,
        combine=policy.combine,
        jurors=list(jurors),
        dimensions=[
            JuryDimension(
                dimension=d,
                pairs=sum(1 for row in votes[d] if sum(v is not None for v in row) >= 2),
                fleiss_kappa=_kappa(votes[d]),
                jurors=[
                    JurorAgreement(j, ag.summarize(m))
                    for j, m in zip(jurors, matrices[d], strict=True)
                ],
                jury=ag.summarize(jury[d]),
            )
            for d in dims
        ],
    )


def _kappa(rows: list[list[Verdict | None]]) -> float | None:
    from desktop.domain.jury import jury_kappa

    return jury_kappa(rows)
