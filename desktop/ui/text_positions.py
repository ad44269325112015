"""Marks over a view's text (the differences, the search), placed where Python found them
and written into the document shown as character formats.

Positions: Python counts a character once, a Qt document's positions count UTF-16 units
(an emoji takes two), so the spans go through ``shown_text.utf16_positions``, the one
conversion.

Why in the document, not as the view's extra selections: Qt draws each extra selection
by going over every line of the paragraph it falls in again, so 2,000 marks in a long
paragraph (a one-letter search, two answers that differ in every other word) took 0.6 s
a paint, on every scroll. A format in the document is drawn with the text, once: 2,000
cost 16 ms to write and nothing more to paint. What the marks covered is given back its
own format when they change or go (a copy of the view never saw them: it reads the text),
so the document is as it was filled once no mark is on it.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable

from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument

from desktop.ui.shown_text import utf16_positions

MARK_COST = 25  # writing or taking away a mark costs about as much as laying out this many
# characters (8 µs each), for the layout queue
ORDER = ("diff", "search")  # kinds written later show over earlier ones where they meet


def document_spans(text: str, spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` of ``text`` (the document's own, ``toRawText``) as document positions."""
    ends = [p for span in spans for p in span]
    places = utf16_positions(text, ends)
    return list(zip(places[::2], places[1::2], strict=True))


class DocumentMarks:
    """The marks of each kind on one document, and the formats they covered."""

    def __init__(self, document: QTextDocument, uniform: bool) -> None:
        self.document = document
        self.uniform = uniform  # one format throughout (plain text): nothing to remember
        self.kinds: dict[str, tuple[list[tuple[int, int]], QTextCharFormat]] = {}
        self._written: list[tuple[int, int]] = []
        self._formats: tuple[list[int], list[int], list[QTextCharFormat]] | None = None

    def spans(self, kind: str) -> list[tuple[int, int]]:
        return self.kinds.get(kind, ([], QTextCharFormat()))[0]

    def cost(self) -> int:
        return MARK_COST * (len(self._written) + sum(len(s) for s, _ in self.kinds.values()))

    def write(self) -> None:
        """Take the marks written before away and write every kind's now."""
        cursor = QTextCursor(self.document)
        cursor.beginEditBlock()
        if self._written:
            self._take_away(cursor)
        written: list[tuple[int, int]] = []
        ranked = sorted(self.kinds, key=lambda k: ORDER.index(k) if k in ORDER else len(ORDER))
        for kind in ranked:
            spans, fmt = self.kinds[kind]
            if spans and self._formats is None and not self.uniform:
                self._formats = _formats(self.document)  # as filled, before any mark
            for start, end in spans:
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                cursor.mergeCharFormat(fmt)
                written.append((start, end))
        cursor.endEditBlock()
        self._written = written

    def _take_away(self, cursor: QTextCursor) -> None:
        if self.uniform or self._formats is None:
            plain = QTextCharFormat()
            for start, end in self._written:
                cursor.setPosition(start)
                cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
                cursor.setCharFormat(plain)
            return
        starts, ends, formats = self._formats
        for start, end in self._written:
            k = bisect_right(starts, start) - 1
            while k < len(starts) and starts[k] < end:
                cursor.setPosition(max(start, starts[k]))
                cursor.setPosition(min(end, ends[k]), QTextCursor.MoveMode.KeepAnchor)
                cursor.setCharFormat(formats[k])
                k += 1


def _formats(document: QTextDocument) -> tuple[list[int], list[int], list[QTextCharFormat]]:
    """Where each run of one format starts and ends, and its format."""
    starts: list[int] = []
    ends: list[int] = []
    formats: list[QTextCharFormat] = []
    block = document.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            starts.append(fragment.position())
            ends.append(fragment.position() + fragment.length())
            formats.append(fragment.charFormat())
            it += 1
        block = block.next()
    return starts, ends, formats


def marked_texts(document: QTextDocument, spans: Iterable[tuple[int, int]]) -> list[str]:
    """The text under each span, as the document shows it."""
    texts = []
    for start, end in spans:
        cursor = QTextCursor(document)
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
        texts.append(cursor.selectedText())
    return texts
