"""Labels, tooltips and message boxes that show text as the characters it is.

Qt guesses: a label, tooltip or message box whose text looks like HTML is drawn as HTML, so
a model name, a reviewer's name or a server's error message holding ``<b>`` would be drawn
bold, and one holding ``<img src=...>`` would make Qt open that file (a FIFO blocks the
window for good). Every label and message box of the window is made here, plain, so none
depends on what its text looks like; the help's table is the one rich text, our own.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget


class PlainLabel(QLabel):
    """A label that never reads its text as HTML."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        if text:
            self.setText(text)


def plain_tooltip(text: str) -> str:
    """A tooltip that shows ``text`` literally (Qt has no plain-text switch for tooltips:
    the text is given as rich text with every character escaped)."""
    return "<qt>" + html.escape(text, quote=False).replace("\n", "<br>") + "</qt>"


def message_box(
    parent: QWidget | None, title: str, text: str, *, rich: bool = False
) -> QMessageBox:
    """A message box for ``text``: plain unless ``rich`` (our own markup only)."""
    box = QMessageBox(parent)
    box.setWindowTitle(title)
    box.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    box.setText(text)
    return box
