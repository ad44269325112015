"""Readable tables for `tiebreak stats` and `tiebreak queue` (the JSON output is the
dataclasses as they are)."""

from __future__ import annotations

from desktop.domain.agreement import LABELS, Agreement
from desktop.services.compare import Comparison
from desktop.services.review_queue import QueueItem
from desktop.services.stats import DimensionStats, ReviewerStats, Section, Stats, WinRate

DASH = "–"


def pct(value: float | None) -> str:
    return DASH if value is None else f"{100 * value:.1f}%"


def num(value: float | None) -> str:
    return DASH if value is None else f"{value:.3f}"


def win(w: WinRate) -> str:
    if w.rate is None:
        return DASH
    return f"{pct(w.rate)} ({100 * (w.low or 0):.1f}–{100 * (w.high or 0):.1f})"


def stats_lines(stats: Stats) -> list[str]:
    s = stats.overall
    lines = [
        f"rubric {stats.rubric} · judge {stats.judge_model or 'none'} · {s.pairs:,} pairs,"
        f" {s.judged:,} judged, {s.reviewed:,} reviewed",
        f"judge answers {s.answers:,}: parse failures {s.parse_failures:,}"
        f" ({pct(s.parse_failure_rate)}), errors {s.errors:,}",
        "",
        *_dimension_table(s.dimensions),
    ]
    for d in s.dimensions:
        lines += _dimension_details(d)
    if stats.categories:
        lines += ["", *_category_table(stats.categories)]
    return lines


_HEAD = (
    f"{'dimension':<14} {'judged':>7}  {'A wins (95% CI)':<22} {'longer':>7} {'swap ok':>8}"
    f"  {'w/ human':>8} {'agree':>7} {'tie=½':>7} {'no ties':>7} {'kappa':>7}"
)


def _dimension_row(name: str, d: DimensionStats) -> str:
    h = d.vs_human
    return (
        f"{name:<14} {d.judge_win.n:>7,}  {win(d.judge_win):<22} {pct(d.judge_longer):>7}"
        f" {pct(d.swap_consistency):>8}  {h.n:>8,} {pct(h.agreement):>7}"
        f" {pct(h.agreement_tie_half):>7} {pct(h.agreement_no_ties):>7} {num(h.kappa):>7}"
    )


def _dimension_table(dims: list[DimensionStats]) -> list[str]:
    return [_HEAD, *(_dimension_row(d.dimension, d) for d in dims)]


def _dimension_details(d: DimensionStats) -> list[str]:
    lines: list[str] = []
    if d.human_win.n:
        lines += [
            "",
            f"{d.dimension}: human A wins {win(d.human_win)}, longer {pct(d.human_longer)}",
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
