"""Start the window on a session opened by ``desktop.services.startup``."""

from __future__ import annotations

import sys
from typing import cast

from PySide6.QtWidgets import QApplication

from desktop.services.startup import Start
from desktop.ui import dialogs, font_size, theme
from desktop.ui.main_window import MainWindow


def run(start: Start, argv: list[str] | None = None) -> int:
    # instance() is typed as the core application: in this process it is a QApplication
    app = cast(QApplication, QApplication.instance() or QApplication(argv or sys.argv[:1]))
    app.setApplicationName("Tiebreak")
    app.setOrganizationName("tiebreak")
    app.setDesktopFileName("tiebreak")  # the installed entry's icon and name (Wayland)
    font_size.apply(start.settings.font_size)  # before the window: laid out once
    theme.start(app)  # light or dark as the system last was; asked once on screen
    window = MainWindow(start.session, start.settings)
    window.after_first_paint(lambda: theme.follow_system(app))
    window.show()
    if start.warning:
        window.context.later(0, lambda: dialogs.warn_lines(window, start.warning))
    return app.exec()
