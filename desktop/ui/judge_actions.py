"""The window's judge actions: judge this pair or all, progress in the status bar, cancel.
The job runs off the GUI thread; only its progress snapshots come back here."""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import QTimer


class JudgeActions:
    """Mixed into MainWindow; uses its session (``ctl``), runner and status bar."""

    def _build_judge_actions(self) -> None:
        self.job: Any = None
        self._job_state: Any = None
        self._job_changed: set[int] = set()
        self._counts_at = 0.0
        self._job_timer = QTimer(self, singleShot=True, interval=100)
        self._job_timer.timeout.connect(self._job_flush)

    def warm_judge_engine(self) -> None:
        """Load the judge engine (openai and its compiled parts) in the background soon
        after the window shows. Loading a compiled module holds Python's lock for tens of
        milliseconds; done here, that happens while the reviewer reads the first pair,
        not as a stall at the start of their first judge job. Then all that is loaded,
        and the window itself, is frozen out of the garbage collector's full walks
        (desktop/services/heap.py)."""

        def load(progress: Any, cancel: Any) -> None:
            from desktop.services.heap import loaded_for_good

            with loaded_for_good():
                import desktop.services.connection
                import desktop.services.judging  # noqa: F401

        self.runner.start(load)

    def judge_pair(self) -> None:
        if self.ctl.current is not None:
            self._start_job([self.ctl.current.id])

    def judge_all(self) -> None:
        self._start_job(None)

    def _start_job(self, pair_ids: list[int] | None) -> None:
        if self.job is not None:
            self.statusBar().showMessage("a judge job is already running", 3000)
            return
        self.show_judge(self.ctl.profile.model)  # what is asked for shows as it arrives
        swap = self.actions_by_name["toggle_swap"].isChecked()
        work = self.ctl.judge_work(pair_ids, swap=swap)
        self._job_state = None
        self._job_changed = set()
        self._counts_at = time.monotonic()
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        self.job = self.runner.start(
            work, on_done=self._job_done, on_error=self._job_failed, on_progress=self._job_progress
        )

    def _job_progress(self, state: Any) -> None:
        """Results arrive hundreds a second: note them, and repaint at most ten times a
        second, so the window stays responsive while a big job runs."""
        self._job_state = state
        if state.last_pair is not None:
            self._job_changed.add(state.last_pair)
        if not self._job_timer.isActive():
            self._job_timer.start()

    def _job_flush(self) -> None:
        state, changed = self._job_state, self._job_changed
        self._job_changed = set()
        if state is None:
            return
        self.progress.setRange(0, max(state.total, 1))
        self.progress.setValue(state.done)
        current = self.ctl.current.id if self.ctl.current else None
        if current in changed:
            self.refresh_verdicts()
        shown = [p for p in changed if p != current and self.model.index_of(p) is not None]
        for row in self.ctl.list_rows_for(shown):  # rows not loaded cost nothing
            self.model.replace_row(row)
        if time.monotonic() - self._counts_at > 1.0:
            self._counts_at = time.monotonic()
            self.refresh_counts()

    def _job_finished(self) -> None:
        self.job = None
        self._job_timer.stop()
        self._job_flush()
        self.verdicts_changed()
        self.progress.hide()
        self.cancel_button.hide()
        self.refresh_verdicts()
        self.refresh_counts()
        self.refresh_judges()

    def _job_done(self, summary: Any) -> None:
        self._job_finished()
        p = summary.progress
        text = (
            f"judged {p.ok} ok, {p.parse_failures} parse failures, {p.errors} errors"
            f" in {summary.elapsed_s:.1f} s"
        )
        for report in summary.restarts:  # the whole report would not fit the status bar
            text += f"; {report.short} and was started again"
        if summary.stopped:
            self.error(f"judging stopped: {summary.stopped}")
        elif summary.cancelled:
            text = "cancelled; " + text
        self.statusBar().showMessage(text, 8000)

    def _job_failed(self, message: str) -> None:
        self._job_finished()
        self.error(message)

    def cancel_job(self) -> None:
        if self.job is not None:
            self.job.cancel.set()

    def toggle_swap(self) -> None:
        state = "on" if self.actions_by_name["toggle_swap"].isChecked() else "off"
        self.statusBar().showMessage(f"judge both orders: {state}", 2000)
