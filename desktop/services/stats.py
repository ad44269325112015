"""Agreement figures of a project, per rubric, dimension and category, in one streaming
pass over the pairs (``adapters.store.pair_reader``, each pair read as ``domain.pair_view``
reads it); the arithmetic is ``domain.agreement``.

Which verdicts count: the judge's as the review window shows it (both orders combined
where judged twice), the human verdict as the export's ``<dim>_human`` column (the label:
an adjudicator's verdict, else the reviewers' majority), and for inter-reviewer figures
each reviewer's latest verdict.

- Accepted verdicts (Enter on the judge's) agree with the judge by construction, so they
  are left out of every figure unless asked for (``include_accepted``); each section says
  how many were left out.
- A dispute (reviewers split with no majority, not adjudicated) has no label: the figures
  that compare a label with the judge leave it out; each section counts the open ones.
- A pair a reviewer marked broken is in no figure; each section counts them.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from desktop.adapters.store.pair_reader import FIGURE_COLUMNS, PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import judge_models, orders_seen
from desktop.adapters.store.rubrics import rubric_names
from desktop.domain.errors import TiebreakError
from desktop.domain.judge_policy import policy_for
from desktop.domain.pair_view import PairView
from desktop.services.dimension_stats import DimensionStats, dimension_stats
from desktop.services.figure_fits import (
    DEFAULT_ALPHA,
    FitContext,
    SampleUse,
    fit_context,
    sample_use,
)
from desktop.services.figure_sources import (
    UNKNOWN_MODE,
    Finish,
    PairFacts,
    ReviewerStats,
    Share,
    Tally,
    WinRate,
    pair_facts,
)
from desktop.services.figures import FIGURES, Figure
from desktop.services.judge_bias_rows import JudgeBiasRow, OtherJudges, order_seen
from desktop.services.rubric_choice import Judge, dimensions_of, pick_judge, require_rubric

if TYPE_CHECKING:
    from desktop.domain.judge_biases import Answer

__all__ = [
    "ALL",
    "UNKNOWN_MODE",
    "DimensionStats",
    "ReviewerStats",
    "Section",
    "Stats",
    "WinRate",
    "compute_stats",
    "rubric_stats",
]

ALL = "all"
#: What the pass reads of each pair: what figures group by, and what their tallies read.
COLUMNS = tuple(dict.fromkeys((*FIGURE_COLUMNS, "turn", *(c for f in FIGURES for c in f.reads))))


@dataclass(frozen=True)
class Section:
    """All pairs, or the pairs of one category."""

    name: str
    baseline: str | None  # every pair's model_a, where they all name the same one
    generator: str | None  # likewise model_b
    generators: int  # distinct model_b names
    pairs: int
    judged: int
    reviewed: int
    answers: int  # latest judge answers, each order counted
    parse_failures: int
    errors: int
    parse_failure_rate: float | None  # of answers that were not transport errors
    dimensions: list[DimensionStats]
    accepted_left_out: int = 0  # accepted verdicts no figure counts (include_accepted off)
    disputed: int = 0  # pairs with an open dispute on some dimension: no label there
    broken: int = 0  # pairs marked broken: in no figure, not counted in ``pairs``

    def labels_note(self, *, included: bool = False) -> str | None:
        """What the reviewers' labels leave out (accepted verdicts, open disputes, broken
        pairs), said wherever the figures are shown; None where there are no reviews."""
        if not (self.reviewed or self.accepted_left_out or self.disputed or self.broken):
            return None
        parts = []
        if included:
            parts.append("accepted verdicts counted as the reviewers' own")
        elif self.accepted_left_out:
            parts.append(
                f"{self.accepted_left_out:,} accepted verdicts left out (they agree with the"
                " judge by construction; --include-accepted counts them)"
            )
        parts.append(
            f"{self.disputed:,} open disputes (no label until adjudicated)"
            if self.disputed
            else "no open disputes"
        )
        if self.broken:
            parts.append(f"{self.broken:,} pairs marked broken (in no figure)")
        return "human labels: " + "; ".join(parts)


@dataclass(frozen=True)
class Stats:
    rubric: str
    judge_model: str | None
    dimensions: tuple[str, ...]
    overall: Section
    categories: list[Section] = field(default_factory=list)
    turns: list[Section] = field(default_factory=list)  # per compared turn, with by_turn
    other_judges: list[str] = field(default_factory=list)  # with answers for the rubric
    alpha: float = DEFAULT_ALPHA  # the win rates' intervals are at level 1 - alpha
    sample: SampleUse | None = None  # how the reviewed pairs were chosen
    include_accepted: bool = False  # accepted verdicts counted as the reviewers' own
    #: The rubric whose reviewers' verdicts are the reference, where another was chosen.
    reference_rubric: str | None = None
    #: Every judge's biases (the chosen one's first), per dimension, over all pairs.
    judge_biases: list[JudgeBiasRow] = field(default_factory=list)


def compute_stats(
    store: ProjectStore,
    rubric: str | None = None,
    judge_model: Judge = None,
    *,
    seed: int = 0,
    resamples: int = 2000,
    alpha: float = DEFAULT_ALPHA,
    target: float | None = None,
    by_turn: bool = False,
    include_accepted: bool = False,
    reference_rubric: str | None = None,
) -> list[Stats]:
    """One Stats per rubric (the one named, else every rubric with verdicts)."""
    names = rubric_names(store)
    if rubric is not None:
        names = [require_rubric(store, rubric, names)]
    return [
        rubric_stats(
            store,
            n,
            judge_model,
            seed=seed,
            resamples=resamples,
            alpha=alpha,
            target=target,
            by_turn=by_turn,
            include_accepted=include_accepted,
            reference_rubric=reference_rubric,
        )
        for n in names
    ]


def rubric_stats(
    store: ProjectStore,
    rubric: str,
    judge_model: Judge = None,
    *,
    seed: int = 0,
    resamples: int = 2000,
    alpha: float = DEFAULT_ALPHA,
    target: float | None = None,
    by_turn: bool = False,
    include_accepted: bool = False,
    reference_rubric: str | None = None,
) -> Stats:
    """The figures of one rubric; ``target`` a half-width (0.02 for ±2 points) to count
    the further reviews it needs; ``by_turn``: a section per compared turn too (a
    single-turn pair's is turn 1); ``include_accepted``: accepted verdicts count as the
    reviewers' own (see the module's docstring); ``reference_rubric``: the reviewers'
    verdicts of that rubric serve as the human verdicts, on the dimensions of the same
    name (an explicit choice: another rubric's judge measured against people who reviewed
    under this one's prompt)."""
    if not 0.0 < alpha < 1.0:
        raise TiebreakError(f"--alpha must be between 0 and 1, got {alpha}")
    if target is not None and not 0.0 < target < 1.0:
        raise TiebreakError(f"--target must be between 0 and 100 points, got {100 * target:g}")
    policy = policy_for(pick_judge(store, rubric, judge_model))
    others = [m for m in judge_models(store, rubric) if m not in policy.judges]
    dims = dimensions_of(store, rubric)
    if reference_rubric == rubric:
        reference_rubric = None
    if reference_rubric is not None:
        reference_rubric = require_rubric(store, reference_rubric, rubric_names(store))
        shared = set(dims) & set(dimensions_of(store, reference_rubric))
        if not shared:
            raise TiebreakError(
                f"rubric {reference_rubric} has no dimension of the same name as rubric"
                f" {rubric}'s ({', '.join(dims)}): its reviewers cannot be the reference"
            )
    overall = _SectionAcc(dims, policy.judges, all_pairs=True)
    categories: dict[str, _SectionAcc] = {}
    turns: dict[int, _SectionAcc] = {}
    orders = orders_seen(store, rubric)
    other_judges = OtherJudges(others, dims, orders)
    query = PairQuery(rubric, (*policy.judges, *others), COLUMNS, reviews_of=reference_rubric)
    for record in read_pairs(store, query):
        view = PairView(record, policy, accepted=include_accepted)
        broken = bool(record.reviews) and view.broken
        facts = [] if broken else pair_facts(view, dims)
        sections = [overall]
        category = record.category
        if category:
            if category not in categories:
                categories[category] = _SectionAcc(dims, policy.judges)
            sections.append(categories[category])
        if by_turn:
            turn = record.fields.turn or 1
            if turn not in turns:
                turns[turn] = _SectionAcc(dims, policy.judges)
            sections.append(turns[turn])
        for section in sections:
            if broken:
                section.broken += 1
            else:
                section.add(view, facts)
        if others and not broken:
            other_judges.add(record)
    context, sample, frame = fit_context(store, rubric, alpha=alpha, target=target)
    wanted = {pid for ids in (*overall.answer_ids(), other_judges.answer_ids()) for pid in ids}
    fits = dataclasses.replace(
        context,
        answers=_answers(store, wanted),
        order_seen=order_seen(orders, policy.judges),
    )
    everything = overall.finish(ALL, seed=seed, resamples=resamples, rubric=rubric, fits=fits)
    return Stats(
        rubric=rubric,
        judge_model=policy.name or None,
        dimensions=dims,
        overall=everything,
        categories=[
            categories[c].finish(c, seed=seed, resamples=resamples, rubric=rubric)
            for c in sorted(categories)
        ],
        turns=[
            turns[t].finish(f"turn {t}", seed=seed, resamples=resamples, rubric=rubric)
            for t in sorted(turns)
        ],
        other_judges=others,
        alpha=alpha,
        sample=sample_use(sample, frame, overall.reviewed_ids),
        include_accepted=include_accepted,
        reference_rubric=reference_rubric,
        judge_biases=[
            *(JudgeBiasRow(policy.name, d.dimension, d.biases) for d in everything.dimensions),
            *other_judges.rows(fits.answers),
        ]
        if policy.judges
        else [],
    )


def _answers(store: ProjectStore, wanted: set[int]) -> dict[int, tuple[Answer, Answer]]:
    """Each pair's two answers as the bias figures measure them (length, a list), for the
    pairs a fit names (``answer_ids``): kept at import, else measured from the texts."""
    from desktop.services.answer_measuring import answers_of

    return answers_of(store, wanted)


def _only(names: set[str | None]) -> str | None:
    return next(iter(names)) if len(names) == 1 else None


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


class _SectionAcc:
    """One section's counts and, per dimension, a tally for each figure it shows."""

    def __init__(
        self, dims: tuple[str, ...], judges: tuple[str, ...], all_pairs: bool = False
    ) -> None:
        self.judges = judges  # whose answers' statuses count
        figures = [f for f in FIGURES if all_pairs or not f.all_pairs]
        self.tallies: dict[str, list[tuple[Figure, Tally]]] = {
            d: [(f, f.tally()) for f in figures] for d in dims
        }
        # Per dimension: the tallies every pair goes to, and those only reviewed pairs do;
        # a Share and a Count of one test are counted once.
        self.every: list[list[Tally]] = []
        self.reviewed_tallies: list[list[Tally]] = []
        for tallies in self.tallies.values():
            every: list[Tally] = []
            reviewed: list[Tally] = []
            counted: dict[object, Share] = {}
            for _, tally in tallies:
                if isinstance(tally, Share):
                    first = counted.setdefault(tally.shares_key, tally)
                    if first is not tally:
                        tally.counts_with(first)
                        continue
                (reviewed if tally.reviewed_only else every).append(tally)
            self.every.append(every)
            self.reviewed_tallies.append(reviewed)
        self.reviewed_ids: list[int] = []
        self.pairs = self.judged = self.reviewed = 0
        self.accepted_left_out = self.disputed = self.broken = 0
        self.statuses: Counter[str] = Counter()
        self.baselines: set[str | None] = set()
        self.generators: set[str | None] = set()

    def add(self, view: PairView, facts: list[PairFacts]) -> None:
        record = view.record
        self.pairs += 1
        self.baselines.add(record.model_a)
        self.generators.add(record.model_b)
        self.judged += view.judged
        if record.reviews:
            if any(p.human is not None for p in facts):  # a label, on some dimension
                self.reviewed += 1
                self.reviewed_ids.append(record.id)
            if not view.accepted:
                self.accepted_left_out += sum(view.left_out(p.dimension) for p in facts)
            self.disputed += bool(view.disputes())
        judges = self.judges  # each order counted; another judge's answers are not these
        self.statuses.update(a.status for a in record.answers if a.judge in judges)
        for p, every, reviewed in zip(facts, self.every, self.reviewed_tallies, strict=True):
            for tally in every:
                tally.add(p)
            if p.reviews:
                for tally in reviewed:
                    tally.add(p)

    def answer_ids(self) -> list[list[int]]:
        """The pairs whose answers the fits measure (``answer_ids`` of a tally)."""
        return [
            ids()
            for tallies in self.tallies.values()
            for _, tally in tallies
            if (ids := getattr(tally, "answer_ids", None)) is not None
        ]

    def finish(
        self,
        name: str,
        *,
        seed: int,
        resamples: int,
        rubric: str,
        fits: FitContext | None = None,
    ) -> Section:
        answers = sum(self.statuses.values())
        failures, errors = self.statuses["parse-failure"], self.statuses["error"]
        dimensions = []
        for dim, tallies in self.tallies.items():
            done: dict[str, object] = {}
            for figure, tally in tallies:
                f = Finish(dim, f"{seed}:{rubric}:{name}:{dim}", resamples, done, fits)
                done[figure.name] = tally.finish(f)
            dimensions.append(dimension_stats(dim, done))
        return Section(
            name=name,
            baseline=_only(self.baselines),
            generator=_only(self.generators),
            generators=len(self.generators - {None}),
            pairs=self.pairs,
            judged=self.judged,
            reviewed=self.reviewed,
            answers=answers,
            parse_failures=failures,
            errors=errors,
            parse_failure_rate=_share(failures, answers - errors),
            dimensions=dimensions,
            accepted_left_out=self.accepted_left_out,
            disputed=self.disputed,
            broken=self.broken,
        )
