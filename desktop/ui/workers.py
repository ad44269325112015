"""Background work off the GUI thread: the work never touches a widget; results, progress
and errors come back as signals handled on the GUI thread (Anki's and superqt's pattern)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, SignalInstance

from desktop.domain.errors import TiebreakError

P = TypeVar("P")  # what the work reports as it goes
R = TypeVar("R")  # what it gives when done
#: ``work(report_progress, cancel_event) -> result``; typed at the call site, as Anki's
#: ``QueryOp(Generic[T])``, so ``on_done`` and ``on_progress`` take what the work gives.
Work = Callable[[Callable[[P], None], threading.Event], R]


class _Signals(QObject):
    progress = Signal(object)
    finished = Signal(object)
    failed = Signal(str)


class Task(QRunnable):
    """One piece of work: ``work(report_progress, cancel_event) -> result``."""

    def __init__(self, work: Work[object, object]) -> None:
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

    def _tell(self, signal: SignalInstance, value: object) -> None:
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
        self.closed = False  # shut down: no work starts, no result is shown

    def start(
        self,
        work: Work[P, R],
        *,
        on_done: Callable[[R], None] | None = None,
        on_error: Callable[[str], None] | None = None,
        on_progress: Callable[[P], None] | None = None,
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
        self.closed = True
        for task in list(self._live):
            task.cancel.set()
        self.pool.waitForDone(timeout_ms)


class Refresher(Generic[R]):
    """Figures that follow the data, computed off the GUI thread one at a time: a request
    made while one runs is served when it ends, and so is one whose ``key`` (what was
    asked, e.g. the session and its rubric) changed meanwhile, so what is shown is never
    older than the last request. Nothing starts or shows once the runner is shut down."""

    def __init__(
        self,
        runner: TaskRunner,
        work: Callable[[], Work[object, R]],
        show: Callable[[R], None],
        failed: Callable[[str], None],
        key: Callable[[], object] = lambda: None,
    ) -> None:
        self._runner = runner
        self._work = work
        self._show = show
        self._failed = failed
        self._key = key
        self._task: Task | None = None
        self._again = False

    def request(self) -> None:
        if self._runner.closed:
            return
        if self._task is not None:
            self._again = True
            return
        self._again = False
        asked = self._key()
        self._task = self._runner.start(
            self._work(),
            on_done=lambda result: self._ended(asked, lambda: self._show(result)),
            on_error=lambda message: self._ended(asked, lambda: self._failed(message)),
        )

    def _ended(self, asked: object, report: Callable[[], None]) -> None:
        self._task = None
        if self._runner.closed:
            return
        if self._again or asked != self._key():
            self.request()
        else:
            report()
