"""One turn of a conversation's transcript: a header that folds it (its number, its
request in a line, each side's words), and its messages, made when it is first unfolded,
through the layout queue with what they cost to make and lay out. A message both sides have
the same is shown once across both columns; one that differs, on each side, with the words
that differ marked (D) as the compared answers are.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QToolButton, QVBoxLayout, QWidget

from desktop.domain.shown_text import shown
from desktop.domain.transcript import Row, Turn
from desktop.ui.diff_marks import DiffMarks
from desktop.ui.layout_cost import PART, PART_COST, SHORT, layout_cost, markdown_size
from desktop.ui.layout_queue import layout_queue
from desktop.ui.response_view import ResponseView
from desktop.ui.transcript_message import MessageView
from desktop.ui.workers import TaskRunner


class TurnOwner(Protocol):
    """What a turn asks of the view that holds it (ui/transcript_view.py)."""

    runner: TaskRunner | None
    raw: bool  # R: raw text
    differences: bool  # D: the words that differ marked

    def made(self, box: TurnBox) -> None: ...


MESSAGE_COST = SHORT  # making a message's widgets (a view, its notice bar, two documents: about
# 3 ms, measured on 120 of them), as characters laid out
_ROLES = {"system": "system", "user": "user", "assistant": "answer"}
_PREVIEW = 90  # characters of a folded turn's request shown in its header


def _cost(text: str | None, raw: bool) -> int:
    """What making a message's view and laying out what it shows first costs."""
    if text is None:
        return 0
    if len(text) > PART:  # shown a part at a time: a part costs at most this
        return MESSAGE_COST + PART_COST
    size = None if raw else markdown_size(text)
    return MESSAGE_COST + (size.cost if size and not size.too_big() else layout_cost(text))


class TurnBox(QFrame):
    """One turn: a header that folds it, and its messages once first unfolded."""

    def __init__(self, turn: Turn, owner: TurnOwner) -> None:
        super().__init__()
        self.turn = turn
        self.owner = owner
        self.setObjectName("turn")
        self.header = QToolButton()
        self.header.setCheckable(True)
        self.header.setAutoRaise(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay on the pairs
        self.header.setArrowType(Qt.ArrowType.RightArrow)
        self.header.setText(_header(turn))
        self.header.setToolTip("Click, H (every turn) or [ and ] (one at a time) unfold it")
        self.header.toggled.connect(self.set_unfolded)
        self.body: QWidget | None = None
        self.far = False  # far out of view: its messages stood for by ``_room`` (not laid out)
        self._room: QWidget | None = None
        self.views: list[ResponseView] = []
        self.diffs: list[DiffMarks] = []
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(2, 0, 2, 4)
        self._layout.setSpacing(0)
        self._layout.addWidget(self.header)

    @property
    def unfolded(self) -> bool:
        return self.header.isChecked()

    def set_unfolded(self, unfolded: bool) -> None:
        if self.header.isChecked() != unfolded:
            self.header.setChecked(unfolded)  # (comes back here)
            return
        self.header.setArrowType(Qt.ArrowType.DownArrow if unfolded else Qt.ArrowType.RightArrow)
        if self.body is not None:
            self._show_body()
        elif unfolded:
            raw = self.owner.raw
            rows = self.turn.rows
            cost = sum(_cost(r.a, raw) + (0 if r.shared else _cost(r.b, raw)) for r in rows)
            layout_queue().submit((self, "turn"), self, cost, self._build)

    def built(self) -> bool:
        return self.body is not None

    def set_far(self, far: bool) -> bool:
        """Far out of the view's sight (``far``), its messages are hidden and room of their
        height stands for them, so a resize or another turn's change never lays them out
        (sixty unfolded turns took up to 110 ms a resize); near it, they are shown again.
        True when it changed."""
        if far == self.far or self.body is None:
            return False
        if far:
            if self._room is None:
                self._room = QWidget()
                self._layout.addWidget(self._room)
            self._room.setFixedHeight(self.body.height())
        self.far = far
        self._show_body()
        return True

    def _show_body(self) -> None:
        body, room, unfolded = self.body, self._room, self.unfolded
        if body is not None:
            body.setVisible(unfolded and not self.far)
        if room is not None:
            room.setVisible(unfolded and self.far)

    def _build(self) -> None:
        if not self.unfolded:
            return  # folded again before its turn came
        owner, raw = self.owner, self.owner.raw
        body = QWidget()
        grid = QGridLayout(body)
        grid.setContentsMargins(18, 0, 0, 0)
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(2)
        grid.setColumnStretch(0, 1)
        grid.setColumnStretch(1, 1)
        for row, line in enumerate(self.turn.rows):
            role = _ROLES.get(line.role, line.role)
            if line.shared:
                message = MessageView(_caption(line, role, "A and B"), line.a, raw)
                grid.addWidget(message, row, 0, 1, 2)
                self._keep(message)
                continue
            pair = [
                MessageView(_caption(line, role, side), text, raw)
                for side, text in (("A", line.a), ("B", line.b))
            ]
            for column, message in enumerate(pair):
                grid.addWidget(message, row, column)
                self._keep(message)
            a, b = (message.view for message in pair)
            if a is not None and b is not None:
                diff = DiffMarks(a, b, owner.runner)
                diff.set_enabled(owner.differences)
                self.diffs.append(diff)
        self.body = body
        self._layout.addWidget(body)
        body.setVisible(True)  # now, not once the event loop comes back
        owner.made(self)

    def set_raw(self, raw: bool) -> None:
        """R: its messages laid out again, raw or as markdown, through the layout queue with
        what that costs (each is short, and runs at once uncounted, but sixty turns of them
        would be laid out in one go)."""
        views = self.views
        if views:
            cost = sum(_cost(view.text(), raw) for view in views)
            layout_queue().submit((self, "raw"), self, cost, lambda: _set_raw(views, raw))

    def _keep(self, message: MessageView) -> None:
        if message.view is not None:
            self.views.append(message.view)

    def set_current(self, current: bool) -> None:
        self.setFrameShape(QFrame.Shape.Box if current else QFrame.Shape.NoFrame)
        self.setStyleSheet("#turn { border: 2px solid palette(highlight); }" if current else "")


def _set_raw(views: list[ResponseView], raw: bool) -> None:
    for view in views:
        view.set_raw(raw)


def _caption(row: Row, role: str, side: str) -> str:
    if row.role == "assistant":
        return "A and B answered" if side == "A and B" else side
    return f"{role} (A and B)" if side == "A and B" else f"{role} ({side})"


def _header(turn: Turn) -> str:
    preview = shown(turn.preview(_PREVIEW))
    if len(preview) > _PREVIEW:
        preview = preview[: _PREVIEW - 1] + "…"
    answers = [r for r in turn.rows if r.role == "assistant"]
    if not answers:
        words = ""
    elif answers[0].shared:
        words = f"  ·  A and B: {turn.words('a'):,} w"
    else:
        words = f"  ·  A {turn.words('a'):,} w, B {turn.words('b'):,} w"
    return f"Turn {turn.number}  ·  {preview}{words}"
