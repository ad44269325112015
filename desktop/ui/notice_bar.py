"""The line above a text view that says why its text is shown as it is (as plain text, one
part at a time) and moves between the parts of a long text; hidden while there is nothing
to say."""

from __future__ import annotations

from PySide6.QtWidgets import QHBoxLayout, QToolButton, QWidget

from desktop.ui.plain_text import PlainLabel
from desktop.ui.response_view import ResponseView


class NoticeBar(QWidget):
    def __init__(self, view: ResponseView) -> None:
        super().__init__()
        self.view = view
        self.label = PlainLabel()
        self.label.setWordWrap(True)
        self.earlier, self.later = QToolButton(), QToolButton()
        self.earlier.setText("◀ earlier")
        self.later.setText("later ▶")
        self.earlier.clicked.connect(view.previous_part)
        self.later.clicked.connect(view.next_part)
        bar = QHBoxLayout(self)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.label, 1)
        bar.addWidget(self.earlier)
        bar.addWidget(self.later)
        view.noticeChanged.connect(self._changed)
        self.hide()

    def _changed(self, notice: str) -> None:
        if not notice and self.isHidden():
            return  # nothing to say, as before
        self.label.setText(notice)
        start, end = self.view.part_range()
        whole = len(self.view.text())
        for button in (self.earlier, self.later):
            button.setVisible((start, end) != (0, whole))
        self.earlier.setEnabled(start > 0)
        self.later.setEnabled(end < whole)
        if notice and self.isHidden():  # its words wrap: they never make a pane wider
            from PySide6.QtWidgets import QSizePolicy  # (loaded once a text needs a note)

            self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setVisible(bool(notice))
