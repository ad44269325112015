"""What the parts of the window share. MainWindow makes one WindowContext and hands it to
each part (the pair list, the choices, the action groups, the docks), so a part reads the
project open now, not the one open when it was built, and needs no reference to the window
class itself.

Changes travel on one signal: whoever makes a change publishes it once
(``publish(Change(...))``, desktop/services/changes.py), and each part that shows
something connects to ``changed`` in its constructor and decides from the change what to
show again. No part calls another to say what happened, and a part must not count on
hearing a change before or after another part does."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QMainWindow

from desktop.domain.shown_text import shown
from desktop.services.app_settings import AppSettings
from desktop.services.changes import Change
from desktop.services.session import ReviewSession
from desktop.ui import dialogs
from desktop.ui.workers import TaskRunner


class WindowContext(QObject):
    changed = Signal(object)  # a Change, published once by whoever made it

    def __init__(self, window: QMainWindow, session: ReviewSession, settings: AppSettings) -> None:
        super().__init__(window)
        self.window = window  # parent of dialogs and docks; its status bar shows messages
        self.session = session  # replaced when another project is opened
        self.settings = settings
        self.runner = TaskRunner(window)
        self.closed = False  # the window has closed: work that ends later shows nothing
        self.lost: str | None = None  # the line once the project file was moved or replaced
        self.check_file: Callable[[], None] = lambda: None  # FileGuard.check
        self._after_paint: list[Callable[[], object]] | None = []  # None once painted

    def publish(self, change: Change) -> None:
        """Tell every part of the window what changed."""
        self.changed.emit(change)

    def error(self, message: str) -> None:
        """One message box for a problem the reviewer must see (a TiebreakError's line).
        A refusal may be the first sign that the project file was moved or replaced: that
        line is shown in a box once (FileGuard), and then stays in the status bar."""
        self.check_file()
        if message != self.lost:  # that one stays in the status bar (MainWindow._file_lost)
            dialogs.warn(self.window, message)

    def say(self, message: str, msec: int = 0) -> None:
        """A passing message in the status bar (``msec`` 0: until the next one), one line
        whatever it holds."""
        self.window.statusBar().showMessage(shown(message), msec)

    def later(self, msec: int, work: Callable[[], object]) -> None:
        """Run ``work`` after ``msec``, unless the window has closed by then."""
        QTimer.singleShot(msec, lambda: None if self.closed else work())

    def after_first_paint(self, work: Callable[[], object]) -> None:
        """Run ``work`` once the window's first frame is on screen (soon, if it is), so
        what the first pair does not need never delays it."""
        if self._after_paint is None:
            self.later(0, work)
        else:
            self._after_paint.append(work)

    def painted(self) -> None:
        """The window painted a frame: the work waiting for the first one runs next."""
        if self._after_paint is not None:
            pending, self._after_paint = self._after_paint, None
            for work in pending:
                self.later(0, work)  # after this frame is on screen
