"""The window's judge actions: judge this pair or all, progress in the status bar, cancel.
The job runs off the GUI thread; only its progress snapshots come back here."""

from __future__ import annotations

from typing import Any


class JudgeActions:
    """Mixed into MainWindow; uses its session (``ctl``), runner and status bar."""

    def judge_pair(self) -> None:
        if self.ctl.current is not None:
            self._start_job([self.ctl.current.id])

    def judge_all(self) -> None:
        self._start_job(None)

    def _start_job(self, pair_ids: list[int] | None) -> None:
        if self.job is not None:
            self.statusBar().showMessage("a judge job is already running", 3000)
            return
        swap = self.actions_by_name["toggle_swap"].isChecked()
        work = self.ctl.judge_work(pair_ids, swap=swap)
        self.progress.setRange(0, 0)
        self.progress.show()
        self.cancel_button.show()
        self.job = self.runner.start(
            work, on_done=self._job_done, on_error=self._job_failed, on_progress=self._job_progress
        )

    def _job_progress(self, state: Any) -> None:
        self.progress.setRange(0, max(state.total, 1))
        self.progress.setValue(state.done)
        if self.ctl.current and state.last_pair == self.ctl.current.id:
            self.refresh_verdicts()
        elif state.last_pair is not None:
            self.model.replace_row(self.ctl.list_row(state.last_pair))
        if state.done % 20 == 0:
            self.refresh_counts()

    def _job_finished(self) -> None:
        self.job = None
        self.verdicts_changed()
        self.progress.hide()
        self.cancel_button.hide()
        self.refresh_verdicts()
        self.refresh_counts()

    def _job_done(self, summary: Any) -> None:
        self._job_finished()
        p = summary.progress
        text = (
            f"judged {p.ok} ok, {p.parse_failures} parse failures, {p.errors} errors"
            f" in {summary.elapsed_s:.1f} s"
        )
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
