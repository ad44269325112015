"""The judge-selection table's columns (``services.judge_selection``): a header, what it
means, and the cell's text, written once for the window's Judges dock and the report."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop.domain.judge_selection import Estimate, Row
from desktop.domain.shown_text import shown

if TYPE_CHECKING:
    from desktop.services.judge_selection import Selection

AGAINST = (("reviewers", "the reviewers' consensus"), ("gold", "gold labels from the data"))


def percent(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def interval(e: Estimate, scale: float = 100.0, digits: int = 1) -> str:
    if e.value is None:
        return "–"
    text = f"{scale * e.value:.{digits}f}"
    if e.low is not None and e.high is not None:
        text += f" [{scale * e.low:.{digits}f}, {scale * e.high:.{digits}f}]"
    return text


def _num(x: float | None, digits: int) -> str:
    return "–" if x is None else f"{x:,.{digits}f}"


def mark(row: Row) -> str:
    return "best" if row.best else ("~best" if row.near_best else "")


#: (header, tooltip, cell) per column, in the order `tiebreak judges --against` prints.
COLUMNS: tuple[tuple[str, str, Callable[[Row], str]], ...] = (
    ("", "best: the best row; ~best: its difference's interval holds 0", mark),
    ("judge", "the judge (or jury) whose verdicts are scored", lambda r: shown(r.name)),
    ("orders", "one order, or both (conservative as MT-bench, or averaged)", lambda r: r.use.value),
    (
        "pairs",
        "pairs with a reference this configuration was asked about",
        lambda r: f"{r.pairs:,}",
    ),
    (
        "JudgeBench",
        "JudgeBench's rule: the orders' votes must sum toward the reference",
        lambda r: interval(r.judgebench),
    ),
    (
        "RewardBench",
        "RewardBench's rule: a tie or no verdict scores 0.5",
        lambda r: interval(r.rewardbench),
    ),
    (
        "MT-bench w/o ties",
        "agreement where neither side said tie (MT-bench)",
        lambda r: interval(r.mtbench),
    ),
    ("κ", "Cohen's kappa against the reference", lambda r: interval(r.kappa, 1, 3)),
    ("π", "Scott's pi against the reference", lambda r: interval(r.pi, 1, 3)),
    (
        "vs best",
        "difference to the best row, on the same resamples",
        lambda r: interval(r.difference),
    ),
    ("consistent", "pairs whose two orders agree", lambda r: percent(r.consistency)),
    (
        "prefer first",
        "decisive votes naming the response shown first",
        lambda r: percent(r.prefer_first),
    ),
    (
        "parse fail",
        "answers whose verdict could not be read",
        lambda r: percent(r.parse_failure_share),
    ),
    ("errors", "answers that failed", lambda r: percent(r.error_share)),
    ("tokens/pair", "tokens per pair, where counted", lambda r: _num(r.tokens_per_pair, 0)),
    ("s/pair", "seconds per pair, where timed", lambda r: _num(r.seconds_per_pair, 2)),
    ("$/pair", "cost per pair, from the profile's price", lambda r: _num(r.cost_per_pair, 6)),
)


def summary(selection: Selection) -> str:
    """What a table is over, said the same by the command line, the dock and the report."""
    t = selection.table
    return (
        f"{t.pairs:,} pairs with a reference (each row counts those its judge was asked"
        f" about); {100 * (1 - t.alpha):g}% intervals from {t.rounds:,} paired resamples"
        f" (seed {t.seed}), the same for every row; best by {t.primary.value}"
    )
