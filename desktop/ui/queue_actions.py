"""Q: the next pair in the review queue, the pairs most worth a human look first (the order
of `tiebreak queue`), or while a sample is drawn and has pairs left to review, the sample's
pairs in the order drawn (`tiebreak queue --sample`). The queue is computed off the GUI
thread on the first Q after the verdicts change, and walked from there. Ctrl+Shift+S draws
a sample (the dialog: how many, drawn how)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from desktop.services import background
from desktop.services.changes import Change
from desktop.ui.context import WindowContext
from desktop.ui.pair_browser import PairBrowser
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.workers import Task

if TYPE_CHECKING:
    from desktop.services.background import ProjectStore
    from desktop.services.review_samples import DrawnSample
    from desktop.ui.sample_dialog import SampleDialog


class QueueActions(QObject):
    def __init__(self, context: WindowContext, pairs: PairBrowser) -> None:
        super().__init__(context.window)
        self.context = context
        self.pairs = pairs
        self._queue: list[int] | None = None  # pair ids still to visit; None: not computed
        self._task: Task[list[int]] | None = None
        self.dialog: SampleDialog | None = None
        context.changed.connect(self._changed)

    def bind(self, shortcuts: Shortcuts) -> None:
        shortcuts.bind("next_in_queue", self.next_in_queue)
        shortcuts.bind("draw_sample", self.choose_sample)

    def choose_sample(self) -> None:
        """Ctrl+Shift+S: the dialog; OK draws the sample off the GUI thread."""
        from desktop.ui.sample_dialog import SampleDialog

        self.dialog = SampleDialog(self.context.window, self.context.session.judge_model)
        self.dialog.accepted.connect(self._sample_chosen)
        self.dialog.finished.connect(lambda _result: self.pairs.keys_back())
        self.dialog.open()

    def _sample_chosen(self) -> None:
        if self.dialog is not None:
            self.draw_sample(*self.dialog.values())

    def draw_sample(self, size: int, method: str, seed: int) -> None:
        from desktop.services.review_samples import sample_work

        session = self.context.session
        work = sample_work(
            session.project, session.rubric_name, session.judge_model, size, method, seed
        )
        self.context.say("drawing a sample…")
        self.context.runner.start(work, on_done=self._drawn, on_error=self._failed)

    def _drawn(self, drawn: DrawnSample) -> None:
        self.context.publish(Change(sample=True))  # the next Q walks it; the figures weigh it
        self.context.say(
            f"sample #{drawn.sample_id}: {drawn.size:,} of {drawn.frame:,} judged pairs"
            f" ({drawn.method}); Q walks them in the order drawn",
            8000,
        )

    def _changed(self, change: Change) -> None:
        """Verdicts written (a job's, once it ends), or other verdicts shown: the next Q
        computes the queue again."""
        if change.shown or change.sample or (change.verdicts and not change.more_coming):
            self._queue = None

    def next_in_queue(self) -> None:
        if self._queue is None:
            if self._task is None:
                self.context.say("ordering pairs by how much a look is worth…")
                self._task = self.context.runner.start(
                    self._queue_work(), on_done=self._ready, on_error=self._failed
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

    def _queue_work(self) -> background.Work[list[int]]:
        # The judge shown, if any has answered: a rubric nobody judged yet still has a
        # queue (disputes, then the pairs to review), not an error about a judge.
        session = self.context.session
        rubric, model = session.rubric_name, session.shown_judge or None

        def queue(store: ProjectStore) -> list[int]:
            from desktop.services.review_queue import review_queue

            return review_queue(store, rubric, model)

        return background.reading(session.project, queue)

    def _ready(self, ids: list[int]) -> None:
        self._task = None
        self._queue = list(ids)
        self.next_in_queue()

    def _failed(self, message: str) -> None:
        self._task = None
        self.context.error(message)
