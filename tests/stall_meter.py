"""How long the window's event loop goes unserved while a reviewer's step runs.

A 1 ms timer ticks on the GUI thread; the longest gap between two ticks during a step is
the longest the loop was held. It is read twice: in wall time, which a machine busy with
other work stretches, and in the GUI thread's own CPU time, which it does not (the
window's own work, what a fix can change). A step runs its action, then lets the loop run
until the views' layout queue is empty (and ``also_wait`` says nothing else is under way,
such as differences compared off the GUI thread) and then ``quiet`` seconds more, so work
the step left for later turns (queued layout, Qt's own layout timers, marks applied when a
comparison ends) counts to it too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtCore import QCoreApplication, Qt, QTimer

from desktop.ui.layout_queue import layout_queue


@dataclass
class Stall:
    wall_ms: float = 0.0
    cpu_ms: float = 0.0

    def __str__(self) -> str:
        return f"{self.cpu_ms:.0f} ms of the GUI thread's time ({self.wall_ms:.0f} ms wall)"


@dataclass
class StallMeter:
    quiet: float = 0.05
    also_wait: Callable[[], bool] = lambda: False
    steps: dict[str, Stall] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._timer = QTimer(interval=1)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.timeout.connect(self._tick)
        self._last = (time.perf_counter(), time.thread_time())
        self._step: Stall | None = None

    def _tick(self) -> None:
        now = (time.perf_counter(), time.thread_time())
        if self._step is not None:
            self._step.wall_ms = max(self._step.wall_ms, (now[0] - self._last[0]) * 1000)
            self._step.cpu_ms = max(self._step.cpu_ms, (now[1] - self._last[1]) * 1000)
        self._last = now

    def run(self, seconds: float) -> None:
        """Let the event loop run for ``seconds``."""
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            QCoreApplication.processEvents()
            time.sleep(0.0005)

    def step(self, name: str, action: Callable[[], object], timeout: float = 30.0) -> Stall:
        """Run ``action`` as one step and return the longest stall it caused."""
        self._timer.start()
        self.run(0.01)  # a tick just before the action
        stall = self._step = self.steps.setdefault(name, Stall())
        action()
        end = time.perf_counter() + timeout
        while (not layout_queue().idle() or self.also_wait()) and time.perf_counter() < end:
            self.run(0.005)
        self.run(self.quiet)
        self._step = None
        self._timer.stop()
        return stall

    def worst(self) -> tuple[str, Stall]:
        return max(self.steps.items(), key=lambda item: item[1].cpu_ms)
