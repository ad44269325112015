"""How a figure's value is written, once for the command's tables and the window's: a
share in percent, a number, a count, B's win rate with its interval. ``figures`` names one
of these for each figure it declares. Every win rate shown is B's (the generator's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.domain.head_to_head import HeadToHead
    from desktop.domain.prediction_powered import MeanInterval, PPIEstimate
    from desktop.services.dimension_stats import DimensionStats
    from desktop.services.figure_fits import ReviewTarget
    from desktop.services.figure_sources import WinRate

DASH = "–"


def pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 3) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def num2(value: float | None) -> str:
    return num(value, 2)


def num4(value: float | None) -> str:
    return num(value, 4)


def count(value: int | None) -> str:
    return DASH if value is None else f"{value:,}"


def plain(value: object) -> str:
    """A value as Python writes it (an integer without separators, as a CSV would)."""
    return DASH if value is None else str(value)


def b_interval(w: WinRate) -> str:
    """B's 95% interval in percent."""
    return f"({100 * (w.low or 0):.1f}–{100 * (w.high or 0):.1f})"


def win(w: WinRate) -> str:
    """B's share of the verdicts (a tie counts half) with its 95% interval."""
    return DASH if w.rate is None else f"{pct(w.rate)} {b_interval(w)}"


def win_sentence(w: WinRate) -> str:
    """``win`` in words, for a sentence in the window."""
    if w.rate is None:
        return DASH
    return f"{pct(w.rate)} (95% CI {pct(w.low)}–{pct(w.high)}, n={w.n:,})"


def h2h(h: HeadToHead) -> str:
    """AlpacaEval's win rate of B with its standard error, in percent."""
    if h.win_rate is None:
        return DASH
    return f"{num(h.win_rate, 4)} ± {num(h.standard_error, 4)}"


def h2h_sentence(h: HeadToHead) -> str:
    """``h2h`` in words, with the discrete win rate (each preference rounded to a verdict
    first) and the count, for a sentence in the window."""
    if h.win_rate is None:
        return DASH
    se = "" if h.standard_error is None else f" ± {h.standard_error:.2f}"
    return f"{h.win_rate:.2f}%{se} (discrete {h.discrete_win_rate:.2f}%, n={h.n_total:,})"


def estimate(m: MeanInterval | None) -> str:
    """A win rate in percent with its interval."""
    if m is None:
        return DASH
    return f"{100 * m.estimate:.1f}% ({100 * m.lower:.1f}–{100 * m.upper:.1f})"


def lam(m: PPIEstimate | None) -> str:
    """PPI++'s λ: how far the judge's verdicts are trusted."""
    return DASH if m is None else num(m.lam, 2)


def more(t: ReviewTarget | None) -> str:
    """Further human verdicts a --target needs."""
    if t is None:
        return DASH
    return "unreachable" if t.more is None else f"{t.more:,}"


def discrete(d: DimensionStats) -> str:
    """B's discrete win rate (each preference rounded to a verdict) in percent, with the
    verdicts' bootstrap interval."""
    if d.judge_win.rate is None:
        return DASH
    return f"{num(d.judge_h2h.discrete_win_rate, 4)} {b_interval(d.judge_win)}"
