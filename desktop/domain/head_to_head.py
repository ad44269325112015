"""AlpacaEval's head-to-head figures: how often B (the generator) beats A (the baseline).

AlpacaEval scores each pair with a preference from 1 (A, the baseline, is better) to 2 (B
is better); its weighted annotators give the probability in between (1 + P(B better)),
and 0 or 1.5 is a draw. Its leaderboard reports, over the pairs with a preference:

- ``win_rate``: the mean of (preference - 1), in percent, so a fractional preference
  counts for exactly what it says;
- ``standard_error``: the standard error of that mean (sample deviation, n - 1), in percent;
- ``n_wins``, ``n_wins_base``, ``n_draws``: preferences above, below and exactly at 1.5;
- ``discrete_win_rate``: the same mean after rounding each preference to a verdict first,
  that is (n_wins + n_draws / 2) / n_total, in percent.

The names and units are AlpacaEval's (``metrics/helpers.py``, ``describe_head2head``), so a
row here compares digit for digit with a row of its published leaderboard. A verdict
without a preference counts as the preference it rounds from: A 1, B 2, tie 1.5.
"""

from __future__ import annotations

import math
from array import array
from dataclasses import dataclass

from desktop.domain.verdicts import Verdict

DRAW = 1.5
_OF_VERDICT = {Verdict.A: 1.0, Verdict.B: 2.0, Verdict.TIE: DRAW}


def as_preference(value: object) -> float | None:
    """A stored preference on AlpacaEval's scale: 0 (the old draw) becomes 1.5; anything
    that is no preference (missing, NaN, outside 1..2) is None and is left out."""
    # (stored preferences are numbers or their text: JSON's, as ``JudgeResult`` keeps them)
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    if number == 0:
        return DRAW
    return number if 1 <= number <= 2 else None


def verdict_preference(verdict: Verdict) -> float:
    return _OF_VERDICT[verdict]


def b_score(verdict: Verdict | None, preference: object = None) -> float | None:
    """B's score of one pair, the value every win-rate estimate averages: the preference
    minus 1 where one was given (a judge's fractional preference), else B 1, tie 0.5, A 0;
    None with neither."""
    given = as_preference(preference)
    if given is None:
        given = None if verdict is None else _OF_VERDICT[verdict]
    return None if given is None else given - 1.0


@dataclass(frozen=True)
class HeadToHead:
    """B against A over ``n_total`` pairs; rates in percent, as AlpacaEval reports them."""

    win_rate: float | None
    standard_error: float | None
    n_wins: int
    n_wins_base: int
    n_draws: int
    n_total: int
    discrete_win_rate: float | None


class HeadToHeadCounter:
    """Preferences collected one at a time (8 bytes each), summed exactly at the end."""

    def __init__(self) -> None:
        self._shares = array("d")  # preference - 1: B's share of the pair

    def add(self, preference: float) -> None:
        self._shares.append(preference - 1.0)

    def finish(self) -> HeadToHead:
        shares = self._shares
        n = len(shares)
        wins = sum(1 for s in shares if s > 0.5)
        losses = sum(1 for s in shares if s < 0.5)
        draws = n - wins - losses
        if not n:
            return HeadToHead(None, None, 0, 0, 0, 0, None)
        mean = math.fsum(shares) / n
        sem = None
        if n > 1:
            variance = math.fsum((s - mean) ** 2 for s in shares) / (n - 1)
            sem = math.sqrt(variance) / math.sqrt(n) * 100
        return HeadToHead(
            win_rate=mean * 100,
            standard_error=sem,
            n_wins=wins,
            n_wins_base=losses,
            n_draws=draws,
            n_total=n,
            discrete_win_rate=(wins + 0.5 * draws) / n * 100,
        )
