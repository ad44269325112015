"""A response shown safely: GitHub markdown with raw HTML shown as text, nothing loaded.

Qt's default markdown drops everything after a ``<script>`` tag; ``MarkdownNoHTML`` shows
HTML as the text it is. ``loadResource`` returns nothing, so no image, stylesheet or file
is ever fetched, and a link opens only when the user clicks it, and only if it is http(s).
"""

from __future__ import annotations

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QDesktopServices, QFont, QTextDocument, QTextOption
from PySide6.QtWidgets import QTextBrowser

_FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value
    | QTextDocument.MarkdownFeature.MarkdownNoHTML.value
)
# Past this size markdown layout gets slow; such text is shown raw, without wrapping.
MARKDOWN_LIMIT = 200_000


class ResponseView(QTextBrowser):
    """Read-only text of one response, markdown or raw."""

    linkRefused = Signal(str)

    def __init__(self, parent: object | None = None) -> None:
        super().__init__(parent)  # type: ignore[arg-type]
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._open_link)
        self._text = ""
        self._raw = False

    def loadResource(self, kind: int, url: QUrl | str) -> object:
        return None  # never load an image, stylesheet or file named in a response

    def set_text(self, text: str, *, raw: bool | None = None) -> None:
        self._text = text
        if raw is not None:
            self._raw = raw
        self._render()

    def set_raw(self, raw: bool) -> None:
        if raw != self._raw:
            self._raw = raw
            self._render()

    def text(self) -> str:
        return self._text

    def _render(self) -> None:
        text = self._text
        too_big = len(text) > MARKDOWN_LIMIT
        mono = self._raw or too_big
        self.setLineWrapMode(
            QTextBrowser.LineWrapMode.NoWrap
            if too_big and "\n" not in text[:2000]
            else QTextBrowser.LineWrapMode.WidgetWidth
        )
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        if mono:
            self.setPlainText(text)
            font = QFont("monospace")
            font.setStyleHint(QFont.StyleHint.Monospace)
            self.document().setDefaultFont(font)
        else:
            self.document().setDefaultFont(self.font())
            self.document().setMarkdown(text, _FEATURES)

    def _open_link(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https"):
            QDesktopServices.openUrl(url)
        else:
            self.linkRefused.emit(url.toString())
