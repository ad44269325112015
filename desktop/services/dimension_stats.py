"""One dimension's figures, each a field declared with its type, so a reader that misspells
a figure or mistakes its type is a mypy error. The fields are ``figures.FIGURES`` in its
order (the keys and order of ``--json``); ``tests/test_dimension_stats.py`` holds the two
lists together. A tally gives its figure as an ``object``: ``dimension_stats`` checks each
against its field before it is kept, so a tally that gives the wrong type fails there."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from desktop.domain.agreement import Agreement
from desktop.domain.head_to_head import HeadToHead
from desktop.services.figure_sources import ReviewerStats, WinRate

if TYPE_CHECKING:
    from desktop.domain.calibration import Calibration
    from desktop.domain.judge_biases import JudgeBiases
    from desktop.domain.prediction_powered import WinRateEstimates
    from desktop.services.figure_fits import ReviewTarget
    from desktop.services.figure_votes import VoteAgreementRow

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class DimensionStats:
    """One dimension's figures; a figure fitted from all pairs (``Figure.all_pairs``) is
    None in a category's section, which does not fit it."""

    dimension: str
    judge_win: WinRate
    judge_h2h: HeadToHead
    judge_longer: float | None
    judge_longer_n: int
    swap_checked: int
    swap_consistency: float | None
    human_win: WinRate
    human_longer: float | None
    human_longer_n: int
    vs_human: Agreement
    by_mode: dict[str, Agreement]
    win_rates: WinRateEstimates | None = None
    target: ReviewTarget | None = None
    biases: JudgeBiases | None = None
    calibration: Calibration | None = None
    reviewers: ReviewerStats | None
    vote_agreement: list[VoteAgreementRow] | None = None


def dimension_stats(dimension: str, done: Mapping[str, object]) -> DimensionStats:
    """The figures the tallies gave (by figure name), each checked against its field."""
    from desktop.domain.calibration import Calibration
    from desktop.domain.judge_biases import JudgeBiases
    from desktop.domain.prediction_powered import WinRateEstimates
    from desktop.services.figure_fits import ReviewTarget
    from desktop.services.figure_votes import VoteAgreementRow

    unknown = done.keys() - _FIELDS
    if unknown:
        raise TypeError(f"no field of DimensionStats for the figures {sorted(unknown)}")
    modes = _one(done, "by_mode", dict)
    rows = _maybe(done, "vote_agreement", list)
    return DimensionStats(
        dimension=dimension,
        judge_win=_one(done, "judge_win", WinRate),
        judge_h2h=_one(done, "judge_h2h", HeadToHead),
        judge_longer=_maybe(done, "judge_longer", float),
        judge_longer_n=_one(done, "judge_longer_n", int),
        swap_checked=_one(done, "swap_checked", int),
        swap_consistency=_maybe(done, "swap_consistency", float),
        human_win=_one(done, "human_win", WinRate),
        human_longer=_maybe(done, "human_longer", float),
        human_longer_n=_one(done, "human_longer_n", int),
        vs_human=_one(done, "vs_human", Agreement),
        by_mode={str(m): _checked("by_mode", a, Agreement) for m, a in modes.items()},
        win_rates=_maybe(done, "win_rates", WinRateEstimates),
        target=_maybe(done, "target", ReviewTarget),
        biases=_maybe(done, "biases", JudgeBiases),
        calibration=_maybe(done, "calibration", Calibration),
        reviewers=_maybe(done, "reviewers", ReviewerStats),
        vote_agreement=None
        if rows is None
        else [_checked("vote_agreement", r, VoteAgreementRow) for r in rows],
    )


_FIELDS = frozenset(DimensionStats.__dataclass_fields__) - {"dimension"}


def _checked(name: str, value: object, kind: type[T]) -> T:
    if not isinstance(value, kind):
        raise TypeError(f"figure {name} gave a {type(value).__name__}, not a {kind.__name__}")
    return value


def _one(done: Mapping[str, object], name: str, kind: type[T]) -> T:
    return _checked(name, done.get(name), kind)


def _maybe(done: Mapping[str, object], name: str, kind: type[T]) -> T | None:
    value = done.get(name)
    return None if value is None else _checked(name, value, kind)
