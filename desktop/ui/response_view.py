"""A response shown safely: GitHub markdown with raw HTML shown as text, nothing loaded.

Qt's default markdown drops everything after a ``<script>`` tag; ``MarkdownNoHTML`` shows
HTML as the text it is. No image, stylesheet or file named in a response is ever opened:
each markdown text is read into a new document that holds no image (see
desktop/ui/markdown_document.py, which also keeps single line breaks) before the view
shows it. A link opens only when the user clicks it, and only if it is http(s).

Shown without holding the window, whatever the text: a text is laid out as markdown only
while that is quick (``markdown_size``), otherwise as plain text, one part at a time, as
much as is quick to lay out (desktop/ui/layout_cost.py; the view says so in
``noticeChanged``); long runs get breaks that a copy leaves out (desktop/ui/shown_text.py).
Layout goes through the layout queue (desktop/ui/layout_queue.py), so five long texts are
laid out over several turns of the event loop; a long text is laid out whole when it is
shown, and again (in the queue) when the view's width changes, so nothing is left for Qt
to lay out in one go later.

Every text gets a new document, so nothing shown before (a heading's font) carries over.
"""

from __future__ import annotations

import atexit
from bisect import bisect_left
from collections.abc import Callable
from itertools import pairwise
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import (
    QResizeEvent,
    QShowEvent,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import QTextBrowser, QTextEdit, QWidget

from desktop.ui.font_size import fixed_font
from desktop.ui.layout_cost import markdown_size, part
from desktop.ui.layout_queue import SMALL, layout_queue
from desktop.ui.markdown_document import fill_markdown
from desktop.ui.shown_text import Shown, plain
from desktop.ui.text_positions import DocumentMarks, marked_texts

if TYPE_CHECKING:  # copying and opening links load these when first used
    from PySide6.QtCore import QMimeData, QUrl

# Paragraph and line separators, and the marks where a table's cells begin and end, as
# the line breaks they show (as QTextDocument.toPlainText has them).
_LINES = str.maketrans(dict.fromkeys("\u2029\u2028\ufdd0\ufdd1", "\n"))


_COPIES: list[QMimeData] = []  # the last copy made here, which the clipboard may hold


@atexit.register
def _hand_over_the_copy() -> None:
    """The clipboard outlives Python: a copy made in Python still on it when the process
    ends is deleted after Python is gone, which crashed the process as it quit (exit code
    139). So before Python goes, the clipboard is given the same text in a copy Qt makes."""
    from PySide6.QtGui import QGuiApplication

    if _COPIES and QGuiApplication.instance() is not None:
        clipboard = QGuiApplication.clipboard()
        if clipboard.mimeData() is _COPIES[0]:
            clipboard.setText(clipboard.text())
    _COPIES.clear()


class _InertDocument(QTextDocument):
    """The document itself refuses to load: Qt asks the document, not the view, for an
    image's bytes, and its own fallback reads local files."""

    def loadResource(self, kind: int, url: QUrl | str) -> object:
        return None


class ResponseView(QTextBrowser):
    """Read-only text of one response, markdown or raw."""

    linkRefused = Signal(str)
    noticeChanged = Signal(str)  # why the text is shown as it is; "" when shown whole
    textShown = Signal()  # another document (text, part or form of it) is in the view

    def __init__(self, parent: QWidget | None = None, *, fixed_pitch: bool = True) -> None:
        super().__init__(parent)
        self.fixed_pitch = fixed_pitch  # plain text in the fixed font (raw text), or the view's
        self.setDocument(_InertDocument(self))
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._open_link)
        self._text = ""
        self._raw = False
        self._starts: list[int] = [0]  # where the parts up to the one shown start
        self._end: int | None = None  # where the one shown ends, once known
        self._cost = 0  # and what laying it out costs
        self._whole = False  # shown as markdown: all of it (the parts are raw text's)
        self._shown: Shown | None = None  # plain text: the way back to the text
        self._breaks: list[int] = []  # markdown: positions of breaks not in the text
        self._long = 0  # the cost of the text shown, when it is long
        self._unshown: Callable[[], object] | None = None  # a long text's layout, once shown
        self._marks: DocumentMarks | None = None  # on the document shown

    def set_marks(
        self, kind: str, document: QTextDocument, spans: list[tuple[int, int]], fmt: QTextCharFormat
    ) -> None:
        """Marks of one kind (the search's, the differences'), as document positions of
        ``document``: each kind replaces only its own, and the view shows every kind's,
        written into the document (desktop/ui/text_positions.py says why) through the
        layout queue. Marks made for a document no longer shown are dropped."""
        if document is not self.document():
            return
        marks = self._marks
        if marks is None or marks.document is not document:
            marks = self._marks = DocumentMarks(document, uniform=self._shown is not None)
        if not spans and not marks.spans(kind):
            return
        marks.kinds[kind] = (spans, fmt)
        cost = marks.cost() + self._long

        def work() -> None:
            if self.document() is document:
                marks.write()
                if self._long:  # laid out again now, within this turn's share
                    document.documentLayout().documentSize()

        layout_queue().submit((self, "marks"), self, cost, work)

    def marks(self, kind: str) -> list[tuple[int, int]]:
        """The marks of ``kind`` on the document shown now (positions in it)."""
        marks = self._marks
        return marks.spans(kind) if marks is not None and marks.document is self.document() else []

    def marked(self, kind: str | None = None) -> list[str]:
        """The text under each mark (of ``kind``, or of every kind), in order."""
        kinds = [kind] if kind else ["diff", "search"]
        spans = sorted(span for k in kinds for span in self.marks(k))
        return marked_texts(self.document(), spans)

    def loadResource(self, kind: int, url: QUrl | str) -> object:
        return None  # never load an image, stylesheet or file named in a response

    def set_text(self, text: str, *, raw: bool | None = None) -> None:
        self._text = text
        self._starts, self._end = [0], None
        if raw is not None:
            self._raw = raw
        self._render()

    def set_raw(self, raw: bool) -> None:
        if raw != self._raw:
            self._raw = raw
            self._render()

    def text(self) -> str:
        return self._text

    def part_range(self) -> tuple[int, int]:
        """Where in the text the part shown starts and ends (all of it, mostly)."""
        if self._whole:
            return 0, len(self._text)
        if self._end is None:
            self._end, self._cost = part(self._text, self._starts[-1])
        return self._starts[-1], self._end

    def next_part(self) -> None:
        end = self.part_range()[1]
        if end < len(self._text):
            self._starts.append(end)
            self._end = None
            self._render()

    def previous_part(self) -> None:
        if len(self._starts) > 1:
            self._starts.pop()
            self._end = None
            self._render()

    def pending(self) -> bool:
        """Whether the text set last is still waiting to be laid out."""
        return self._unshown is not None or layout_queue().waiting((self, "text"))

    def _render(self) -> None:
        text, raw = self._text, self._raw
        size = None if raw else markdown_size(text)
        why = size.too_big() if size is not None else ""
        if size is not None and not why:
            cost = size.cost
            # Shown whole; raw text, if asked for next, starts from its first part, at
            # that part's own cost (not a cost of the text shown before).
            self._starts, self._end, self._whole = [0], None, True

            def work() -> None:
                document = self._new_document()
                self._breaks = fill_markdown(document, text, self.font())
                self._shown = None
                self._install(document, cost)

        else:
            self._whole = False
            start, end = self.part_range()
            cost = self._cost

            def work() -> None:
                shown = plain(text, start, end)  # (breaks in long runs: in the queue's time)
                document = self._new_document()
                # raw text at the size chosen (Ctrl+plus); the reasoning in the view's font
                document.setDefaultFont(fixed_font() if self.fixed_pitch else self.font())
                QTextCursor(document).insertText(shown.text, QTextCharFormat())
                self._breaks, self._shown = [], shown
                self._install(document, cost)

        self.noticeChanged.emit(self._notice(why))
        self._unshown = None
        if cost > SMALL and not self.isVisible():  # its width is not known yet
            self._clear()
            self._unshown = lambda: self._queue(cost, work)
        elif not self._queue(cost, work):
            self._clear()  # never the text of the pair before, for a moment even

    def _queue(self, cost: int, work: Callable[[], None]) -> bool:
        return layout_queue().submit((self, "text"), self, cost, work)

    def _new_document(self) -> QTextDocument:
        document = _InertDocument(self)  # not shown, so not laid out, until filled
        document.setUndoRedoEnabled(False)  # shown read-only: nothing to undo
        # Filled at the width it is shown at: the view then lays it out once (a third less
        # time than a document with no width yet, for a long text).
        document.setTextWidth(self.viewport().width())
        return document

    def _clear(self) -> None:
        self._swap(self._new_document())
        self._shown, self._breaks = plain(""), []

    def _swap(self, document: QTextDocument) -> None:
        previous = self.document()
        self.setDocument(document)
        previous.deleteLater()
        self._marks = None  # marks on the document before go with it
        layout_queue().drop((self, "marks"))
        self.textShown.emit()  # each kind marks the new one (diff_marks.py, search_marks.py)

    def _install(self, document: QTextDocument, cost: int) -> None:
        """Show ``document``: a long one at a fixed width (the view's, kept by
        ``resizeEvent`` through the queue) and laid out whole, now, within this turn's
        share; a short one as Qt does it."""
        long = cost > SMALL  # laid out whole at once, at a width the view keeps
        if long or self._long:  # (a short text after a short one changes nothing here)
            bars, modes = Qt.ScrollBarPolicy, QTextEdit.LineWrapMode
            policy = bars.ScrollBarAlwaysOn if long else bars.ScrollBarAsNeeded
            wrap = modes.FixedPixelWidth if long else modes.WidgetWidth
            self._long = 0  # the changes below lay out nothing old, and queue nothing
            self._swap(_InertDocument(self))
            self.setVerticalScrollBarPolicy(policy)  # one that came and went would change
            self.setLineWrapMode(wrap)  # the width once more
            self.setLineWrapColumnOrWidth(self.viewport().width())
        self._swap(document)
        if long:
            self._long = cost
            document.documentLayout().documentSize()  # lays out all of it
        self.moveCursor(QTextCursor.MoveOperation.Start)  # a new text starts at its top
        self.verticalScrollBar().setValue(0)

    def _rewrap(self) -> None:
        if self._long and self.lineWrapColumnOrWidth() != self.viewport().width():
            self.setLineWrapColumnOrWidth(self.viewport().width())
            self.document().documentLayout().documentSize()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)  # at a fixed width, this lays out nothing
        if self._long and self.lineWrapColumnOrWidth() != self.viewport().width():
            layout_queue().submit((self, "width"), self, self._long, self._rewrap)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._unshown is not None:
            queue, self._unshown = self._unshown, None
            if not queue():
                self._clear()

    def _notice(self, why: str) -> str:
        notes = []
        if why:
            notes.append(f"plain text, {why}")
        start, end = self.part_range()
        if (start, end) != (0, len(self._text)):
            notes.append(f"showing characters {start + 1:,}–{end:,} of {len(self._text):,}")
        return "; ".join(notes)

    def createMimeDataFromSelection(self) -> QMimeData:
        """The selected characters as the text has them: no break it did not have, a
        symbol shown for a control character copied as that character."""
        from PySide6.QtCore import QMimeData

        cursor = self.textCursor()
        start, end = cursor.selectionStart(), cursor.selectionEnd()
        if self._shown is not None:
            copied = self._shown.copied(start, end)
        else:
            units = cursor.selectedText().encode("utf-16-le", "surrogatepass")  # as positions
            inside = self._breaks[bisect_left(self._breaks, start) : bisect_left(self._breaks, end)]
            kept = b"".join(
                units[2 * (after + 1 - start) : 2 * (before - start)]
                for after, before in pairwise([start - 1, *inside, end])
            )
            copied = kept.decode("utf-16-le", "surrogatepass").translate(_LINES)
        data = QMimeData()
        data.setText(copied)
        _COPIES[:] = [data]  # see _hand_over_the_copy
        return data

    def _open_link(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https"):
            from PySide6.QtGui import QDesktopServices

            QDesktopServices.openUrl(url)
        else:
            self.linkRefused.emit(url.toString())
