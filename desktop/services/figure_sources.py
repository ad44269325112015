"""How a per-dimension figure accumulates, one pair at a time: a tally. The streaming pass
of ``stats`` reads each pair once, works out its ``PairFacts`` on each dimension (the
judge's verdict over both orders, its confidence and preference, the reviewers' verdicts
and their consensus, as ``domain.pair_view`` rules them), and hands them to a fresh tally
per section and dimension for every figure declared in ``figures.FIGURES``; after the pass
``finish`` gives the figure's value. A figure fitted from all pairs at once is a tally too
(``figure_fits``): it keeps the few numbers it needs per pair and fits in ``finish``.

A tally sees every pair, or with ``reviewed_only`` only pairs some reviewer gave a verdict
on that dimension (so the pass skips it for the rest). Most figures need only the generic
tallies at the end (``Share``, ``Count``) given a test of one pair.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import TYPE_CHECKING, Protocol

from desktop.domain import agreement as ag
from desktop.domain.head_to_head import HeadToHead, HeadToHeadCounter
from desktop.domain.sampling import bootstrap_win_rate, seeded
from desktop.domain.verdicts import Verdict

if TYPE_CHECKING:
    from desktop.adapters.store.samples import FramePair
    from desktop.domain.judge_biases import Answer
    from desktop.domain.pair_record import ReviewerVerdict
    from desktop.domain.pair_view import PairView

UNKNOWN_MODE = "unknown"
DEFAULT_ALPHA = 0.05


class PairFacts:
    """One pair on one dimension, as every figure reads it."""

    __slots__ = (
        "confidence",
        "consistent",
        "dimension",
        "human",
        "id",
        "judge",
        "len_a",
        "len_b",
        "preference",
        "reviews",
        "view",
    )

    def __init__(self, view: PairView, dimension: str) -> None:
        record = view.record
        self.view = view
        self.dimension = dimension
        self.id: int = record.id
        self.len_a: int = record.fields.len_a
        self.len_b: int = record.fields.len_b
        self.judge: Verdict | None = None
        self.confidence: float | None = None
        self.consistent: bool | None = None  # None unless judged in both orders
        self.preference: float | None = None  # AlpacaEval's scale: 1 A, 2 B, 1.5 a draw
        self.human: Verdict | None = None  # the reviewers' consensus
        self.reviews: list[ReviewerVerdict] = []  # each reviewer's current verdict


def pair_facts(view: PairView, dims: Sequence[str]) -> list[PairFacts]:
    """The pair's facts on each dimension, read once for every figure and section."""
    out = []
    reviewed = bool(view.record.reviews)
    for dim, (judge, confidence, consistent) in zip(dims, view.ruling.verdicts(dims), strict=True):
        p = PairFacts(view, dim)
        p.judge, p.confidence, p.consistent = judge, confidence, consistent
        p.preference = view.preference(dim)
        if reviewed:
            reviews = view.reviews_of(dim)
            if reviews:
                p.reviews = reviews
                p.human = view.human(dim)
        out.append(p)
    return out


@dataclass(frozen=True)
class Finish:
    """What a tally may need when it gives its figure."""

    dimension: str
    key: str  # "seed:rubric:section:dimension": seeds a bootstrap, the same every run
    resamples: int  # bootstrap draws
    done: Mapping[str, object] = field(default_factory=dict)  # this dimension's earlier figures
    fits: FitContext | None = None  # all pairs only: what a fit needs beyond its pairs


@dataclass(frozen=True)
class FitContext:
    """What the fits (``figure_fits``) need beyond their own pairs: the interval's level, a
    --target, the latest sample's frame (None without one) and size, and each judged
    pair's two answers as the bias figures measure them (read in one more pass, for the
    pairs a fit names with ``answer_ids``)."""

    alpha: float = DEFAULT_ALPHA
    target: float | None = None
    frame: Mapping[int, FramePair] | None = None
    sample_size: int = 0
    answers: Mapping[int, tuple[Answer, Answer]] = field(default_factory=dict)
    # The order the chosen judge was shown the outputs in (``JudgeBiases.order_seen``).
    order_seen: str = "unknown"


