"""Judging from the window: this pair or all, progress and Cancel in the status bar, both
orders on request. The job runs off the GUI thread; only its progress snapshots come back
here."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QProgressBar, QPushButton, QStatusBar

from desktop.services.gc_freeze import load_for_good
from desktop.ui.choices import Choices
from desktop.ui.context import WindowContext
from desktop.ui.counts_label import CountsLabel
from desktop.ui.pair_browser import PairBrowser
from desktop.ui.pair_display import PairDisplay
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.workers import Task

if TYPE_CHECKING:
    from desktop.services.judging import JobProgress, JobSummary

JUDGE_ENGINE = ("desktop.services.connection", "desktop.services.judging")  # openai and all


class JudgeActions(QObject):
    finished = Signal()  # a job ended: what shows verdicts follows

    def __init__(
        self,
        context: WindowContext,
        display: PairDisplay,
        pairs: PairBrowser,
        counts: CountsLabel,
        choices: Choices,
        status_bar: QStatusBar,
    ) -> None:
        super().__init__(context.window)
        self.context = context
        self.display = display
        self.pairs = pairs
        self.counts = counts
        self.choices = choices
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setFormat("judging %v/%m")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        status_bar.addPermanentWidget(self.progress)
        status_bar.addPermanentWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()
        self.job: Task | None = None
        self._state: JobProgress | None = None
        self._changed: set[int] = set()
        self._counts_at = 0.0
        self._flush_timer = QTimer(self, singleShot=True, interval=100)
        self._flush_timer.timeout.connect(self._flush)

    def bind(self, shortcuts: Shortcuts) -> None:
        shortcuts.bind("judge_pair", self.judge_pair)
        shortcuts.bind("judge_all", self.judge_all)
        shortcuts.bind("cancel_job", self.cancel)
        self.swap = shortcuts.bind_toggle("toggle_swap", self._swap_toggled)

    @property
    def running(self) -> bool:
        return self.job is not None

    def warm_up(self) -> None:
        """Load the judge engine (openai and its compiled parts) in the background soon
        after the window shows. Loading a compiled module holds Python's lock for tens of
        milliseconds; done here, that happens while the reviewer reads the first pair,
        not as a stall at the start of their first judge job. All that is loaded then, and
        the window itself, is frozen out of the collector's walks (services/gc_freeze.py)."""
        self.context.runner.start(lambda progress, cancel: load_for_good(*JUDGE_ENGINE))

    def judge_pair(self) -> None:
        current = self.context.session.current
        if current is not None:
            self.judge([current.id])

    def judge_all(self) -> None:
        self.judge(None)

    def judge(self, pair_ids: list[int] | None) -> None:
        """Judge ``pair_ids`` (None: every pair not yet judged) with the profile chosen."""
        if self.job is not None:
            self.context.say("a judge job is already running", 3000)
            return
        session = self.context.session
        self.choices.show_judge(session.profile.model)  # what is asked for shows as it arrives
        work = session.judge_work(pair_ids, swap=self.swap.isChecked())
        self._state = None
        self._changed = set()
        self._counts_at = time.monotonic()
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        self.job = self.context.runner.start(
            work, on_done=self._done, on_error=self._failed, on_progress=self._progressed
        )

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel.set()

    def _swap_toggled(self, swap: bool) -> None:
        self.context.say(f"judge both orders: {'on' if swap else 'off'}", 2000)

    def _progressed(self, state: JobProgress) -> None:
        """Results arrive hundreds a second: note them, and repaint at most ten times a
        second, so the window stays responsive while a big job runs."""
        self._state = state
        if state.last_pair is not None:
            self._changed.add(state.last_pair)
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _flush(self) -> None:
        state, changed = self._state, self._changed
        self._changed = set()
        if state is None:
            return
        self.progress.setRange(0, max(state.total, 1))
        self.progress.setValue(state.done)
        session = self.context.session
        current = session.current.id if session.current else None
        if current in changed:
            self.display.show_verdicts()
        others = self.pairs.loaded({p for p in changed if p != current})
        for row in session.list_rows_for(others):  # rows not loaded cost nothing
            self.pairs.update_row(row)
        if time.monotonic() - self._counts_at > 1.0:
            self._counts_at = time.monotonic()
            self.counts.refresh()

    def _ended(self) -> None:
        self.job = None
        self._flush_timer.stop()
        self._flush()
        self.progress.hide()
        self.cancel_button.hide()
        self.choices.refresh_judges()
        self.finished.emit()

    def _done(self, summary: JobSummary) -> None:
        self._ended()
        p = summary.progress
        text = (
            f"judged {p.ok} ok, {p.parse_failures} parse failures, {p.errors} errors"
            f" in {summary.elapsed_s:.1f} s"
        )
        for report in summary.restarts:  # the whole report would not fit the status bar
            text += f"; {report.short} and was started again"
        if summary.stopped:
            self.context.error(f"judging stopped: {summary.stopped}")
        elif summary.cancelled:
            text = "cancelled; " + text
        self.context.say(text, 8000)

    def _failed(self, message: str) -> None:
        self._ended()
        self.context.error(message)
