"""`stats` on a jury: a short section after the figures, its jurors' agreement with one
another and each one's, and the jury's, with the reviewers."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop.domain.agreement import Agreement
    from desktop.services.jury_stats import JuryStats

DASH = "–"


def _share(agreement: Agreement) -> str:
    if agreement.agreement is None:
        return f"{DASH} (n 0)"
    kappa = DASH if agreement.kappa is None else f"{agreement.kappa:.3f}"
    return f"{100 * agreement.agreement:.1f}% (κ {kappa}, n {agreement.n:,})"


def jury_lines(jury: JuryStats) -> list[str]:
    kind = "majority" if jury.combine == "majority" else "mean B score"
    lines = [
        f"jury {jury.jury}: {kind} of {', '.join(jury.jurors)}",
        "  Fleiss' kappa across the jurors; agreement with the reviewers (Cohen's κ, pairs):",
    ]
    for dim in jury.dimensions:
        kappa = DASH if dim.fleiss_kappa is None else f"{dim.fleiss_kappa:.3f}"
        lines.append(f"  {dim.dimension}: jurors' Fleiss κ {kappa} over {dim.pairs:,} pairs")
        for juror in dim.jurors:
            lines.append(f"    {juror.judge}: {_share(juror.vs_human)}")
        lines.append(f"    the jury: {_share(dim.jury)}")
    return lines
