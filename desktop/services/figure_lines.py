"""The lines a figure adds under the command's tables, for one dimension (``figures``
names each figure's): an empty list where the figure has nothing to say there."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.domain.agreement import LABELS, Agreement
from desktop.services.figure_formats import num, pct, win

if TYPE_CHECKING:
    from desktop.services.dimension_stats import DimensionStats
    from desktop.services.figure_votes import VoteAgreementRow


def human_win(d: DimensionStats) -> list[str]:
    if not d.human_win.n:
        return []
    return [f"{d.dimension}: human B wins {win(d.human_win)}, longer {pct(d.human_longer)}"]


def matrix_lines(a: Agreement) -> list[str]:
    """A confusion matrix: rows and columns A, B, tie."""
    head = "        " + "".join(f"{v!s:>7}" for v in LABELS)
    rows = [
        f"  {v!s:<6}" + "".join(f"{c:>7,}" for c in row)
        for v, row in zip(LABELS, a.confusion, strict=True)
    ]
    return [head, *rows]


def judge_by_human(d: DimensionStats) -> list[str]:
    if not d.vs_human.n:
        return []
    return [f"{d.dimension}: judge (rows) × human (columns)", *matrix_lines(d.vs_human)]


def by_mode(d: DimensionStats) -> list[str]:
    modes = [
        f"{m} {a.n:,} (agree {pct(a.agreement)}, kappa {num(a.kappa)})"
        for m, a in d.by_mode.items()
    ]
    if not d.vs_human.n or not modes:
        return []
    return ["  by mode of the human verdict: " + " · ".join(modes)]


def reviewers(d: DimensionStats) -> list[str]:
    r = d.reviewers
    if r is None:
        return []
    names = reviewer_names(r.reviewers)
    lines = [
        f"{d.dimension}: {len(r.reviewers)} reviewers ({names}); {r.pairs:,} pairs with 2 or"
        f" more verdicts, {r.verdicts:,} verdicts",
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


def target(d: DimensionStats) -> list[str]:
    t = d.target
    if t is None:
        return []
    if t.more is None:
        needs = "more than every pair reviewed"
    else:
        after = 100 * (t.expected_half_width or 0)
        needs = f"{t.more:,} more human verdicts (then ±{after:.2f})"
    return [f"  {d.dimension}: ±{100 * t.half_width:g} points needs {needs}"]


def calibration(d: DimensionStats) -> list[str]:
    c = d.calibration
    if c is None:
        return []
    bins = " ".join(f"{b.lower:.1f}-{b.upper:.1f}:{pct(b.agreement)}/{b.count:,}" for b in c.bins)
    return [
        f"{d.dimension}: calibration over {c.n:,} reviewed verdicts with a confidence,"
        f" ECE {num(c.ece)}; agreement per confidence bin: {bins}"
    ]


def vote_agreement(d: DimensionStats) -> list[str]:
    rows = d.vote_agreement
    if not rows:
        return []
    lines = [
        f"{d.dimension}: agreement between votes as FastChat counts it (every two votes on one"
        " question, model pair in either order, and turn):",
        f"  {'turn':>4}  {'between':<28} {'with ties':<22} without ties",
    ]
    for r in rows:
        between, with_ties, without = vote_cells(r)
        lines.append(f"  {r.turn:>4}  {between:<28} {with_ties:<22} {without}")
    return lines


def vote_cells(r: VoteAgreementRow) -> tuple[str, str, str]:
    """Whose votes a row compares, and its counts with ties and without (the command's
    lines and the report's table)."""
    who = "reviewers" if r.reviewers == "all" else f"reviewers {r.reviewers}_*"
    return (
        f"judge and {who}" if r.judge else who,
        f"{r.agree:,} of {r.total:,} ({pct(r.ratio)})",
        f"{r.agree_without_ties:,} of {r.total_without_ties:,} ({pct(r.ratio_without_ties)})",
    )


def reviewer_names(names: list[str]) -> str:
    """The first six reviewers' names, an ellipsis for the rest."""
    return ", ".join(names[:6]) + (", …" if len(names) > 6 else "")
