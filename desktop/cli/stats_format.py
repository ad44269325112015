"""Readable tables for `tiebreak stats` and `tiebreak queue` (the JSON output is the
dataclasses as they are)."""

from __future__ import annotations

from desktop.services.compare import Comparison
from desktop.services.figure_formats import DASH, count, h2h, num, pct, win
from desktop.services.figure_lines import matrix_lines
from desktop.services.figures import (
    AGREEMENT,
    WIN_RATES,
    WIN_RATES_TABLE,
    Column,
    block_lines,
    blocks,
    grid,
    table,
)
from desktop.services.judge_bias_rows import HEADING as BIAS_HEADING
from desktop.services.judge_bias_rows import OUTPUT_1_NOTE
from desktop.services.judge_bias_rows import shown_columns as bias_columns
from desktop.services.judges import JudgeRow
from desktop.services.leaderboard import Leaderboard, lc_note, shown_columns
from desktop.services.ratings import COLUMNS as RATING_COLUMNS
from desktop.services.ratings import HUMANS, GeneratorRatings, StyleControl
from desktop.services.review_queue import QueueItem
from desktop.services.stats import DimensionStats, Section, Stats

__all__ = ["count", "h2h", "matrix_lines", "num", "pct", "win"]


def stats_lines(stats: Stats) -> list[str]:
    s = stats.overall
    lines = [
        f"rubric {stats.rubric} · judge {stats.judge_model or 'none'} · {s.pairs:,} pairs,"
        f" {s.judged:,} judged, {s.reviewed:,} reviewed",
        *_other_judges(stats),
        f"judge answers {s.answers:,}: parse failures {s.parse_failures:,}"
        f" ({pct(s.parse_failure_rate)}), errors {s.errors:,}",
        sides(s),
        *filter(None, [s.labels_note(included=stats.include_accepted)]),
        *(
            [
                f"human verdicts: the reviewers of rubric {stats.reference_rubric}, on its"
                " dimensions of the same name (--reference-rubric)"
            ]
            if stats.reference_rubric
            else []
        ),
        "",
        *_dimension_table(s.dimensions),
    ]
    lines += _win_rate_lines(stats)
    for d in s.dimensions:
        lines += _dimension_details(d)
    lines += _bias_lines(stats)
    if stats.categories:
        lines += ["", *_category_table(stats.categories)]
    if stats.turns:
        lines += ["", *_category_table(stats.turns, "turn")]
    return lines


def _other_judges(stats: Stats) -> list[str]:
    if not stats.other_judges:
        return []
    shown = ", ".join(stats.other_judges[:4]) + (", …" if len(stats.other_judges) > 4 else "")
    return [
        f"  the latest of {len(stats.other_judges) + 1} judges with answers for this rubric"
        f" (also: {shown}); pick one with --judge-model NAME, list them with 'tiebreak judges'"
    ]


def sides(s: Section) -> str:
    """Who B and A are: win rates are the generator's (B) against the baseline (A)."""
    if s.generators > 1:
        return (
            f"win rates are B's against A, pooled over {s.generators:,} generators in B;"
            " '--by model' gives one row each"
        )
    if s.generator or s.baseline:
        return (
            f"win rates are B's ({s.generator or 'unnamed'}) against A"
            f" ({s.baseline or 'unnamed'}, the baseline)"
        )
    return "win rates are B's against A (a tie counts half)"


def _dimension_table(dims: list[DimensionStats]) -> list[str]:
    return table(AGREEMENT, dims)


def _win_rate_lines(stats: Stats) -> list[str]:
    """B's win rate three ways, the further reviews a --target needs, and the one line on
    how the reviewed pairs were chosen."""
    dims = [d for d in stats.overall.dimensions if d.win_rates is not None]
    if not dims:
        return []
    figures = list(WIN_RATES)
    if all(d.target is None for d in dims):
        figures = [f for f in figures if f.name != "more_reviews"]
    level = f"{100 * (1 - stats.alpha):g}%"
    lines = ["", f"B's win rate, {level} intervals (PPI++: the reviewers correct the judge):"]
    lines += table(figures, dims)
    for d in dims:
        lines += block_lines(WIN_RATES_TABLE, d)
    if stats.sample is not None and stats.sample.note:
        lines.append(stats.sample.note)
    return lines


