"""The list's search text marked wherever it shows in the pair: in the instruction, the
responses, the reference and the source, rendered or raw, as the search matched it
(letters A to Z in either case, every other character as written, a control character
as the view shows it).

Marks are written into each view's document as formats (desktop/ui/text_positions.py),
never into its text; a view that shows a text anew (another pair, raw text, another part,
laid out in its own time) is marked again when its new document arrives (``textShown``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable

from PySide6.QtGui import QColor, QTextCharFormat

from desktop.ui.response_view import ResponseView
from desktop.ui.shown_text import shown_char
from desktop.ui.text_positions import document_spans

_MARK = QTextCharFormat()
_MARK.setBackground(QColor("#ffe066"))  # a highlighter's yellow, readable in light and dark
_MARK.setForeground(QColor("black"))  # themes
_MOST = 400  # marks per view: a one-letter search in a long answer stays responsive (five
# views of 400 marks are written in 80 ms, over turns of the event loop)


def pattern(text: str) -> re.Pattern[str] | None:
    """The search's rule as a regular expression (ASCII letters match in either case,
    nothing else is folded; a control character as itself or as a view shows it, NUL as
    ␀ raw and � rendered); None for no search."""
    if not text:
        return None
    return re.compile("".join(_part(c) for c in text))


def _part(c: str) -> str:
    if c.isascii() and c.isalpha():
        return f"[{c.lower()}{c.upper()}]"
    # As raw text shows it (shown_text), and for a NUL as markdown does: CommonMark
    # replaces it with U+FFFD.
    shown = {c, shown_char(c), *(("\ufffd",) if c == "\x00" else ())}
    return re.escape(c) if len(shown) == 1 else "[" + "".join(map(re.escape, sorted(shown))) + "]"


class SearchMarks:
    def __init__(self, views: Iterable[ResponseView]) -> None:
        self.views: list[ResponseView] = []
        self._pattern: re.Pattern[str] | None = None
        for view in views:
            self.add(view)

    def add(self, view: ResponseView) -> None:
        """Mark ``view`` too (a message of a conversation's transcript), from now on."""
        self.views.append(view)
        # A view lays out each text in its own time (the layout queue) and shows it in a new
        # document: marked once it is there.
        view.textShown.connect(lambda v=view: self._mark(v))
        view.destroyed.connect(lambda _=None, v=view: self._forget(v))
        if self._pattern is not None:
            self._mark(view)

    def _forget(self, view: ResponseView) -> None:
        if view in self.views:
            self.views.remove(view)

    def set_text(self, text: str) -> None:
        self._pattern = pattern(text)
        for view in self.views:
            self._mark(view)

    def count(self, view: ResponseView) -> int:
        return len(view.marks("search"))

    def _mark(self, view: ResponseView) -> None:
        document = view.document()
        spans: list[tuple[int, int]] = []
        if self._pattern is not None:
            shown = document.toRawText()  # one character per position, frames and all
            found = itertools.islice(self._pattern.finditer(shown), _MOST)
            spans = document_spans(shown, (m.span() for m in found))
        view.set_marks("search", document, spans, _MARK)
