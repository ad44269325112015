"""The turns of a conversation pair around its compared turn (the history above it, the
turns the data kept after it below), in two columns, A and B, turn by turn.

Each turn folds to its header (its number, its request in a line, each side's words):
folded, a turn costs one button, so a pair of twenty turns shows at once, and its
messages are made when it is first unfolded, through the layout queue with what they cost
to make and lay out, so unfolding twenty long turns never holds the window. A message both
sides have the same is shown once across both columns; one that differs, on each side,
with the words that differ marked (D) as the compared answers are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.domain.shown_text import shown
from desktop.domain.transcript import Row, Turn
from desktop.ui.diff_marks import DiffMarks
from desktop.ui.layout_cost import PART, PART_COST, SHORT, layout_cost, markdown_size
from desktop.ui.layout_queue import layout_queue
from desktop.ui.response_view import ResponseView
from desktop.ui.transcript_message import FittedView, MessageView
from desktop.ui.workers import TaskRunner

MESSAGE_COST = SHORT // 2  # making a message's widgets, as characters laid out
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

    def __init__(self, turn: Turn, owner: TranscriptView) -> None:
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
            self.body.setVisible(unfolded)
        elif unfolded:
            raw = self.owner.raw
            rows = self.turn.rows
            cost = sum(_cost(r.a, raw) + (0 if r.shared else _cost(r.b, raw)) for r in rows)
            layout_queue().submit((self, "turn"), self, cost, self._build)

    def built(self) -> bool:
        return self.body is not None

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

    def _keep(self, message: MessageView) -> None:
        if message.view is not None:
            self.views.append(message.view)

    def set_current(self, current: bool) -> None:
        self.setFrameShape(QFrame.Shape.Box if current else QFrame.Shape.NoFrame)
        self.setStyleSheet("#turn { border: 2px solid palette(highlight); }" if current else "")


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


class TranscriptView(QScrollArea):
    """The turns before (or after) the compared one, each folded or not."""

    def __init__(
        self,
        runner: TaskRunner | None,
        on_made: Callable[[ResponseView], None],
        on_built: Callable[[], None],
    ) -> None:
        super().__init__()
        self.runner = runner
        # A turn's messages made and laid out: the room it needs changed.
        self._settled = QTimer(self, singleShot=True, interval=0)
        self._settled.timeout.connect(on_built)
        self._settled.timeout.connect(self._keep_place)
        self._at_end = False  # kept scrolled to the end as turns are made (the history)
        self.raw = False
        self.differences = False
        self._on_made = on_made  # each message view made (the search marks it)
        self.boxes: list[TurnBox] = []
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMinimumHeight(1)  # a scroll area asks for more: a folded turn is one line
        self._content: QWidget | None = None
        self._follow: TurnBox | None = None  # to scroll to once its messages are made
        self.hide()

    def show_turns(self, turns: Sequence[Turn], unfolded: bool) -> None:
        """Show ``turns`` (none: the view goes), each folded or not."""
        old = self.takeWidget()
        if old is not None:
            old.deleteLater()
        self.boxes = []
        self._content = None
        self._follow, self._at_end = None, False
        self.setVisible(bool(turns))
        if not turns:
            return
        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        for turn in turns:
            box = TurnBox(turn, self)
            column.addWidget(box)
            self.boxes.append(box)
        column.addStretch(1)
        self.setWidget(content)
        self._content = content
        for box in self.boxes:
            box.set_unfolded(unfolded)

    def set_unfolded(self, unfolded: bool) -> None:
        for box in self.boxes:
            box.set_unfolded(unfolded)

    def any_unfolded(self) -> bool:
        return any(box.unfolded for box in self.boxes)

    def wanted_height(self) -> int:
        """The height that shows every turn as it is now, folded or not."""
        content = self._content
        return content.sizeHint().height() + 2 * self.frameWidth() if content is not None else 0

    def views(self) -> list[ResponseView]:
        return [view for box in self.boxes for view in box.views]

    def diffs(self) -> list[DiffMarks]:
        return [diff for box in self.boxes for diff in box.diffs]

    def set_raw(self, raw: bool) -> None:
        self.raw = raw
        for view in self.views():
            view.set_raw(raw)

    def set_diff(self, on: bool) -> None:
        self.differences = on
        for diff in self.diffs():
            diff.set_enabled(on)

    def made(self, box: TurnBox) -> None:
        for view in box.views:
            self._on_made(view)
            if isinstance(view, FittedView):
                view.fitted.connect(self._settled.start)
        self._settled.start()

    def _keep_place(self) -> None:
        """Turns made and laid out: the one moved to, or the end, kept in view."""
        if self._follow is not None:
            self.ensureWidgetVisible(self._follow, 0, 0)
        elif self._at_end:
            bar = self.verticalScrollBar()
            bar.setValue(bar.maximum())

    def bring(self, box: TurnBox) -> None:
        """Scroll so ``box`` is in view, now and as its messages are made and laid out."""
        self._follow, self._at_end = box, False
        self._settled.start()

    def to_end(self) -> None:
        """Scroll to the last turn (the one next to the compared turn), now and as turns
        are made and laid out."""
        self._follow, self._at_end = None, True
        self._settled.start()
