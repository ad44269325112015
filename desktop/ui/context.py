"""What the parts of the window share. MainWindow makes one WindowContext and hands it to
each part (the pair list, the choices, the action groups, the agreement dock), so a part
reads the project open now, not the one open when it was built, and needs no reference
to the window class itself."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMainWindow

from desktop.services.app_settings import AppSettings
from desktop.services.session import ReviewSession
from desktop.ui import dialogs
from desktop.ui.workers import TaskRunner


class WindowContext:
    def __init__(self, window: QMainWindow, session: ReviewSession, settings: AppSettings) -> None:
        self.window = window  # parent of dialogs and docks; its status bar shows messages
        self.session = session  # replaced when another project is opened
        self.settings = settings
        self.runner = TaskRunner(window)
        self.closed = False  # the window has closed: work that ends later shows nothing

    def error(self, message: str) -> None:
        """One message box for a problem the reviewer must see (a TiebreakError's line)."""
        dialogs.warn(self.window, message)

    def say(self, message: str, msec: int = 0) -> None:
        """A passing message in the status bar (``msec`` 0: until the next one)."""
        self.window.statusBar().showMessage(message, msec)

    def later(self, msec: int, work: Callable[[], None]) -> None:
        """Run ``work`` after ``msec``, unless the window has closed by then."""
        QTimer.singleShot(msec, lambda: None if self.closed else work())