class Tally(Protocol):
    """How one figure accumulates. A tally may also have ``answer_ids()`` (the pairs whose
    responses a fit measures, read after the pass into ``FitContext.answers``) and
    ``counts_with`` (see ``Share``)."""

    #: True: the pass hands it only pairs a reviewer gave a verdict on this dimension.
    reviewed_only: bool

    def add(self, p: PairFacts) -> None: ...

    def finish(self, f: Finish) -> object: ...


# ---- generic tallies -----------------------------------------------------------------------
class Share:
    """The share of pairs where ``test`` says True, of those where it says True or False
    (None: the pair is not counted); None with nothing counted.

    A ``Share`` and a ``Count`` of the same test count once: the pass adds pairs to the
    first of a section's dimension and the other reads its counts (``counts_with``)."""

    reviewed_only = False

    def __init__(self, test: Callable[[PairFacts], bool | None], reviewed: bool = False) -> None:
        self.test, self.reviewed_only = test, reviewed
        self.counts = [0, 0]  # (hits, counted)

    @property
    def shares_key(self) -> tuple[object, bool]:
        return self.test, self.reviewed_only

    def counts_with(self, other: Share) -> None:
        """Read ``other``'s counts, which the pass fills: this one is not added to."""
        self.counts = other.counts

    def add(self, p: PairFacts) -> None:
        result = self.test(p)
        if result is not None:
            counts = self.counts
            counts[1] += 1
            counts[0] += result

    def finish(self, f: Finish) -> float | None:
        hits, n = self.counts
        return hits / n if n else None


class Count(Share):
    """How many pairs ``test`` counts (says True or False of)."""

    def finish(self, f: Finish) -> int:
        return self.counts[1]


# ---- tests of one pair ---------------------------------------------------------------------
def chose_longer(verdict: Verdict | None, p: PairFacts) -> bool | None:
    """Whether a decisive verdict chose the longer response (None: no verdict, a tie or
    equal lengths), as ``agreement.longer_preference`` counts it."""
    if verdict is None or verdict is Verdict.TIE or p.len_a == p.len_b:
        return None
    return (verdict is Verdict.A) == (p.len_a > p.len_b)


def judge_chose_longer(p: PairFacts) -> bool | None:
    return chose_longer(p.judge, p)


def human_chose_longer(p: PairFacts) -> bool | None:
    return chose_longer(p.human, p)


def swap_consistent(p: PairFacts) -> bool | None:
    return p.consistent


# ---- the figures' own tallies --------------------------------------------------------------
@dataclass(frozen=True)
class WinRate:
    """B's share of the pairs (a tie counts half), with a percentile bootstrap interval:
    every figure shown is B's (the generator's) against A (the baseline)."""

    n: int
    a: int
    b: int
    tie: int
    rate: float | None
    low: float | None
    high: float | None


_INDEX = {v: i for i, v in enumerate(ag.LABELS)}


class Wins:
    """The judge's (``side`` "judge") or the reviewers' verdicts counted, as B's win rate."""

    def __init__(self, side: str) -> None:
        self.side = side
        self.reviewed_only = side == "human"
        self.counts = [0, 0, 0]

    def add(self, p: PairFacts) -> None:
        verdict = p.human if self.reviewed_only else p.judge
        if verdict is not None:
            self.counts[_INDEX[verdict]] += 1

    def finish(self, f: Finish) -> WinRate:
        a, b, tie = self.counts
        rng = seeded(f"{f.key}:{self.side}")
        # The bootstrap draws A's share; B's interval is its complement (the same draws).
        interval = bootstrap_win_rate(a, b, tie, rng=rng, resamples=f.resamples)
        low, high = (1 - interval[1], 1 - interval[0]) if interval else (None, None)
        a_share = ag.win_rate(a, b, tie)
        return WinRate(a + b + tie, a, b, tie, None if a_share is None else 1 - a_share, low, high)


