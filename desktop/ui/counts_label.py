"""The status bar's figures for the rubric and judge shown: whose verdicts they are, pairs,
judged, reviewed, left."""

from __future__ import annotations

import time

from desktop.services import background, pair_list
from desktop.services.changes import Change
from desktop.ui.context import WindowContext
from desktop.ui.plain_text import PlainLabel
from desktop.ui.workers import Refresher

LIVE_EVERY_S = 1.0  # while a job runs: its answers arrive hundreds a second


class CountsLabel(PlainLabel):
    """Counted off the GUI thread (tens of milliseconds on 100,000 pairs), one count at a
    time; a request made while one runs is served when it ends, so the figures shown are
    never older than the last edit."""

    def __init__(self, context: WindowContext) -> None:
        super().__init__()
        self.context = context
        self._counts = Refresher(
            context.runner,
            self._work,
            self._show,
            self._failed,
            key=self._asked,
        )
        self._live_at = 0.0  # when the counts were last asked for
        context.changed.connect(self._changed)

    def _work(self) -> background.Work[tuple[int, int, int]]:
        """(pairs, judged, reviewed), counted on a connection of their own: a 100,000-pair
        project takes tens of milliseconds."""
        session = self.context.session
        rubric, model = session.rubric_name, session.judge_model
        return background.reading(
            session.project, lambda store: pair_list.counts(store, rubric, model)
        )

    def refresh(self) -> None:
        self._live_at = time.monotonic()
        self._counts.request()

    def _changed(self, change: Change) -> None:
        """Counted again for another rubric, judge or project (a project: once the window
        has painted its first pair), pairs added, or verdicts written; a running job's
        answers at most once a second."""
        if change.project:
            self.context.after_first_paint(self.refresh)
        elif change.more_coming:
            if time.monotonic() - self._live_at > LIVE_EVERY_S:
                self.refresh()
        elif change.shown or change.pairs_added or change.verdicts:
            self.refresh()

    def _asked(self) -> tuple[object, ...]:
        session = self.context.session
        return session, session.rubric_name, session.judge_model

    def _failed(self, message: str) -> None:
        self.context.check_file()  # the file moved or replaced is said once, elsewhere
        self.setText("" if message == self.context.lost else f"counts unavailable: {message}")

    def _show(self, counts: tuple[int, int, int]) -> None:
        total, judged, reviewed = counts
        self.setText(
            f"verdicts of {self.context.session.judge_model} · {total:,} pairs ·"
            f" {judged:,} judged · {reviewed:,} reviewed · {total - reviewed:,} left"
        )
