"""Every per-dimension figure of `tiebreak stats` and the agreement dock, declared once, in
``FIGURES``: its name (the field of ``DimensionStats`` and the key in ``--json``),
how it accumulates pair by pair or is fitted from all pairs at once (a tally:
``figure_sources``, ``figure_fits``), and how it is shown (columns of the command's and
the window's tables, lines under them; formats in ``figure_formats``). The streaming pass
(``stats``), the JSON, the command's tables (``cli/stats_format.py``) and the window's
(``ui/stats_panel.py``) all follow from this list, so a new figure is one entry here, its
arithmetic in the domain, and a test.

Every win rate shown is B's (the generator's) against A (the baseline).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from desktop.services import figure_fits as fits
from desktop.services import figure_formats as fmt
from desktop.services import figure_lines as lines
from desktop.services import figure_sources as src
from desktop.services import figure_votes as votes
from desktop.services.figure_formats import DASH, count, num, pct

if TYPE_CHECKING:
    from desktop.services.dimension_stats import DimensionStats
    from desktop.services.figure_sources import Tally

__all__ = ["DASH", "FIGURES", "Column", "Figure", "by_name", "table"]

AGREEMENT_TABLE = "agreement"  # the judge and its agreement with the reviewers
WIN_RATES_TABLE = "win_rates"  # B's win rate three ways, and what a --target needs


@dataclass(frozen=True)
class Column:
    """One column of a table: a heading and a cell per row (a dimension's figures, or a
    leaderboard's row)."""

    name: str
    label: str  # the command's column heading
    width: int  # the command's column width; negative: left-aligned
    value: Callable[[Any], Any]  # from the row
    text: Callable[[Any], str]  # the format (``figure_formats``)
    tip: str = ""  # what it is, for the window's heading
    window_label: str | None = None  # the window's heading, where it differs
    window_text: Callable[[Any], str] | None = None  # the window's format, where it differs
    gap: int = 1  # spaces before the command's column

    def cell(self, row: Any) -> str:
        return self._aligned(self.text(self.value(row)))

    def heading(self) -> str:
        return self._aligned(self.label)

    def _aligned(self, text: str) -> str:
        w = self.width
        return " " * self.gap + (f"{text:<{-w}}" if w < 0 else f"{text:>{w}}")

    def window_cell(self, row: Any) -> str:
        return (self.window_text or self.text)(self.value(row))


@dataclass(frozen=True)
class Figure:
    """One figure of every dimension.

    ``tally`` makes a fresh accumulator for each section and dimension; with ``all_pairs``
    it is fitted from every pair at once, for the overall section only (None in a
    category's). ``columns`` go in the table named ``table``; ``lines`` (a dimension's
    figures to lines of text) are shown in ``block`` under the tables, blocks in the order
    they first appear here; its value is the field of ``DimensionStats`` of the same
    name, declared with its type. ``reads`` the columns of a pair
    (``pair_reader.PAIR_COLUMNS``) its tally needs that ``FIGURE_COLUMNS`` lacks."""

    name: str
    tally: Callable[[], Tally]
    doc: str
    all_pairs: bool = False
    columns: tuple[Column, ...] = ()
    table: str = AGREEMENT_TABLE
    lines: Callable[[DimensionStats], list[str]] | None = None
    block: str = ""
    reads: tuple[str, ...] = ()  # the pair's columns its tally reads beyond FIGURE_COLUMNS


#: In this order: the columns of each table, the blocks of lines, the JSON's keys.
FIGURES: tuple[Figure, ...] = (
    Figure(
        "judge_win",
        lambda: src.Wins("judge"),
        "the judge's verdicts counted, B's share with a bootstrap interval",
        columns=(Column("judged", "judged", 7, lambda d: d.judge_win.n, count),),
    ),
    Figure(
        "judge_h2h",
        src.HeadToHeads,
        "B against A from the judge's preferences, AlpacaEval's figures",
        columns=(
            Column("win_rate", "B win rate ± se", -18, lambda d: d.judge_h2h, fmt.h2h, gap=2),
            Column("discrete", "discrete (95% CI)", -21, lambda d: d, fmt.discrete),
        ),
    ),
    Figure(
        "judge_longer",
        lambda: src.Share(src.judge_chose_longer),
        "share of decisive judge verdicts for the longer response",
        columns=(Column("longer", "longer", 7, lambda d: d.judge_longer, pct),),
    ),
    Figure(
        "judge_longer_n",
        lambda: src.Count(src.judge_chose_longer),
        "decisive judge verdicts on responses of unequal length",
    ),
    Figure(
        "swap_checked",
        lambda: src.Count(src.swap_consistent),
        "pairs judged in both orders",
    ),
    Figure(
        "swap_consistency",
        lambda: src.Share(src.swap_consistent),
        "of pairs judged in both orders, the share with the same verdict",
        columns=(
            Column(
                "swap_ok",
                "swap ok",
                8,
                lambda d: d.swap_consistency,
                pct,
                "of pairs judged in both orders, the share with the same verdict",
            ),
        ),
    ),
    Figure(
        "human_win",
        lambda: src.Wins("human"),
        "the reviewers' verdicts counted, B's share with a bootstrap interval",
        lines=lines.human_win,
        block="humans",
    ),
    Figure(
        "human_longer",
        lambda: src.Share(src.human_chose_longer, reviewed=True),
        "share of decisive human verdicts for the longer response",
    ),
    Figure(
        "human_longer_n",
        lambda: src.Count(src.human_chose_longer, reviewed=True),
        "decisive human verdicts on responses of unequal length",
    ),
    Figure(
        "vs_human",
        src.JudgeVsHuman,
        "the judge (rows) against the reviewers' consensus (columns)",
        columns=(
            Column(
                "with_human",
                "w/ human",
                8,
                lambda d: d.vs_human.n,
                count,
                "pairs with both a judge and a human verdict",
                window_label="pairs",
                gap=2,
            ),
            Column(
                "agree",
                "agree",
                7,
                lambda d: d.vs_human.agreement,
                pct,
                "share of those pairs where the judge and the humans agree",
            ),
            Column("agree_tie_half", "tie=½", 7, lambda d: d.vs_human.agreement_tie_half, pct),
            Column(
                "no_ties",
                "no ties",
                7,
                lambda d: d.vs_human.agreement_no_ties,
                pct,
                "agreement leaving out pairs where either side said tie (MT-bench's w/o tie)",
            ),
            Column(
                "kappa",
                "kappa",
                7,
                lambda d: d.vs_human.kappa,
                num,
                "Cohen's kappa, judge against humans",
                window_label="κ",
                window_text=fmt.num2,
            ),
        ),
        lines=lines.judge_by_human,
        block="humans",
    ),
    Figure(
        "by_mode",
        src.ByMode,
        "the judge against each reviewer's verdict, by how it was given (blind, gui, ...)",
        lines=lines.by_mode,
        block="humans",
    ),
    Figure(
        "win_rates",
        fits.WinRatesFit,
        "B's win rate by the judge alone, the humans alone and PPI++ (issue 21)",
        all_pairs=True,
        table=WIN_RATES_TABLE,
        columns=(
            Column(
                "judge_alone",
                "judge alone",
                -21,
                lambda d: d.win_rates and d.win_rates.judge,
                fmt.estimate,
                "the judge's verdicts on every pair: biased by whatever the judge gets wrong",
                window_label="judge",
            ),
            Column(
                "humans_alone",
                "humans alone",
                -21,
                lambda d: d.win_rates and d.win_rates.humans,
                fmt.estimate,
                "the reviewers' verdicts alone",
                window_label="humans",
            ),
            Column(
                "ppi",
                "PPI++ (judge + humans)",
                -22,
                lambda d: d.win_rates and d.win_rates.combined,
                fmt.estimate,
                "prediction-powered: the humans correct the judge; a valid interval",
                window_label="PPI++",
            ),
            Column(
                "lam",
                "λ",
                5,
                lambda d: d.win_rates and d.win_rates.combined,
                fmt.lam,
                "how far the judge's verdicts are trusted (0: not at all, 1: fully)",
            ),
        ),
    ),
    Figure(
        "target",
        fits.TargetFit,
        "further human verdicts that bring the PPI++ interval to --target",
        all_pairs=True,
        table=WIN_RATES_TABLE,
        columns=(
            Column(
                "more_reviews",
                "more for target",
                16,
                lambda d: d.target,
                fmt.more,
                "human verdicts still needed for the interval chosen with --target",
                window_label="more",
            ),
        ),
        lines=lines.target,
        block=WIN_RATES_TABLE,
    ),
    Figure(
        "biases",
        fits.BiasesFit,
        "the judge's length and list biases and how often it prefers output_1 (a position"
        " bias only where it was shown output_1 first), as AlpacaEval measures them",
        all_pairs=True,
    ),
    Figure(
        "calibration",
        fits.CalibrationFit,
        "the judge's confidence against agreement with the reviewers, per bin, and ECE",
        all_pairs=True,
        lines=lines.calibration,
        block="judge",
    ),
    Figure(
        "reviewers",
        src.Reviewers,
        "agreement among reviewers, over pairs with verdicts from two or more",
        lines=lines.reviewers,
        block="reviewers",
    ),
    Figure(
        "vote_agreement",
        votes.VoteAgreement,
        "every two votes on one question, model pair and turn, as FastChat counts them",
        all_pairs=True,
        lines=lines.vote_agreement,
        block="reviewers",
        reads=votes.COLUMNS,
    ),
)


def columns(table_name: str) -> tuple[Column, ...]:
    """The columns of a table, in the order of their figures."""
    return tuple(c for f in FIGURES if f.table == table_name for c in f.columns)


#: The judge and its agreement with the reviewers, one row per dimension.
AGREEMENT = columns(AGREEMENT_TABLE)
#: What the window's table shows of it, in its order.
WINDOW_AGREEMENT = ("with_human", "agree", "no_ties", "kappa", "swap_ok")
#: B's win rate three ways (issue 21): the judge alone, the reviewers alone, and both
#: combined by prediction-powered inference, and the further reviews a --target needs.
WIN_RATES = columns(WIN_RATES_TABLE)
#: What `stats --by model` shows of them beside each generator's row.
PER_GENERATOR = ("judge_alone", "humans_alone", "ppi")


def blocks() -> list[str]:
    """The blocks of lines under the tables, in the order they first appear."""
    return list(dict.fromkeys(f.block for f in FIGURES if f.lines is not None))


def block_lines(block: str, d: DimensionStats) -> list[str]:
    """One dimension's lines in one block, in the order of their figures."""
    return [line for f in FIGURES if f.block == block and f.lines for line in f.lines(d)]


def by_name(figures: Sequence[Column], names: Sequence[str]) -> list[Column]:
    index = {f.name: f for f in figures}
    return [index[n] for n in names]


def table(
    figures: Sequence[Column],
    rows: Sequence[Any],
    width: int = 14,
    lead: Callable[[Any], str] | None = None,
    lead_label: str = "dimension",
) -> list[str]:
    """A command's table: a heading, then one row per dimension (or per ``lead(row)``)."""
    first = lead or (lambda d: d.dimension)
    head = f"{lead_label:<{width}}" + "".join(f.heading() for f in figures)
    return [head, *(f"{first(d):<{width}}" + "".join(f.cell(d) for f in figures) for d in rows)]


def grid(columns: Sequence[Column], rows: Sequence[Any]) -> list[str]:
    """A command's table of columns alone: a heading, then one line per row."""
    return [
        "".join(c.heading() for c in columns).rstrip(),
        *("".join(c.cell(row) for c in columns).rstrip() for row in rows),
    ]
