"""Labels, tooltips and message boxes that show text as the characters it is.

Qt guesses: a label, tooltip or message box whose text looks like HTML is drawn as HTML, so
a model name, a reviewer's name or a server's error message holding ``<b>`` would be drawn
bold, and one holding ``<img src=...>`` would make Qt open that file (a FIFO blocks the
window for good). Every label and message box of the window is made here, plain, so none
depends on what its text looks like; the help's table is the one rich text, our own.

Their text is shown as characters in a second way too: a control character or a bidi
control in it (a CR LF that starts a forged line, a U+202E that turns "gnp.exe" around) is
written as its escape (``domain.shown_text``). A label is one line unless made with
``lines=True`` for a text laid out in lines of our own (whose outside parts are escaped
where they are put in).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from desktop.domain.shown_text import shown


class PlainLabel(QLabel):
    """A label that never reads its text as HTML, and shows control characters as escapes:
    one line, or with ``lines`` the lines of a text laid out by us."""

    def __init__(
        self, text: str = "", parent: QWidget | None = None, *, lines: bool = False
    ) -> None:
        super().__init__(parent)
        self.lines = lines
        self.setTextFormat(Qt.TextFormat.PlainText)
        if text:
            self.setText(text)

    def setText(self, text: str) -> None:
        super().setText(shown(text, lines=self.lines))


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally (Qt has no plain-text switch for tooltips:
    the text is given as rich text with every character escaped)."""
    escaped = html.escape(shown(text, lines=True), quote=False)
    return "<qt>" + escaped.replace("\n", "<br>") + "</qt>"


def message_box(
    parent: QWidget | None, title: str, text: str, *, rich: bool = False
) -> QMessageBox:
    """A message box for ``text``: plain unless ``rich`` (our own markup only); its lines
    are ours, outside text in them is escaped where it was put in."""
    box = QMessageBox(parent)
    box.setWindowTitle(shown(title))
    box.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    box.setText(text if rich else shown(text, lines=True))
    return box
