"""Readable tables for `tiebreak stats` and `tiebreak queue` (the JSON output is the
dataclasses as they are)."""

from __future__ import annotations

from desktop.domain.agreement import LABELS, Agreement
from desktop.domain.head_to_head import HeadToHead
from desktop.services.compare import Comparison
from desktop.services.judges import JudgeRow
from desktop.services.leaderboard import Leaderboard
from desktop.services.review_queue import QueueItem
from desktop.services.stats import DimensionStats, ReviewerStats, Section, Stats, WinRate

DASH = "–"


def pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}%"


def num(value: float | None) -> str:
    return DASH if value is None else f"{value:.3f}"


def figure(value: float | None, digits: int = 4) -> str:
    return DASH if value is None else f"{value:.{digits}f}"


def _b_interval(w: WinRate) -> str:
    """B's 95% interval in percent: the bootstrap is of A's share, B's is its complement."""
    return f"({100 * (1 - (w.high or 0)):.1f}–{100 * (1 - (w.low or 0)):.1f})"


def win(w: WinRate) -> str:
    """B's share of the verdicts (a tie counts half) with its 95% interval."""
    return DASH if w.rate is None else f"{pct(1 - w.rate)} {_b_interval(w)}"


def h2h(h: HeadToHead) -> str:
    """AlpacaEval's win rate of B with its standard error, in percent."""
    return DASH if h.win_rate is None else f"{figure(h.win_rate)} ± {figure(h.standard_error)}"


def discrete(d: DimensionStats) -> str:
    """B's discrete win rate (each preference rounded to a verdict) in percent, with the
    verdicts' bootstrap interval."""
    if d.judge_win.rate is None:
        return DASH
    return f"{figure(d.judge_h2h.discrete_win_rate)} {_b_interval(d.judge_win)}"


def stats_lines(stats: Stats) -> list[str]:
    s = stats.overall
    lines = [
        f"rubric {stats.rubric} · judge {stats.judge_model or 'none'} · {s.pairs:,} pairs,"
        f" {s.judged:,} judged, {s.reviewed:,} reviewed",
        *_other_judges(stats),
        f"judge answers {s.answers:,}: parse failures {s.parse_failures:,}"
        f" ({pct(s.parse_failure_rate)}), errors {s.errors:,}",
        sides(s),
        "",
        *_dimension_table(s.dimensions),
    ]
    for d in s.dimensions:
        lines += _dimension_details(d)
    if stats.categories:
        lines += ["", *_category_table(stats.categories)]
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


_HEAD = (
    f"{'dimension':<14} {'judged':>7}  {'B win rate ± se':<18} {'discrete (95% CI)':<21}"
    f" {'longer':>7} {'swap ok':>8}  {'w/ human':>8} {'agree':>7} {'tie=½':>7} {'no ties':>7}"
    f" {'kappa':>7}"
)


def _dimension_row(name: str, d: DimensionStats) -> str:
    h = d.vs_human
    return (
        f"{name:<14} {d.judge_win.n:>7,}  {h2h(d.judge_h2h):<18} {discrete(d):<21}"
        f" {pct(d.judge_longer):>7} {pct(d.swap_consistency):>8}  {h.n:>8,} {pct(h.agreement):>7}"
        f" {pct(h.agreement_tie_half):>7} {pct(h.agreement_no_ties):>7} {num(h.kappa):>7}"
    )


def _dimension_table(dims: list[DimensionStats]) -> list[str]:
    return [_HEAD, *(_dimension_row(d.dimension, d) for d in dims)]


