"""Start the window on a session opened by ``desktop.services.startup``."""

from __future__ import annotations

import sys

from PySide6.QtWidgets import QApplication

from desktop.services.startup import Start
from desktop.ui.main_window import MainWindow


def run(start: Start, argv: list[str] | None = None) -> int:
    app = QApplication.instance() or QApplication(argv or sys.argv[:1])
    app.setApplicationName("Tiebreak")
    app.setOrganizationName("tiebreak")
    app.setDesktopFileName("tiebreak")  # the installed entry's icon and name (Wayland)
    if start.settings.font_size:
        font = app.font()
        font.setPointSize(start.settings.font_size)
        app.setFont(font)
    window = MainWindow(start.session, start.settings)
    window.show()
    if start.warning:
        window.context.later(0, lambda: window.context.error(start.warning))
    return app.exec()