def _bias_lines(stats: Stats) -> list[str]:
    """Every judge's biases as AlpacaEval measures them, one row per judge and dimension."""
    rows = [r for r in stats.judge_biases if r.biases is not None]
    if not rows:
        return []
    return ["", BIAS_HEADING, *grid(bias_columns(rows), rows), OUTPUT_1_NOTE]


def _dimension_details(d: DimensionStats) -> list[str]:
    """Each block of lines the figures add under the tables, a blank line before each."""
    lines: list[str] = []
    for block in blocks():
        if block == WIN_RATES_TABLE:
            continue
        shown = block_lines(block, d)
        if shown:
            lines += ["", *shown]
    return lines


def _category_table(sections: list[Section], label: str = "category") -> list[str]:
    width = max(14, *(len(s.name) for s in sections))
    lines: list[str] = []
    for s in sections:
        rows = table(AGREEMENT, s.dimensions)
        if not lines:
            lines.append(f"{label:<{width}} {'pairs':>6} {'parse fail':>10}  " + rows[0])
        for i, row in enumerate(rows[1:]):
            lead = (
                f"{s.name:<{width}} {s.pairs:>6,} {pct(s.parse_failure_rate):>10}  "
                if i == 0
                else " " * (width + 20)
            )
            lines.append(lead + row)
    return lines


def leaderboard_lines(board: Leaderboard) -> list[str]:
    """AlpacaEval's leaderboard columns, one row per generator (B) and baseline (A); where
    reviewers gave verdicts, B's win rate three ways beside them."""
    dims = list(dict.fromkeys(r.dimension for r in board.rows))
    lines = [
        f"rubric {board.rubric} · judge {board.judge_model or 'none'} · one row per generator"
        " (model_b) against its baseline (model_a)"
    ]
    columns, three_ways = shown_columns(board)
    if three_ways is not None:
        lines.append(three_ways)
    for dim in dims:
        rows = [r for r in board.rows if r.dimension == dim]
        lines += ["", *([f"{dim}:"] if len(dims) > 1 else []), *grid(columns, rows)]
    note = lc_note(board)
    if note:
        lines += ["", *note]
    return lines


def judges_lines(table: list[JudgeRow]) -> list[str]:
    """Rubric × judge: answers (each order counted), parse failures, errors, and when."""
    rubric_w = max(6, *(len(r.rubric) for r in table))
    judge_w = max(5, *(len(r.judge) for r in table))
    lines = [
        f"{'rubric':<{rubric_w}}  {'judge':<{judge_w}}  {'pairs':>7} {'answers':>8} {'ok':>8}"
        f" {'parse fail':>10} {'errors':>7}  {'first answer':<19}  {'last answer':<19}  from"
    ]
    for r in table:
        lines.append(
            f"{r.rubric:<{rubric_w}}  {r.judge:<{judge_w}}  {r.pairs:>7,} {r.answers:>8,}"
            f" {r.ok:>8,} {r.parse_failures:>10,} {r.errors:>7,}  {_when(r.first_answer):<19}"
            f"  {_when(r.last_answer):<19}  {', '.join(r.origins)}"
        )
    return lines


def _when(stamp: str) -> str:
    """An answer's UTC time to the second, as "2025-01-31 14:02:07"."""
    return stamp[:19].replace("T", " ")


def comparison_lines(c: Comparison, *, limit: int) -> list[str]:
    left = f"{c.left.rubric} (judge {c.left.judge_model})"
    right = f"{c.right.rubric} (judge {c.right.judge_model})"
    lines = [
        f"{left}  vs  {right}",
        "",
        f"{'dimension':<14} {'both':>7} {'flips':>7} {'A↔B':>7} {'agree':>7} {'kappa':>7}",
    ]
    for d in c.dimensions:
        lines.append(
            f"{d.dimension:<14} {d.both:>7,} {d.flips:>7,} {d.reversals:>7,}"
            f" {pct(d.agreement.agreement):>7} {num(d.agreement.kappa):>7}"
        )
    for d in c.dimensions:
        lines += ["", f"{d.dimension}: left (rows) × right (columns)", *matrix_lines(d.agreement)]
    if c.flips:
        shown = c.flips[:limit] if limit else c.flips
        lines += ["", f"flips ({len(shown):,} of {len(c.flips):,} shown; left → right):"]
        for f in shown:
            label = f"#{f.pair_id}" + (f" ({f.external_id})" if f.external_id else "")
            lines.append(f"  {label:<20} {f.dimension:<14} {f.left} → {f.right}")
    return lines


