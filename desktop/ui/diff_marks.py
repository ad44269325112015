"""D: the words that differ between Response A and B, marked in both views.

The marks go on the text each view shows (markdown as rendered, or raw text), so what is
compared is what the reviewer reads, and a part of a long text is compared with the
other side's part on screen. They are formats written over the text, never into it
(desktop/ui/text_positions.py), so the text and a copy of it stay as they were, and
turning D off gives the text its own formats back.

Comparing never holds the window: two texts whose comparison takes more than a few
milliseconds (``word_diff.QUICK``: two long answers of the same few words) are compared
off the GUI thread, one comparison at a time, and their marks written when it ends; a
result for texts no longer shown is dropped and the texts shown now compared instead.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextDocument

from desktop.domain.word_diff import Diff, quick_diff, word_diff
from desktop.ui.response_view import ResponseView
from desktop.ui.text_positions import document_spans
from desktop.ui.workers import Task, TaskRunner

_MARK = QTextCharFormat()
_MARK.setBackground(QColor(255, 205, 80))  # amber, with dark text: readable in a dark theme too
_MARK.setForeground(QColor(20, 20, 20))

_Shown = tuple[QTextDocument, QTextDocument]  # the two documents compared


class DiffMarks(QObject):
    summaryChanged = Signal(str)  # what D's status line says, once a late comparison ends

    def __init__(self, a: ResponseView, b: ResponseView, runner: TaskRunner | None = None) -> None:
        super().__init__(a)
        self.views = (a, b)
        self.enabled = False
        self.diff: Diff | None = None  # what is marked now
        self._runner = runner or TaskRunner(self)
        self._stale = False
        self._task: Task | None = None  # the comparison running off the GUI thread
        self._waiting = False  # the texts shown now are being compared
        self._told = False  # the status line said the comparison was under way
        for view in self.views:
            view.textShown.connect(lambda v=view: self._text_changed(v))

    def set_enabled(self, enabled: bool) -> None:
        self.enabled = enabled
        self.refresh()

    def pending(self) -> bool:
        """Whether marks for the texts shown now are still to come."""
        return self._stale or self._waiting

    def _text_changed(self, view: ResponseView) -> None:
        """A view shows another text: its marks went with its document, and both are
        marked again once this turn of the event loop is over (both views may change in
        it)."""
        self.diff = None
        if self.enabled and not self._stale:
            self._stale = True
            QTimer.singleShot(0, self._refresh_if_stale)

    def _refresh_if_stale(self) -> None:
        if self._stale:
            self.refresh()

    def refresh(self) -> None:
        """Mark the differences of the texts shown now (or take the marks away)."""
        self._stale = False
        if not self.enabled:
            self._waiting = False
            self.diff = None
            self._write(None)
            return
        shown = self._shown()
        texts = [document.toRawText() for document in shown]
        diff = quick_diff(texts[0], texts[1])
        if diff is not None:
            self._waiting = False
            self._show(shown, texts, diff)
            return
        self.diff = None
        self._waiting = True
        if self._task is None and not self._runner.closed:
            self._task = self._runner.start(
                lambda _progress, _cancel: word_diff(texts[0], texts[1]),
                on_done=lambda found: self._ended(shown, texts, found),
                on_error=lambda _message: self._ended(shown, texts, None),
            )

    def _shown(self) -> _Shown:
        a, b = self.views
        return a.document(), b.document()

    def _ended(self, shown: _Shown, texts: list[str], diff: Diff | None) -> None:
        """A comparison off the GUI thread ended: its marks written if the texts are
        still those shown, else the texts shown now compared."""
        self._task = None
        if not self._waiting or self._runner.closed:
            return
        now = self._shown()
        if diff is None or now[0] is not shown[0] or now[1] is not shown[1]:
            self.refresh()
            return
        self._waiting = False
        self._show(shown, texts, diff)

    def _show(self, shown: _Shown, texts: list[str], diff: Diff) -> None:
        self.diff = diff
        self._write((shown, texts, diff))
        if self._told:  # the status line said it was under way: it says what was found
            self._told = False
            self.summaryChanged.emit(self.summary())

    def _write(self, found: tuple[_Shown, list[str], Diff] | None) -> None:
        for k, view in enumerate(self.views):
            if found is None:
                view.set_marks("diff", view.document(), [], _MARK)
                continue
            shown, texts, diff = found
            spans = document_spans(texts[k], diff.changes("ab"[k]))
            view.set_marks("diff", shown[k], spans, _MARK)

    def summary(self) -> str:
        """What the status bar says D switched."""
        if not self.enabled:
            return "differences between A and B: not marked (D marks them)"
        if self._waiting or self.diff is None:
            self._told = True
            return "differences between A and B: comparing the two texts…"
        a, b = len(self.diff.changes("a")), len(self.diff.changes("b"))
        if not a and not b:
            return "differences between A and B: none, the two texts are the same word for word"
        line = f"differences between A and B marked: {a} in A, {b} in B (D hides them)"
        if self.diff.whole:
            line += "; parts too costly to compare word by word are marked whole"
        return line