def _dimension_details(d: DimensionStats) -> list[str]:
    lines: list[str] = []
    if d.human_win.n:
        lines += [
            "",
            f"{d.dimension}: human B wins {win(d.human_win)}, longer {pct(d.human_longer)}",
        ]
    if d.vs_human.n:
        lines.append(f"{d.dimension}: judge (rows) × human (columns)")
        lines += matrix_lines(d.vs_human)
        modes = [
            f"{m} {a.n:,} (agree {pct(a.agreement)}, kappa {num(a.kappa)})"
            for m, a in d.by_mode.items()
        ]
        if modes:
            lines.append("  by mode of the human verdict: " + " · ".join(modes))
    if d.reviewers is not None:
        lines += ["", *_reviewer_lines(d.dimension, d.reviewers)]
    return lines


def matrix_lines(a: Agreement) -> list[str]:
    head = "        " + "".join(f"{v!s:>7}" for v in LABELS)
    rows = [
        f"  {v!s:<6}" + "".join(f"{c:>7,}" for c in row)
        for v, row in zip(LABELS, a.confusion, strict=True)
    ]
    return [head, *rows]


def _reviewer_lines(dim: str, r: ReviewerStats) -> list[str]:
    names = ", ".join(r.reviewers[:6]) + (", …" if len(r.reviewers) > 6 else "")
    lines = [
        f"{dim}: {len(r.reviewers)} reviewers ({names}); {r.pairs:,} pairs with 2 or more"
        f" verdicts, {r.verdicts:,} verdicts",
    ]
    figures = []
    if r.cohen_kappa is not None or len(r.reviewers) == 2:
        figures.append(f"Cohen's kappa {num(r.cohen_kappa)}")
    figures += [
        f"Fleiss' kappa {num(r.fleiss_kappa)}",
        f"Krippendorff's alpha {num(r.krippendorff_alpha)}",
        f"leave-one-out agreement {pct(r.loo_agreement)}",
    ]
    lines.append("  " + ", ".join(figures))
    if r.judge_loo_pairs:
        lines.append(
            f"  judge against the leave-one-out majority: {pct(r.judge_loo_agreement)}"
            f" ({r.judge_loo_pairs:,} pairs)"
        )
    return lines


def _category_table(sections: list[Section]) -> list[str]:
    width = max(14, *(len(s.name) for s in sections))
    lines = [f"{'category':<{width}} {'pairs':>6} {'parse fail':>10}  " + _HEAD]
    for s in sections:
        for i, d in enumerate(s.dimensions):
            lead = (
                f"{s.name:<{width}} {s.pairs:>6,} {pct(s.parse_failure_rate):>10}  "
                if i == 0
                else " " * (width + 20)
            )
            lines.append(lead + _dimension_row(d.dimension, d))
    return lines


def leaderboard_lines(board: Leaderboard) -> list[str]:
    """AlpacaEval's leaderboard columns, one row per generator (B) and baseline (A), its
    numbers written as its CSV writes them (no thousands separators)."""
    dims = list(dict.fromkeys(r.dimension for r in board.rows))
    lines = [
        f"rubric {board.rubric} · judge {board.judge_model or 'none'} · one row per generator"
        " (model_b) against its baseline (model_a)"
    ]
    width = max([10, *(len(r.generator or DASH) for r in board.rows)])
    base = max([9, *(len(r.baseline or DASH) for r in board.rows)])
    for dim in dims:
        lines += [
            "",
            *([f"{dim}:"] if len(dims) > 1 else []),
            f"{'generator':<{width}}  {'baseline':<{base}}  {'win rate':>8} {'std error':>9}"
            f" {'wins':>6} {'losses':>6} {'draws':>5} {'n':>6} {'discrete':>8} {'avg length':>10}",
        ]
        for r in (r for r in board.rows if r.dimension == dim):
            lines.append(
                f"{r.generator or DASH:<{width}}  {r.baseline or DASH:<{base}}"
                f"  {figure(r.win_rate):>8} {figure(r.standard_error):>9} {r.n_wins:>6}"
                f" {r.n_wins_base:>6} {r.n_draws:>5} {r.n_total:>6}"
                f" {figure(r.discrete_win_rate):>8} {r.avg_length:>10}"
            )
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
