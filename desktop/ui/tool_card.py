"""One side's step of a trajectory, unfolded: the assistant's text (shown as a response is:
markdown without raw HTML, raw with R) and each tool call as a card, its name, its
arguments pretty-printed and the result under it, both as the literal text they are
(plain text in the fixed font, control characters shown as symbols). A long result shows
its first few lines and says how much more it has ("… 12,403 characters more"); a click
shows all of it, a part at a time as any long text is (desktop/ui/response_view.py).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QToolButton, QVBoxLayout, QWidget

from desktop.domain.trajectory_steps import Card, Move, clipped
from desktop.ui.layout_cost import PART, PART_COST, layout_cost, markdown_size
from desktop.ui.notice_bar import NoticeBar
from desktop.ui.plain_text import PlainLabel
from desktop.ui.response_view import ResponseView
from desktop.ui.transcript_message import FittedView
from desktop.ui.transcript_turn import MESSAGE_COST

_CARD = (
    "QFrame#card { border: 1px solid palette(mid); border-radius: 4px; }"
    ' QFrame#card[error="true"] { border: 1px solid #c0392b; }'
)
_CAPTION = "color: palette(placeholder-text);"


def text_cost(text: str, raw: bool) -> int:
    """What making a view for ``text`` and laying out what it shows first costs."""
    if len(text) > PART:  # shown a part at a time: a part costs at most this
        return MESSAGE_COST + PART_COST
    size = None if raw else markdown_size(text)
    return MESSAGE_COST + (size.cost if size and not size.too_big() else layout_cost(text))


def move_cost(move: Move, raw: bool) -> int:
    """What ``MoveView`` costs to make for ``move``."""
    cost = text_cost(move.text, raw) if move.text.strip() else 0
    for card in move.cards:
        shown, _ = clipped(card.result.text if card.result is not None else "")
        cost += text_cost(card.arguments_text(), True) + text_cost(shown, True)
    return cost


def _caption(text: str) -> PlainLabel:
    label = PlainLabel(text)
    label.setStyleSheet(_CAPTION)
    return label


class ToolCard(QFrame):
    """A tool call: its name (and id), its arguments, and the result under it."""

    def __init__(self, card: Card) -> None:
        super().__init__()
        self.card = card
        self.setObjectName("card")
        self.setProperty("error", card.error)
        self.setStyleSheet(_CARD)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(2)
        call = card.call
        title = f"tool call: {card.name}" if call is not None else f"result of {card.name}"
        if call is not None and call.id:
            title += f"  ·  id {call.id}"
        self.title = PlainLabel(title)
        self.title.setStyleSheet("font-weight: bold;")
        layout.addWidget(self.title)
        self.arguments: FittedView | None = None
        if call is not None:
            self.arguments = FittedView()
            self.arguments.set_text(card.arguments_text(), raw=True)
            layout.addWidget(self.arguments)
        result = card.result
        if result is None:
            said = "no result came"
        else:
            said = "result: an error" if result.error else "result"
            said += "" if result.text else " (empty)"
        self.result_caption = _caption(said)
        layout.addWidget(self.result_caption)
        self.result: FittedView | None = None
        self.more: QToolButton | None = None
        if result is None or not result.text:
            return
        shown, left = clipped(result.text)
        self.result = FittedView()
        self.notice = NoticeBar(self.result)  # a whole result too long to show at once
        layout.addWidget(self.notice)
        self.result.set_text(shown, raw=True)
        layout.addWidget(self.result)
        if left:
            self.more = more = QToolButton()
            more.setAutoRaise(True)
            more.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay on the pairs
            more.setText(f"… {left:,} characters more (click to show all)")
            more.clicked.connect(self.show_all)
            layout.addWidget(more)

    def show_all(self) -> None:
        """The whole result, not its first lines."""
        if self.result is not None and self.card.result is not None:
            self.result.set_text(self.card.result.text, raw=True)
        if self.more is not None:
            self.more.hide()

    def views(self) -> list[ResponseView]:
        return [v for v in (self.arguments, self.result) if v is not None]


class MoveView(QWidget):
    """One side's step unfolded: its text, then its cards."""

    def __init__(self, move: Move, raw: bool) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.setSpacing(3)
        self.text: FittedView | None = None
        if move.role != "assistant":
            layout.addWidget(_caption(move.role if move.role != "tool" else "tool results"))
        if move.text.strip():
            self.text = FittedView()
            self.notice = NoticeBar(self.text)
            layout.addWidget(self.notice)
            self.text.set_text(move.text, raw=raw)
            layout.addWidget(self.text)
        self.cards = [ToolCard(card) for card in move.cards]
        for card in self.cards:
            layout.addWidget(card)

    def views(self) -> list[ResponseView]:
        shown: list[ResponseView] = [self.text] if self.text is not None else []
        return shown + [view for card in self.cards for view in card.views()]
