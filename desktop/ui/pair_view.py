"""The pair: instruction on top, Response A and B side by side at equal width, and the
human reference and source text below when the pair has them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QScrollBar,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.domain.pairs import Pair
from desktop.ui.plain_text import PlainLabel
from desktop.ui.response_view import ResponseView


def _words(text: str) -> str:
    return f"{len(text.split()):,} w"


class _Pane(QGroupBox):
    def __init__(self, title: str) -> None:
        super().__init__(title)
        self.title_text = title
        self.view = ResponseView()
        self.parts = QWidget()  # only for a response too long to show at once
        self.part_label = PlainLabel()
        earlier, later = QToolButton(), QToolButton()
        earlier.setText("◀ earlier")
        later.setText("later ▶")
        earlier.clicked.connect(self.view.previous_part)
        later.clicked.connect(self.view.next_part)
        bar = QHBoxLayout(self.parts)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.part_label, 1)
        bar.addWidget(earlier)
        bar.addWidget(later)
        self.view.partChanged.connect(self._part_changed)
        self.parts.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.parts)
        layout.addWidget(self.view)

    def _part_changed(self, text: str) -> None:
        self.part_label.setText(f"long response: showing {text}")
        self.parts.setVisible(bool(text))

    def show_text(self, text: str | None, *, count: bool = False) -> None:
        self.setVisible(text is not None)
        if text is not None:
            self.view.set_text(text)
            self.setTitle(f"{self.title_text}    {_words(text)}" if count else self.title_text)


class PairView(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.instruction = _Pane("Instruction")
        self.response_a = _Pane("Response A")
        self.response_b = _Pane("Response B")
        self.reference = _Pane("Human reference")
        self.source = _Pane("Source text")
        self.empty = PlainLabel("No pair selected. Import pairs with File ▸ Import (Ctrl+I).")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        sides = QSplitter()  # horizontal
        sides.addWidget(self.response_a)
        sides.addWidget(self.response_b)
        sides.setChildrenCollapsible(False)
        extra = QSplitter()
        extra.addWidget(self.reference)
        extra.addWidget(self.source)
        self.vertical = QSplitter(Qt.Orientation.Vertical)
        self.vertical.addWidget(self.instruction)
        self.vertical.addWidget(sides)
        self.vertical.addWidget(extra)
        self.vertical.setStretchFactor(0, 1)
        self.vertical.setStretchFactor(1, 4)
        self.vertical.setStretchFactor(2, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        layout.addWidget(self.vertical)
        self._linked = False
        self._pair: Pair | None = None
        a_bar = self.response_a.view.verticalScrollBar()
        b_bar = self.response_b.view.verticalScrollBar()
        a_bar.valueChanged.connect(lambda v: self._follow(b_bar, a_bar, v))
        b_bar.valueChanged.connect(lambda v: self._follow(a_bar, b_bar, v))
        self.show_pair(None)

    def _follow(self, other: QScrollBar, this: QScrollBar, value: int) -> None:
        if self._linked and this.maximum() > 0:
            other.setValue(round(value / this.maximum() * other.maximum()))

    def set_linked(self, linked: bool) -> None:
        self._linked = linked

    def set_raw(self, raw: bool) -> None:
        for pane in self.panes():
            pane.view.set_raw(raw)

    def panes(self) -> tuple[_Pane, ...]:
        return (self.instruction, self.response_a, self.response_b, self.reference, self.source)

    @property
    def pair(self) -> Pair | None:
        return self._pair

    def show_pair(self, pair: Pair | None) -> None:
        self._pair = pair
        self.empty.setVisible(pair is None)
        self.vertical.setVisible(pair is not None)
        if pair is None:
            return
        self.instruction.show_text(pair.instruction)
        self.response_a.show_text(pair.response_a, count=True)
        self.response_b.show_text(pair.response_b, count=True)
        self.reference.show_text(pair.reference)
        self.source.show_text(pair.source)
        extra = self.vertical.widget(2)
        extra.setVisible(pair.reference is not None or pair.source is not None)
