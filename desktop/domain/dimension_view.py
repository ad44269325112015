"""What one pair shows for a dimension: judge verdict over both orders, human, final."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from typing import NamedTuple

from desktop.domain.verdicts import Verdict, final_verdict

# A pair judged in both orders has the worse of the two statuses.
_WORST_FIRST = ("error", "parse-failure", "ok")


class DimensionView(NamedTuple):
    judge: Verdict | None
    confidence: float | None
    consistent: bool | None  # None unless both orders were judged
    human: Verdict | None
    final: Verdict | None


def judge_view(
    forward: Verdict | None,
    forward_conf: float | None,
    backward: Verdict | None,
    backward_conf: float | None,
    has_backward: bool,
) -> tuple[Verdict | None, float | None, bool | None]:
    """Combine the AB answer with the (mapped back) BA answer, if one was asked for.

    Disagreeing orders give a tie flagged inconsistent, whatever either order's confidence.
    Agreeing orders give that verdict with the mean of the two confidences.
    """
    if not has_backward:
        return forward, forward_conf, None
    if forward is None or backward is None:
        return None, None, None
    if forward != backward:
        return Verdict.TIE, None, False
    confs = [c for c in (forward_conf, backward_conf) if c is not None]
    return forward, (sum(confs) / len(confs) if confs else None), True


def human_consensus(latest_per_reviewer: Sequence[Verdict | None]) -> Verdict | None:
    """The human verdict of a pair: with one reviewer their latest verdict; with several,
    the verdict most of them gave, and the most recent one where no verdict leads.
    ``latest_per_reviewer`` is in the order the verdicts were given."""
    given = [v for v in latest_per_reviewer if v is not None]
    if not given:
        return None
    counts = Counter(given).most_common()
    if len(counts) == 1 or counts[0][1] > counts[1][1]:
        return counts[0][0]
    return given[-1]


def dimension_view(
    judge: Verdict | None, confidence: float | None, consistent: bool | None, human: Verdict | None
) -> DimensionView:
    return DimensionView(judge, confidence, consistent, human, final_verdict(judge, human))


def worst_status(states: Collection[str | None]) -> str:
    """The worse of the orders' statuses: error, then parse-failure, then ok; "" when
    neither order was judged."""
    return next((s for s in _WORST_FIRST if s in states), "")
