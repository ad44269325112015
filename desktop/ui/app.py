"""Start the window: the last project, or on first run the demo project."""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtWidgets import QApplication

from desktop.domain.errors import TiebreakError
from desktop.services.app_settings import load_settings
from desktop.services.demo import ensure_demo_project
from desktop.services.session import ReviewSession
from desktop.ui.main_window import MainWindow


def choose_project(explicit: Path | None) -> Path:
    if explicit is not None:
        return explicit
    for recent in load_settings().recent:
        if Path(recent).is_file():
            return Path(recent)
    return ensure_demo_project()


def run(project: Path | None = None, argv: list[str] | None = None) -> int:
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("Tiebreak")
    app.setOrganizationName("tiebreak")
    settings = load_settings()
    if settings.font_size:
        font = app.font()
        font.setPointSize(settings.font_size)
        app.setFont(font)
    try:
        session = ReviewSession.open(choose_project(project), settings)
    except TiebreakError as exc:
        if project is not None:
            raise
        from desktop.ui.dialogs import warn

        warn(None, f"{exc}\nOpening the demo project instead.")
        session = ReviewSession.open(ensure_demo_project(), settings)
    window = MainWindow(session, settings)
    window.show()
    return app.exec()
