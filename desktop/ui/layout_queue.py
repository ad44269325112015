"""Laying out text, shared out over the event loop's turns.

Laying out a long text is the one thing the window's text views do that can hold the event
loop: a pair whose five texts are each long, shown at once, would be laid out in one go
(five times the longest a view may take). So each view hands its layout work here with a
cost (characters to lay out, and more for a table cell). Long work never runs in the turn
that asks for it (that turn has its own work: a key's move to the next pair, the other
views' texts); a later turn runs the waiting work in order until its share is spent, and
always at least one piece. The loop is never held much longer than the longest single
piece of work, whatever the texts. Small work (an ordinary response) runs at once,
uncounted, as if there were no queue: only long texts ever wait.

The next turn is a timer of 1 ms, not 0: Qt's event loop ran a zero timer started in a
zero timer's own turn before timers already due, so two pieces ran with nothing of the
window's own (its other timers: the judge's progress, a blinking cursor) between them,
holding it for both (85 ms where each took 40).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Hashable
from functools import cache

import shiboken6
from PySide6.QtCore import QObject, QTimer

from desktop.ui.layout_cost import SHORT

SHARE = 25_000  # cost a turn may spend (10 to 35 ms, and the paint after it)
SMALL = SHORT  # work that costs no more never waits


class LayoutQueue:
    def __init__(self) -> None:
        self._waiting: deque[tuple[Hashable, QObject, int, Callable[[], None]]] = deque()
        self._turn = QTimer(singleShot=True, interval=1)  # fires once the loop comes back
        self._turn.timeout.connect(self._next_turn)

    def submit(self, key: Hashable, owner: QObject, cost: int, work: Callable[[], None]) -> bool:
        """Run ``work`` now if it is small, else in a later turn (work waiting under the
        same ``key`` is dropped: the newer replaces it; work whose ``owner`` is gone never
        runs). True when it ran now."""
        self.drop(key)
        if cost <= SMALL:
            work()  # bounded, and never counted: five such take 10 ms at most
            return True
        self._waiting.append((key, owner, cost, work))
        self._turn.start()
        return False

    def drop(self, key: Hashable) -> None:
        if self._waiting:
            self._waiting = deque(w for w in self._waiting if w[0] != key)

    def waiting(self, key: Hashable) -> bool:
        return any(w[0] == key for w in self._waiting)

    def idle(self) -> bool:
        return not self._waiting

    def _next_turn(self) -> None:
        """The waiting work in order while this turn's share lasts, and always one piece
        (long work runs only here, so the share is this turn's alone)."""
        spent = 0
        while self._waiting and (spent == 0 or spent + self._waiting[0][2] <= SHARE):
            _key, owner, cost, work = self._waiting.popleft()
            if shiboken6.isValid(owner):
                spent += cost
                self._turn.start()  # the rest in the next turn, whatever this work does
                work()


@cache
def layout_queue() -> LayoutQueue:
    """The one queue of the GUI thread (made when first used: it needs the application)."""
    return LayoutQueue()
