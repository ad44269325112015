"""`tiebreak` with no command (or `tiebreak open PROJECT`): the review window.

Kept apart from the other commands so starting the window loads nothing it does not use.
"""

from __future__ import annotations

from pathlib import Path

from desktop.domain.errors import TiebreakError


def open_window(project: Path | None = None) -> int:
    from desktop.cli.display_check import display_problem

    problem = display_problem()
    if problem:
        raise TiebreakError(problem)
    from desktop.services.startup import open_start

    start = open_start(project)  # before Qt loads: see desktop.services.startup
    from desktop.ui.app import run

    return run(start)
