"""One pair's verdicts per dimension as the review window shows them: the judge's over
both orders, the reviewers' consensus, the final one, and the current reviewer's own
verdicts and notes apart."""

from __future__ import annotations

from typing import NamedTuple

from desktop.adapters.store.pair_reader import PairQuery, absent, read_pair
from desktop.adapters.store.project import ProjectStore
from desktop.domain.dimension_view import DimensionView
from desktop.domain.judge_policy import JudgePolicy
from desktop.domain.labels import Label
from desktop.domain.pair_record import ReviewerVerdict
from desktop.domain.pair_view import PairView
from desktop.domain.verdicts import Verdict
from desktop.services.juries import policy_named


class JudgeDetail(NamedTuple):
    status: str
    raw_completion: str | None
    error: str | None
    order: str
    latency_ms: float | None
    judge: str = ""


class PairVerdicts(NamedTuple):
    dimensions: dict[str, DimensionView]  # human: the label (none for a dispute)
    judge: list[JudgeDetail]  # AB first, then BA where judged in both orders
    notes: dict[str, str]  # the current reviewer's notes, by dimension
    mine: dict[str, Verdict]  # the current reviewer's own current verdicts
    others: dict[str, list[str]]  # other reviewers with a current verdict, by dimension
    labels: dict[str, Label]  # the label per dimension: its source, or a dispute
    my_rows: dict[str, ReviewerVerdict]  # the reviewer's rows: their marks and modes
    reviews: tuple[ReviewerVerdict, ...]  # every reviewer's current row (adjudication)
    broken: bool  # some reviewer marked the pair broken


def pair_verdicts(
    store: ProjectStore,
    pair_id: int,
    rubric: str,
    judge_model: str | JudgePolicy | None,
    dimensions: tuple[str, ...],
    reviewer: str = "",
) -> PairVerdicts:
    """One pair's verdicts per dimension; ``reviewer``'s own verdicts and notes apart."""
    policy = policy_named(store, rubric, judge_model)
    query = PairQuery(rubric, policy.judges, ("id",), detail=True)
    record = read_pair(store, query, pair_id) or absent(pair_id)  # gone: nothing shown
    view = PairView(record, policy, reviewer)
    details = [
        JudgeDetail(a.status, a.raw_completion, a.error, a.order, a.latency_ms, a.judge)
        for a in record.answers
    ]
    return PairVerdicts(
        {dim: view.dimension(dim) for dim in dimensions},
        details,
        view.my_notes(),
        view.my_verdicts(),
        view.others(),
        {dim: view.label(dim) for dim in dimensions},
        view.my_rows(),
        record.reviews,
        view.broken,
    )