class HeadToHeads:
    """AlpacaEval's win rate of B from the judge's preferences."""

    reviewed_only = False

    def __init__(self) -> None:
        self.counter = HeadToHeadCounter()

    def add(self, p: PairFacts) -> None:
        if p.preference is not None:
            self.counter.add(p.preference)

    def finish(self, f: Finish) -> HeadToHead:
        return self.counter.finish()


class JudgeVsHuman:
    """The confusion matrix of the judge (rows) against the reviewers' consensus."""

    reviewed_only = True

    def __init__(self) -> None:
        self.matrix = ag.empty_matrix()

    def add(self, p: PairFacts) -> None:
        if p.judge is not None and p.human is not None:
            ag.add_to_matrix(self.matrix, p.judge, p.human)

    def finish(self, f: Finish) -> ag.Agreement:
        return ag.summarize(self.matrix)


class ByMode:
    """The judge against each reviewer's verdict, per mode of that verdict (blind, gui...)."""

    reviewed_only = True

    def __init__(self) -> None:
        self.matrices: dict[str, ag.Matrix] = {}

    def add(self, p: PairFacts) -> None:
        judge = p.judge
        if judge is None:
            return
        for review in p.reviews:
            mode = review.mode or UNKNOWN_MODE
            ag.add_to_matrix(
                self.matrices.setdefault(mode, ag.empty_matrix()), judge, given(review)
            )

    def finish(self, f: Finish) -> dict[str, ag.Agreement]:
        return {m: ag.summarize(x) for m, x in sorted(self.matrices.items())}


def given(review: ReviewerVerdict) -> Verdict:
    """A verdict ``PairView.reviews_of`` gave: withdrawals are left out there."""
    assert review.verdict is not None
    return review.verdict


@dataclass(frozen=True)
class ReviewerStats:
    """Agreement among reviewers, over pairs with verdicts from at least two of them."""

    reviewers: list[str]
    pairs: int
    verdicts: int
    cohen_kappa: float | None  # only with exactly two reviewers
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    loo_agreement: float | None  # HREF's human agreement
    judge_loo_agreement: float | None  # the judge against the same leave-one-out majorities
    judge_loo_pairs: int


class Reviewers:
    """Agreement among the reviewers of each pair, and the judge against their
    leave-one-out majorities."""

    reviewed_only = True

    def __init__(self) -> None:
        self.reviewers: set[str] = set()
        self.items: list[tuple[int, int, int]] = []
        self.judged_items: list[tuple[tuple[int, int, int], Verdict]] = []
        self.pairwise: dict[tuple[str, str], ag.Matrix] = {}

    def add(self, p: PairFacts) -> None:
        reviews = p.reviews
        self.reviewers.update(r.reviewer for r in reviews)
        if len(reviews) < 2:
            return
        counts = ag.counts_of(given(r) for r in reviews)
        self.items.append(counts)
        if p.judge is not None:
            self.judged_items.append((counts, p.judge))
        for first, second in combinations(sorted(reviews, key=lambda r: r.reviewer), 2):
            matrix = self.pairwise.setdefault((first.reviewer, second.reviewer), ag.empty_matrix())
            ag.add_to_matrix(matrix, given(first), given(second))

    def finish(self, f: Finish) -> ReviewerStats | None:
        if not self.items:
            return None
        reviewers = sorted(self.reviewers)
        cohen = None
        if len(reviewers) == 2:
            cohen = ag.cohen_kappa(self.pairwise.get((reviewers[0], reviewers[1]), [[0] * 3] * 3))
        return ReviewerStats(
            reviewers=reviewers,
            pairs=len(self.items),
            verdicts=sum(map(sum, self.items)),
            cohen_kappa=cohen,
            fleiss_kappa=ag.fleiss_kappa(self.items),
            krippendorff_alpha=ag.krippendorff_alpha(self.items),
            loo_agreement=ag.loo_reviewer_agreement(self.items),
            judge_loo_agreement=ag.loo_judge_agreement(self.judged_items),
            judge_loo_pairs=len(self.judged_items),
        )
