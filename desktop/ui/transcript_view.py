"""The turns of a conversation pair around its compared turn (the history above it, the
turns the data kept after it below), in two columns, A and B, turn by turn
(ui/transcript_turn.py: one turn, folded to its header until unfolded).

Only the ``WINDOW`` turns nearest the compared one are made at first; the rest wait behind
one line at the far end ("4,979 earlier turns"), and the next ``WINDOW`` are made when that
line is clicked, scrolled to, or moved onto with [ and ]. A conversation of 10,000 messages
(5,000 turns) then shows as quickly as one of twenty: what a key costs is bounded by the
window, never by the length of the conversation, and H unfolds the turns made, not 5,000.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QToolButton, QVBoxLayout, QWidget

from desktop.domain.transcript import Turn
from desktop.ui.diff_marks import DiffMarks
from desktop.ui.layout_queue import SMALL, layout_queue
from desktop.ui.response_view import ResponseView
from desktop.ui.transcript_message import FittedView
from desktop.ui.transcript_turn import MESSAGE_COST, TurnBox
from desktop.ui.workers import TaskRunner

WINDOW = 20  # turns made at a time, those nearest the compared turn first


def _let_go(content: QWidget, boxes: list[TurnBox]) -> None:
    """The turns shown before, hidden at once and deleted a few at a time through the
    layout queue: sixty turns' messages deleted in one go held the window 100 ms."""
    content.hide()
    for box in boxes:
        cost = MESSAGE_COST * (1 + len(box.views))
        layout_queue().submit((box, "deleted"), box, cost, partial(shiboken6.delete, box))
    layout_queue().submit((content, "deleted"), content, SMALL + 1, content.deleteLater)


