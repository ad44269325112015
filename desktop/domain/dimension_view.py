"""The rules for one dimension of one pair: the judge's verdict over both orders, the
final verdict, and the worse of two statuses (the reviewers' label: ``labels``). ``pair_view``
applies them to a whole record; nothing else recombines them."""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import NamedTuple

from desktop.domain.verdicts import Verdict

# A pair judged in both orders has the worse of the two statuses.
_WORST_FIRST = ("error", "parse-failure", "ok")


class JudgeVerdict(NamedTuple):
    """A judge's (or a jury's) verdict on one dimension of one pair."""

    verdict: Verdict | None
    confidence: float | None
    consistent: bool | None  # None unless both orders were judged


NO_VERDICT = JudgeVerdict(None, None, None)
#: JudgeVerdict from a 3-tuple without the Python-level __new__: for loops over every pair.
judge_verdict = functools.partial(tuple.__new__, JudgeVerdict)
_FLIPPED = JudgeVerdict(Verdict.TIE, None, False)


#: JudgeVerdict's fields as a plain tuple: what bulk reads over every pair return (a named
#: tuple costs twice a plain one to make, and export makes 400,000 of them).
JudgeValues = tuple[Verdict | None, float | None, bool | None]


class DimensionView(NamedTuple):
    judge: Verdict | None
    confidence: float | None
    consistent: bool | None  # None unless both orders were judged
    human: Verdict | None
    final: Verdict | None


#: DimensionView's fields as a plain tuple, for bulk reads (see JudgeValues).
DimensionValues = tuple[Verdict | None, float | None, bool | None, Verdict | None, Verdict | None]


def judge_view(
    forward: Verdict | None,
    forward_conf: float | None,
    backward: Verdict | None,
    backward_conf: float | None,
    has_backward: bool,
) -> JudgeVerdict:
    """Combine the AB answer with the (mapped back) BA answer, if one was asked for.

    Disagreeing orders give a tie flagged inconsistent, whatever either order's confidence.
    Agreeing orders give that verdict with the mean of the two confidences.
    """
    if not has_backward:
        return judge_verdict((forward, forward_conf, None))
    if forward is None or backward is None:
        return NO_VERDICT
    if forward != backward:
        return _FLIPPED
    if forward_conf is None:
        return judge_verdict((forward, backward_conf, True))
    if backward_conf is None:
        return judge_verdict((forward, forward_conf, True))
    return judge_verdict((forward, sum((forward_conf, backward_conf)) / 2, True))


def worst_status(states: Collection[str | None]) -> str:
    """The worse of the orders' statuses: error, then parse-failure, then ok; "" when
    neither order was judged."""
    return next((s for s in _WORST_FIRST if s in states), "")
