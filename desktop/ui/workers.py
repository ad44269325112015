"""Background work off the GUI thread: the work never touches a widget; results, progress
and errors come back as signals handled on the GUI thread (Anki's and superqt's pattern)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from desktop.domain.errors import TiebreakError

Work = Callable[[Callable[[Any], None], threading.Event], Any]


class _Signals(QObject):
    progress = Signal(object)
    finished = Signal(object)
    failed = Signal(str)


class Task(QRunnable):
    """One piece of work: ``work(report_progress, cancel_event) -> result``."""

    def __init__(self, work: Work) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.work = work
        self.signals = _Signals()
        self.cancel = threading.Event()
        self.done = threading.Event()

    def run(self) -> None:
        try:
            result = self.work(lambda state: self._tell(self.signals.progress, state), self.cancel)
        except TiebreakError as exc:
            self._tell(self.signals.failed, str(exc))
        except Exception as exc:
            self._tell(self.signals.failed, f"unexpected {type(exc).__name__}: {exc}")
        else:
            self._tell(self.signals.finished, result)
        finally:
            self.done.set()

    def _tell(self, signal: Any, value: Any) -> None:
        """Report to the GUI thread; work that outlives its window has nobody to tell."""
        try:
            signal.emit(value)
        except RuntimeError:  # the signals' C++ object went with the window
            self.cancel.set()


class TaskRunner(QObject):
    """Starts tasks and keeps them alive until they end; cancels and drains at shutdown."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(4)
        self._live: set[Task] = set()

    def start(
        self,
        work: Work,
        *,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        on_progress: Callable[[Any], None] | None = None,
    ) -> Task:
        task = Task(work)
        if on_progress:
            task.signals.progress.connect(on_progress)
        if on_done:
            task.signals.finished.connect(on_done)
        if on_error:
            task.signals.failed.connect(on_error)
        task.signals.finished.connect(lambda _=None, t=task: self._live.discard(t))
        task.signals.failed.connect(lambda _=None, t=task: self._live.discard(t))
        self._live.add(task)
        self.pool.start(task)
        return task

    def busy(self) -> bool:
        return bool(self._live)

    def shutdown(self, timeout_ms: int = 3000) -> None:
        for task in list(self._live):
            task.cancel.set()
        self.pool.waitForDone(timeout_ms)
