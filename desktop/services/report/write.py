"""Write a report: the target checked first (never the project or its sidecars, never a
read-only place: the export's checks), then the figures, then the file, all at once."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from desktop.adapters.formats.atomic import atomic_text_file, check_target
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError
from desktop.domain.length_control import MINIMAL, GamedData
from desktop.services.report.gather import gather
from desktop.services.report.page import page


@dataclass(frozen=True)
class ReportSummary:
    path: Path
    rubrics: int
    judges: int  # rubric × judge sections
    charts: int
    size: int  # characters written


def write_report(
    store: ProjectStore,
    out: str | Path,
    *,
    rubrics: Sequence[str] = (),
    alpha: float = 0.05,
    seed: int = 0,
    lc: str | None = MINIMAL,
    gamed: GamedData | None = None,
    progress: Callable[[int], None] | None = None,
) -> ReportSummary:
    out = Path(out)
    # Before the figures: a path that cannot be written is said at once (as export says it).
    target = check_target(out, keep=store.path)
    if not target.parent.is_dir():
        raise TiebreakError(f"{out.parent if str(out.parent) else '.'}: no such folder")
    figures = gather(store, rubrics, alpha=alpha, seed=seed, lc=lc, gamed=gamed, progress=progress)
    text, charts = page(store.path.name, figures, alpha=alpha, made=datetime.now(UTC))
    store.ensure_read_whole()  # figures of two files are no report: nothing is written
    with atomic_text_file(out, keep=store.path) as fh:
        fh.write(text)
    return ReportSummary(out, len(figures), sum(len(r.judges) for r in figures), charts, len(text))
