"""A response shown safely: GitHub markdown with raw HTML shown as text, nothing loaded.

Qt's default markdown drops everything after a ``<script>`` tag; ``MarkdownNoHTML`` shows
HTML as the text it is. No image, stylesheet or file named in a response is ever opened:
each markdown text is read into a new document that holds no image (see
desktop/ui/markdown_document.py, which also keeps single line breaks) before the view
shows it. A link opens only when the user clicks it, and only if it is http(s).

Qt lays text out in time that grows with the length of an unbroken run (a 5 MB line takes
minutes to wrap), so a very long response is shown one part at a time, with break
opportunities (zero-width spaces) inside long runs that a copy takes out again.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QFont, QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextBrowser, QWidget

from desktop.ui.markdown_document import fill_markdown

if TYPE_CHECKING:  # copying and opening links load these when first used
    from PySide6.QtCore import QMimeData, QUrl

MARKDOWN_LIMIT = 100_000  # past this, markdown layout is slow: shown raw
PART = 200_000  # characters shown at once of a response longer than that
_ZWSP = "\u200b"
_LONG_RUN = re.compile(r"(\S{120})(?=\S)")


class _InertDocument(QTextDocument):
    """The document itself refuses to load: Qt asks the document, not the view, for an
    image's bytes, and its own fallback reads local files."""

    def loadResource(self, kind: int, url: QUrl | str) -> object:
        return None


class ResponseView(QTextBrowser):
    """Read-only text of one response, markdown or raw."""

    linkRefused = Signal(str)
    partChanged = Signal(str)  # "" when the whole text is shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setDocument(_InertDocument(self))
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._open_link)
        self._text = ""
        self._raw = False
        self._part = 0

    def loadResource(self, kind: int, url: QUrl | str) -> object:
        return None  # never load an image, stylesheet or file named in a response

    def set_text(self, text: str, *, raw: bool | None = None) -> None:
        self._text = text
        self._part = 0
        if raw is not None:
            self._raw = raw
        self._render()

    def set_raw(self, raw: bool) -> None:
        if raw != self._raw:
            self._raw = raw
            self._render()

    def text(self) -> str:
        return self._text

    def parts(self) -> int:
        return max(1, -(-len(self._text) // PART))

    def show_part(self, part: int) -> None:
        part = max(0, min(part, self.parts() - 1))
        if part != self._part:
            self._part = part
            self._render()

    def next_part(self) -> None:
        self.show_part(self._part + 1)

    def previous_part(self) -> None:
        self.show_part(self._part - 1)

    def _render(self) -> None:
        text = self._text
        if self._raw or len(text) > MARKDOWN_LIMIT:
            start = self._part * PART
            shown = text[start : start + PART]
            self.setPlainText(_LONG_RUN.sub("\\1" + _ZWSP, shown) if len(text) > PART else shown)
            font = QFont("monospace")
            font.setStyleHint(QFont.StyleHint.Monospace)
            self.document().setDefaultFont(font)
        else:
            document = _InertDocument(self)  # not shown, so not laid out, until filled
            fill_markdown(document, text, self.font())
            previous = self.document()
            self.setDocument(document)
            previous.deleteLater()
        self.moveCursor(QTextCursor.MoveOperation.Start)  # a new text starts at its top
        self.verticalScrollBar().setValue(0)
        self.partChanged.emit(self._part_text())

    def _part_text(self) -> str:
        if len(self._text) <= PART:
            return ""
        start = self._part * PART
        end = min(len(self._text), start + PART)
        return f"characters {start + 1:,}–{end:,} of {len(self._text):,}"

    def createMimeDataFromSelection(self) -> QMimeData:
        from PySide6.QtCore import QMimeData

        data = QMimeData()
        selected = self.textCursor().selectedText().replace(_ZWSP, "")
        data.setText(selected.replace("\u2029", "\n").replace("\u2028", "\n"))
        return data

    def _open_link(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https"):
            from PySide6.QtGui import QDesktopServices

            QDesktopServices.openUrl(url)
        else:
            self.linkRefused.emit(url.toString())
