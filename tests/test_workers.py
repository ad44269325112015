"""Background work in the window: errors come back as one line, and work that outlives its
window ends quietly instead of printing a traceback."""

from __future__ import annotations

import threading

import shiboken6
from PySide6.QtCore import QThreadPool

from desktop.domain.errors import TiebreakError
from desktop.ui.workers import Task


def run(task: Task, qtbot) -> None:
    pool = QThreadPool()
    pool.start(task)
    assert pool.waitForDone(5000)
    qtbot.wait(10)  # deliver the queued signals


def test_results_and_errors_come_back_as_signals(qapp, qtbot) -> None:
    seen: list[object] = []
    ok = Task(lambda progress, cancel: (progress(1), 42)[1])
    ok.signals.progress.connect(seen.append)
    ok.signals.finished.connect(seen.append)
    run(ok, qtbot)
    bad = Task(lambda progress, cancel: (_ for _ in ()).throw(TiebreakError("x.csv: line 3")))
    bad.signals.failed.connect(seen.append)
    run(bad, qtbot)
    broken = Task(lambda progress, cancel: {}["missing"])
    broken.signals.failed.connect(seen.append)
    run(broken, qtbot)
    assert seen == [1, 42, "x.csv: line 3", "unexpected KeyError: 'missing'"]


def test_work_that_outlives_its_window_ends_quietly(qapp, capfd) -> None:
    started, release = threading.Event(), threading.Event()

    def work(progress, cancel: threading.Event) -> int:
        started.set()
        release.wait(5)
        progress("still going")
        return 1

    task = Task(work)
    pool = QThreadPool()
    pool.start(task)
    assert started.wait(5)
    shiboken6.delete(task.signals)  # what closing the window does to the signals' object
    release.set()
    assert pool.waitForDone(5000)
    assert task.done.is_set() and task.cancel.is_set()  # told to stop: nobody is listening
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Signal source has been deleted" not in err
