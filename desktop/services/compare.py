"""Two judges, or two rubrics, on the same pairs: which per-dimension verdicts flip.

Only dimensions both sides have are compared (``href-four`` and ``href-overall`` share
``overall``); a pair counts where both sides have a verdict on it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from desktop.adapters.store.pair_reader import LIST_COLUMNS, PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import judge_models
from desktop.domain import agreement as ag
from desktop.domain.errors import TiebreakError
from desktop.domain.pair_view import PairView
from desktop.domain.verdicts import Verdict
from desktop.services.juries import policy_named
from desktop.services.rubric_choice import dimensions_of, judge_name


@dataclass(frozen=True)
class Side:
    rubric: str
    judge_model: str | None


@dataclass(frozen=True)
class Flip:
    pair_id: int
    external_id: str | None
    category: str | None
    dimension: str
    left: Verdict
    right: Verdict

    @property
    def reversal(self) -> bool:
        """A against B, rather than a decision against a tie."""
        return Verdict.TIE not in (self.left, self.right)


@dataclass(frozen=True)
class DimensionFlips:
    dimension: str
    both: int  # pairs with a verdict on each side
    flips: int
    reversals: int
    agreement: ag.Agreement  # confusion rows: left; columns: right


@dataclass(frozen=True)
class Comparison:
    left: Side
    right: Side
    dimensions: list[DimensionFlips]
    flips: list[Flip]


def compare(
    store: ProjectStore,
    rubric: str,
    judge_model: str | None = None,
    *,
    other_rubric: str | None = None,
    other_model: str | None = None,
) -> Comparison:
    """The left side is ``rubric`` judged by ``judge_model`` (default: the latest judge,
    other than ``other_model``);
    the right side changes the rubric, the judge, or both. With another rubric and no
    other model, the right side keeps the left's judge if it answered that rubric too."""
    if other_model is None and other_rubric is None:
        raise TiebreakError("compare needs another rubric or another judge model")
    right_rubric = other_rubric or rubric
    if judge_model is None and other_model is not None and right_rubric == rubric:
        # the latest judge other than the one to compare with
        judge_model = next((m for m in judge_models(store, rubric) if m != other_model), None)
    left = Side(rubric, judge_name(store, rubric, judge_model))
    if other_model is None and left.judge_model in judge_models(store, right_rubric):
        other_model = left.judge_model  # two rubrics: the same judge where it answered both
    right = Side(right_rubric, judge_name(store, right_rubric, other_model))
    if left == right:
        raise TiebreakError(
            f"both sides are rubric {rubric} judged by {left.judge_model}; nothing to compare"
        )
    for side in (left, right):
        if side.judge_model is None:
            raise TiebreakError(f"{store.path}: rubric {side.rubric} has no judge answers")
    right_dims = set(dimensions_of(store, right.rubric))
    dims = [d for d in dimensions_of(store, left.rubric) if d in right_dims]
    if not dims:
        raise TiebreakError(f"rubrics {left.rubric} and {right.rubric} have no dimension in common")
    matrices = {d: ag.empty_matrix() for d in dims}
    flips: list[Flip] = []
    for one, two in zip(_views(store, left), _views(store, right), strict=True):
        for dim in dims:
            a, b = one.judge(dim).verdict, two.judge(dim).verdict
            if a is None or b is None:
                continue
            ag.add_to_matrix(matrices[dim], a, b)
            if a != b:
                pair = one.record
                flips.append(Flip(pair.id, pair.external_id, pair.category, dim, a, b))
    per_dim = []
    for dim in dims:
        mine = [f for f in flips if f.dimension == dim]
        per_dim.append(
            DimensionFlips(
                dimension=dim,
                both=ag.total(matrices[dim]),
                flips=len(mine),
                reversals=sum(f.reversal for f in mine),
                agreement=ag.summarize(matrices[dim]),
            )
        )
    return Comparison(left, right, per_dim, flips)


def _views(store: ProjectStore, side: Side) -> Iterator[PairView]:
    """Every pair in id order, as one side's judge shows it (reviewers' verdicts unread)."""
    policy = policy_named(store, side.rubric, side.judge_model)
    query = PairQuery(side.rubric, policy.judges, LIST_COLUMNS, reviews=False)
    return (PairView(record, policy) for record in read_pairs(store, query))
