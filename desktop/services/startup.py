"""What the window opens at start: the project named, else the last one, else the demo.

Runs before Qt is loaded, so a project that cannot be opened is reported in one line
without a window, and the modules it needs load before PySide6 starts scanning the source
of every module imported after it (its ``__feature__`` check).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from desktop.domain.errors import TiebreakError
from desktop.domain.shown_text import shown
from desktop.services.app_settings import AppSettings, load_settings
from desktop.services.demo import ensure_demo_project
from desktop.services.session import ReviewSession


class Start(NamedTuple):
    session: ReviewSession
    settings: AppSettings
    warning: str = ""  # shown once the window is up, e.g. why the demo opened instead: lines
    # of our own, outside text in them escaped


def choose_project(explicit: Path | None, settings: AppSettings) -> Path:
    if explicit is not None:
        return explicit
    for recent in settings.recent:
        if Path(recent).is_file():
            return Path(recent)
    return ensure_demo_project()


def open_start(project: Path | None) -> Start:
    """The session to show. A project named on the command line must open; the last
    project may fail (moved, damaged, locked), and then the demo opens with a warning."""
    settings = load_settings()
    try:
        return Start(ReviewSession.open(choose_project(project, settings), settings), settings)
    except TiebreakError as exc:
        if project is not None:
            raise
        session = ReviewSession.open(ensure_demo_project(), settings)
        # Two lines of our own; the error's (a file's name in it) shown as one.
        return Start(session, settings, f"{shown(str(exc))}\nOpening the demo project instead.")
