"""One message of a conversation's transcript: who wrote it, and its text shown as a
response's is (desktop/ui/response_view.py: markdown without raw HTML, nothing loaded, raw
text with R, a long text a part at a time, in the layout queue), the view as tall as its
text up to ``MAX_LINES`` lines, past which it scrolls."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QFrame, QSizePolicy, QVBoxLayout, QWidget

from desktop.ui.notice_bar import NoticeBar
from desktop.ui.plain_text import PlainLabel
from desktop.ui.response_view import ResponseView

MAX_LINES = 18  # a message taller than this scrolls in its own view


class FittedView(ResponseView):
    """A ResponseView whose height follows its text's, up to ``MAX_LINES`` lines."""

    fitted = Signal()  # its height changed

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        line = QFontMetrics(self.font()).lineSpacing()
        self._least, self._most = line + 8, MAX_LINES * line + 8
        self.setFixedHeight(self._least)
        self.textShown.connect(self._follow)

    def _follow(self) -> None:
        layout = self.document().documentLayout()
        layout.documentSizeChanged.connect(lambda size: self._fit(size.height()))

    def _fit(self, height: float) -> None:
        margins = self.contentsMargins()
        wanted = int(height) + 2 + margins.top() + margins.bottom()
        fit = max(self._least, min(self._most, wanted))
        if fit != self.height():
            self.setFixedHeight(fit)
            self.fitted.emit()


class MessageView(QWidget):
    """A caption (``user``, ``A``, ``A and B``, ...) above one message's text."""

    def __init__(self, caption: str, text: str | None, raw: bool) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(1)
        self.caption = PlainLabel(caption)
        self.caption.setObjectName("caption")
        self.caption.setStyleSheet("#caption { color: palette(placeholder-text); }")
        layout.addWidget(self.caption)
        self.view: FittedView | None = None
        if text is None:  # this side has no such message
            self.caption.setText(f"{caption}: none on this side")
            return
        self.view = FittedView()
        self.notice = NoticeBar(self.view)
        layout.addWidget(self.notice)
        layout.addWidget(self.view)
        self.view.set_text(text, raw=raw)
