"""The layout queue shares long layout work out over the event loop's turns: what the user
sees is a window whose other timers (a progress bar, a cursor, the judge's answers) keep
running between two long pieces, and a key's own turn that does not also lay a long text
out."""

from __future__ import annotations

import time
from itertools import pairwise

import pytest
from PySide6.QtCore import QObject, Qt, QTimer

from desktop.ui.layout_queue import SHARE, SMALL, LayoutQueue

pytestmark = pytest.mark.usefixtures("qapp")


def _busy(ms: float) -> None:
    end = time.thread_time() + ms / 1000
    while time.thread_time() < end:
        pass


def test_another_timer_runs_between_two_long_pieces(qtbot) -> None:
    """Two pieces of a full share each: a 1 ms timer already due ticks between them (a
    zero timer of the queue's own ran the second first, holding the loop for both)."""
    queue, owner = LayoutQueue(), QObject()
    events: list[str] = []
    tick = QTimer(interval=1)
    tick.setTimerType(Qt.TimerType.PreciseTimer)
    tick.timeout.connect(lambda: events.append("tick"))
    tick.start()
    qtbot.wait(5)

    def piece(name: str) -> None:
        events.append(name)
        _busy(30)

    for name in ("first", "second", "third"):
        queue.submit(name, owner, SHARE, lambda name=name: piece(name))
    qtbot.waitUntil(queue.idle, timeout=5_000)
    qtbot.wait(5)
    tick.stop()
    pieces = [i for i, e in enumerate(events) if e != "tick"]
    assert [events[i] for i in pieces] == ["first", "second", "third"]
    assert all("tick" in events[a + 1 : b] for a, b in pairwise(pieces))


def test_long_work_waits_for_a_later_turn_and_small_work_runs_at_once(qtbot) -> None:
    queue, owner = LayoutQueue(), QObject()
    ran: list[str] = []
    assert queue.submit("small", owner, SMALL, lambda: ran.append("small")) is True
    assert ran == ["small"]
    assert queue.submit("long", owner, SMALL + 1, lambda: ran.append("long")) is False
    assert ran == ["small"] and queue.waiting("long")  # not in the turn that asked
    qtbot.waitUntil(queue.idle, timeout=5_000)
    assert ran == ["small", "long"]


def test_newer_work_under_a_key_replaces_the_waiting_one_and_a_gone_owner_runs_none(
    qtbot,
) -> None:
    queue = LayoutQueue()
    kept, gone = QObject(), QObject()
    ran: list[str] = []
    queue.submit("text", kept, SHARE, lambda: ran.append("old text"))
    queue.submit("text", kept, SHARE, lambda: ran.append("new text"))
    queue.submit("other", gone, SHARE, lambda: ran.append("gone"))
    import shiboken6

    shiboken6.delete(gone)
    qtbot.waitUntil(queue.idle, timeout=5_000)
    assert ran == ["new text"]