class TranscriptView(QScrollArea):
    """The turns before (``earlier``: the history, nearest the compared turn last) or after
    the compared one, each folded or not; ``boxes`` are the turns made, in order."""

    def __init__(
        self,
        runner: TaskRunner | None,
        on_made: Callable[[ResponseView], None],
        on_built: Callable[[], None],
        *,
        earlier: bool,
    ) -> None:
        super().__init__()
        self.runner = runner
        self.earlier = earlier
        # A turn's messages made and laid out: the room it needs changed.
        self._settled = QTimer(self, singleShot=True, interval=0)
        self._settled.timeout.connect(on_built)
        self._settled.timeout.connect(self._keep_place)
        self._settled.timeout.connect(self._cull)
        # Scrolled or resized: which turns are near enough to be laid out, once it settles.
        self._moved = QTimer(self, singleShot=True, interval=0)
        self._moved.timeout.connect(self._cull)
        self.verticalScrollBar().valueChanged.connect(self._moved.start)
        self._at_end = False  # kept scrolled to the end as turns are made (the history)
        self.raw = False
        self.differences = False
        self.unfolded = False  # H: what a turn is when made
        self._on_made = on_made  # each message view made (the search marks it)
        self._turns: Sequence[Turn] = ()
        self._first = 0  # the index in the turns of ``boxes[0]``
        self.boxes: list[TurnBox] = []
        self.more: QToolButton | None = None  # the line standing for the turns not made
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMinimumHeight(1)  # a scroll area asks for more: a folded turn is one line
        self.verticalScrollBar().actionTriggered.connect(self._scrolled)  # by the reader
        self._content: QWidget | None = None
        self._column: QVBoxLayout | None = None
        self._follow: TurnBox | None = None  # to scroll to once its messages are made
        self._anchor: tuple[TurnBox, int] | None = None  # kept where it was as turns come
        self.hide()

    def show_turns(self, turns: Sequence[Turn], unfolded: bool) -> None:
        """Show ``turns`` (none: the view goes), each folded or not; only the ``WINDOW``
        nearest the compared turn are made."""
        old = self.takeWidget()
        if old is not None:
            _let_go(old, self.boxes)
        self.boxes, self._turns, self.unfolded = [], turns, unfolded
        self._content, self._column, self.more = None, None, None
        self._follow, self._at_end, self._anchor = None, False, None
        self.setVisible(bool(turns))
        if not turns:
            return
        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addStretch(1)
        self._content, self._column = content, column
        self._first = max(0, len(turns) - WINDOW) if self.earlier else 0
        if len(turns) > WINDOW:
            self.more = more = QToolButton()
            more.setAutoRaise(True)
            more.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay on the pairs
            more.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            more.setArrowType(Qt.ArrowType.UpArrow if self.earlier else Qt.ArrowType.DownArrow)
            more.clicked.connect(self.show_more)
            column.insertWidget(0, more)
        self.setWidget(content)
        self._make(range(self._first, min(len(turns), self._first + WINDOW)))

    def _make(self, indices: range) -> list[TurnBox]:
        """Make the turns at ``indices``, next to those already made, and put them in."""
        column = self._column
        assert column is not None
        made = [TurnBox(self._turns[i], self) for i in indices]
        more = 1 if self.more is not None else 0
        if self.boxes and indices.start < self._first:  # above the history's first made
            at = more
            self.boxes[:0] = made
            self._first = indices.start
        else:  # below the last made, above the line for the rest (after the compared turn)
            at = column.count() - 1 - (0 if self.earlier else more)
            self.boxes.extend(made)
        for offset, box in enumerate(made):
            column.insertWidget(at + offset, box)
            box.setVisible(True)  # now, not once the event loop comes back: it takes room
        for box in made:
            box.set_unfolded(self.unfolded)
        self._show_more_line()
        return made

    def _left(self) -> range:
        """The indices of the turns not made yet (at the far end from the compared turn)."""
        if self.earlier:
            return range(0, self._first)
        return range(self._first + len(self.boxes), len(self._turns))

    def _show_more_line(self) -> None:
        more, left = self.more, self._left()
        if more is None:
            return
        more.setVisible(bool(left))
        if left:
            first, last = self._turns[left[0]].number, self._turns[left[-1]].number
            where, way = ("earlier", "up") if self.earlier else ("later", "down")
            more.setText(
                f"{len(left):,} {where} turn{'s' if len(left) != 1 else ''} not shown"
                f" (turns {first:,}–{last:,}): click or scroll {way} to show"
                f" {min(WINDOW, len(left))} more"
            )

    def show_more(self) -> list[TurnBox]:
        """The next ``WINDOW`` turns away from the compared one made; what the reader
        looked at stays where it was."""
        left = self._left()
        if not left or not self.boxes:
            return []
        if not self.earlier:
            made = self._make(left[:WINDOW])
        else:
            anchor = self.boxes[0]
            self._anchor = (anchor, anchor.y() - self.verticalScrollBar().value())
            self._follow, self._at_end = None, False
            made = self._make(left[-WINDOW:])
            self._keep_place()  # now: off the line that made them, so it is not made again
        self._settled.start()
        return made

    def _scrolled(self, _action: int) -> None:
        """The reader scrolled (the wheel, the bar, a key): once the bar has moved, if it is
        at the line standing for the turns not made, the next are made."""
        QTimer.singleShot(0, self, self._at_more)

    def _at_more(self) -> None:
        bar = self.verticalScrollBar()
        end = bar.minimum() if self.earlier else bar.maximum()
        if self._left() and bar.maximum() > 0 and bar.value() == end:
            self.show_more()

    def count(self) -> int:
        """How many turns this view stands for, made or not."""
        return len(self._turns)

    def turn(self, index: int) -> Turn:
        return self._turns[index]

    def box(self, index: int) -> TurnBox:
        """The turn at ``index`` (of ``count()``), made with those between it and the turns
        made already (a ``WINDOW`` at a time) if it is not yet."""
        while index < self._first:
            self.show_more()
        while index >= self._first + len(self.boxes):
            self.show_more()
        return self.boxes[index - self._first]

    def set_unfolded(self, unfolded: bool) -> None:
        self.unfolded = unfolded
        for box in self.boxes:
            box.set_unfolded(unfolded)

    def any_unfolded(self) -> bool:
        return any(box.unfolded for box in self.boxes)

    def wanted_height(self) -> int:
        """The height that shows every turn made as it is now, folded or not."""
        content = self._content
        return content.sizeHint().height() + 2 * self.frameWidth() if content is not None else 0

    def folded_height(self, most: int) -> int:
        """The height of at most ``most`` folded lines: one a turn made, and one for the
        turns not made yet."""
        if not self.boxes:
            return 0
        lines = len(self.boxes) + (1 if self.more is not None and self.more.isVisible() else 0)
        return self.boxes[0].sizeHint().height() * min(most, lines)

    def views(self) -> list[ResponseView]:
        return [view for box in self.boxes for view in box.views]

    def diffs(self) -> list[DiffMarks]:
        return [diff for box in self.boxes for diff in box.diffs]

    def set_raw(self, raw: bool) -> None:
        self.raw = raw
        for box in self.boxes:
            box.set_raw(raw)

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
        """Turns made and laid out: the one moved to, the one read before more were made
        above it, or the end, kept in view."""
        if self._follow is not None:
            self.ensureWidgetVisible(self._follow, 0, 0)
        elif self._anchor is not None:
            box, offset = self._anchor
            if self._column is not None:
                self._column.activate()  # the turns above it placed (and the bar's range)
            self.verticalScrollBar().setValue(box.y() - offset)
        elif self._at_end:
            bar = self.verticalScrollBar()
            bar.setValue(bar.maximum())

    def _cull(self) -> None:
        """Turns more than a view's height out of sight stand for their messages by room
        of their height (ui/transcript_turn.py: ``set_far``); the others show them."""
        top, height = self.verticalScrollBar().value(), self.viewport().height()
        changed = False
        for box in self.boxes:
            y = box.y()
            changed |= box.set_far(y + box.height() < top - height or y > top + 2 * height)
        if changed:  # the room may differ from what it stands for: the place kept again
            self._settled.start()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._moved.start()

    def bring(self, box: TurnBox) -> None:
        """Scroll so ``box`` is in view, now and as its messages are made and laid out."""
        self._follow, self._at_end, self._anchor = box, False, None
        self._settled.start()

    def to_end(self) -> None:
        """Scroll to the last turn (the one next to the compared turn), now and as turns
        are made and laid out."""
        self._follow, self._at_end, self._anchor = None, True, None
        self._settled.start()
