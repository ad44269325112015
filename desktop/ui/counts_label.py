"""The status bar's figures for the rubric and judge shown: pairs, judged, reviewed, left."""

from __future__ import annotations

from desktop.ui.context import WindowContext
from desktop.ui.plain_text import PlainLabel
from desktop.ui.workers import Refresher


class CountsLabel(PlainLabel):
    """Counted off the GUI thread (tens of milliseconds on 100,000 pairs), one count at a
    time; a request made while one runs is served when it ends, so the figures shown are
    never older than the last edit."""

    def __init__(self, context: WindowContext) -> None:
        super().__init__()
        self.context = context
        self._counts = Refresher(
            context.runner,
            lambda: context.session.counts_work(),
            self._show,
            lambda message: self.setText(f"counts unavailable: {message}"),
            key=self._asked,
        )

    def refresh(self) -> None:
        self._counts.request()

    def _asked(self) -> tuple[object, ...]:
        session = self.context.session
        return session, session.rubric_name, session.judge_model

    def _show(self, counts: tuple[int, int, int]) -> None:
        total, judged, reviewed = counts
        self.setText(
            f"{total:,} pairs · {judged:,} judged · {reviewed:,} reviewed ·"
            f" {total - reviewed:,} left"
        )
