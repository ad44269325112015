"""What the window has shown of the judge, written to the project every few seconds off
the GUI thread (desktop/services/blind_review.py), so that after a restart a verdict
given in blind mode on a pair whose judge verdict was seen is not counted as blind. A
verdict's own write and closing the project write it too; a write that fails (the file
locked by another writer a while) is tried again at the next turn."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from desktop.services.blind_review import Seen
from desktop.services.session import ReviewSession
from desktop.ui.context import WindowContext
from desktop.ui.workers import Task

SAVE_EVERY_MS = 3000


class SeenKeeper(QObject):
    def __init__(self, context: WindowContext) -> None:
        super().__init__(context.window)
        self.context = context
        self._task: Task[None] | None = None
        self.timer = QTimer(self, interval=SAVE_EVERY_MS)
        self.timer.timeout.connect(self.save)
        self.timer.start()

    def save(self) -> None:
        """Start writing what is not written yet, unless a write is still running."""
        if self._task is not None or self.context.closed or self.context.runner.closed:
            return
        session = self.context.session
        found = session.blind.save_work(session.project)
        if found is None:
            return
        rows, work = found
        self._task = self.context.runner.start(
            work,
            on_done=lambda _: self._ended(session, rows),
            on_error=lambda _message: self._ended(session, []),
        )

    def _ended(self, session: ReviewSession, rows: list[Seen]) -> None:
        self._task = None
        session.blind.saved(rows)
