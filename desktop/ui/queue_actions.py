"""Q: the next pair in the review queue, the pairs most worth a human look first (the order
of `tiebreak queue`). The queue is computed off the GUI thread on the first Q after the
verdicts change, and walked from there."""

from __future__ import annotations

from PySide6.QtCore import QObject

from desktop.ui.context import WindowContext
from desktop.ui.pair_browser import PairBrowser
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.workers import Task


class QueueActions(QObject):
    def __init__(self, context: WindowContext, pairs: PairBrowser) -> None:
        super().__init__(context.window)
        self.context = context
        self.pairs = pairs
        self._queue: list[int] | None = None  # pair ids still to visit; None: not computed
        self._task: Task | None = None

    def bind(self, shortcuts: Shortcuts) -> None:
        shortcuts.bind("next_in_queue", self.next_in_queue)

    def forget(self) -> None:
        """The verdicts changed: the next Q computes the queue again."""
        self._queue = None

    def next_in_queue(self) -> None:
        if self._queue is None:
            if self._task is None:
                self.context.say("ordering pairs by how much a look is worth…")
                self._task = self.context.runner.start(
                    self.context.session.queue_work(), on_done=self._ready, on_error=self._failed
                )
            return
        current = self.context.session.current
        while self._queue and current is not None and self._queue[0] == current.id:
            self._queue.pop(0)
        if not self._queue:
            self.context.say("the review queue is empty", 4000)
            self._queue = None
            return
        target = self._queue.pop(0)
        self.pairs.show_in_all(target)
        self.context.say(f"review queue: {len(self._queue):,} more", 3000)

    def _ready(self, ids: list[int]) -> None:
        self._task = None
        self._queue = list(ids)
        self.next_in_queue()

    def _failed(self, message: str) -> None:
        self._task = None
        self.context.error(message)