def queue_lines(items: list[QueueItem], total: int) -> list[str]:
    lines = [f"{total:,} pairs in the queue" + (f", first {len(items):,}:" if items else "")]
    for item in items:
        conf = DASH if item.confidence is None else f"{item.confidence:.2f}"
        lines.append(
            f"  #{item.pair_id:<7} {item.reason:<15} conf {conf:<5} {', '.join(item.dimensions)}"
        )
    return lines


def ratings_lines(r: GeneratorRatings) -> list[str]:
    """One rubric's dimension: the ratings table, then the win rate between every two."""
    scale = f"{r.anchor[0]} at {r.anchor[1]:g}" if r.anchor is not None else "mean 1000"
    head = (
        f"rubric {r.rubric} · {r.dimension} · {_source(r)}: {len(r.models):,} generators,"
        f" {r.verdicts:,} verdicts"
    )
    if not r.models:
        return [head + " (ratings need verdicts between two different generators)"]
    level = f"{100 * r.level:g}%"
    boot = f"{r.rounds:,} bootstrap rounds, seed {r.seed}" if r.rounds else "no bootstrap"
    lines = [
        head,
        f"Bradley-Terry on the Elo scale (400 points: 10 to 1 odds; {scale}), ties half a win"
        f" each way; {level} intervals, {boot}; a rank counts the models surely above",
    ]
    if r.left_out:
        lines.append(f"{r.left_out:,} verdicts left out: their pair names no two generators")
    if not r.mle_exists:
        lines.append(
            "some generator won or lost every verdict against the rest: its rating is held"
            " finite only by a ridge, and its interval understates how little is known"
        )
    width = max(9, *(len(m.model) for m in r.models))
    name = Column("model", "generator", -width, lambda m: m.model, str, gap=0)
    lines += ["", *grid((name, *RATING_COLUMNS), r.models)]
    lines += ["", "win rate of the row against the column (a tie half; – never met):"]
    cell = max(7, *(len(m.model) for m in r.models))
    names = [m.model for m in r.models]
    lines.append(" " * width + "".join(f" {n:>{cell}}" for n in names))
    for m, row in zip(names, r.win_rate, strict=True):
        lines.append(f"{m:<{width}}" + "".join(f" {pct(v):>{cell}}" for v in row))
    if r.style is not None:
        lines += ["", *_style_lines(r.style, name)]
    return lines


def _style_lines(style: StyleControl, name: Column) -> list[str]:
    """The style-controlled ratings beside the plain ones, then the style coefficients."""
    shift = dict(zip((m.model for m in style.models), style.shift, strict=True))
    change = Column("shift", "vs plain", 9, lambda m: shift[m.model], lambda v: f"{v:+.1f}")
    lines = [
        "with style control (Chatbot Arena's: answers' tokens, headers, lists and bold, code"
        f" blocks left out; tokens by {style.tokenizer}):",
        *grid((name, *RATING_COLUMNS[:1], change, *RATING_COLUMNS[1:]), style.models),
        "",
        "style coefficients (log-odds per standard deviation of the feature; above 0, more"
        " of it wins more):",
    ]
    for c in style.coefficients:
        boot = (
            ""
            if c.bootstrap is None
            else f"  bootstrap {c.bootstrap[0]:+.3f}–{c.bootstrap[1]:+.3f}"
        )
        lines.append(
            f"  {c.feature:<8} {c.value:+.3f}  sandwich {c.sandwich[0]:+.3f}–{c.sandwich[1]:+.3f}"
            + boot
        )
    return lines


def _source(r: GeneratorRatings) -> str:
    return "reviewers' verdicts" if r.source == HUMANS else f"judge {r.source}"
