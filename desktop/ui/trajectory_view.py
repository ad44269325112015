"""Two trajectories side by side, step by step: what each side did summarised above it
(its steps, tool calls, errors and tools), then a row a step (ui/trajectory_row.py), A's
and B's lined up, each folded to a line a tool call until unfolded.

One scroll area holds both sides, so they move together: . and , go to the next and the
previous step of both at once (the row framed and brought into view), O unfolds the step
moved to (or, before any, the steps on screen) and Shift+O every step.

Only the ``WINDOW`` first rows are made when a pair is shown; the rest wait behind one line
at the end ("180 more steps"), and the next ``WINDOW`` are made when it is clicked,
scrolled to or moved onto. A pair of two runs of 200 steps then shows as quickly as one of
two: what a key costs is bounded by the window, never by the length of the runs.

The rows are kept from pair to pair (at most ``KEEP``): the next pair's rows are shown in
them (``StepBox.bind``), the steps unfolded before deleted through the layout queue, so J
onto two runs of folded steps makes and deletes no widget.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import shiboken6
from PySide6.QtCore import QCoreApplication, QEvent, Qt, QTimer
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.domain.trajectory_steps import StepRow, Trajectories, summary
from desktop.ui.diff_marks import DiffMarks
from desktop.ui.layout_queue import layout_queue
from desktop.ui.plain_text import PlainLabel
from desktop.ui.response_view import ResponseView
from desktop.ui.trajectory_row import HEADER_WIDTH, StepBox
from desktop.ui.transcript_message import FittedView
from desktop.ui.transcript_turn import MESSAGE_COST
from desktop.ui.workers import TaskRunner

WINDOW = 20  # rows made at a time at most
FILL = 400  # pixels of rows made as a pair is shown, at least (the view's height, mostly)


KEEP = 2 * WINDOW  # rows kept for the next pairs at most (those past it deleted)


def _let_go(widgets: list[tuple[QWidget, int]]) -> None:
    """Widgets shown before (each with the views it holds), hidden at once and deleted a
    few at a time through the layout queue (as the transcript's turns are)."""
    for widget, views in widgets:
        widget.hide()
        cost = MESSAGE_COST * (1 + views)
        layout_queue().submit((widget, "deleted"), widget, cost, partial(shiboken6.delete, widget))


class TrajectoryView(QWidget):
    """The summaries above the two sides, and the rows under them; ``boxes`` are the rows
    made, in order; ``at`` the index of the row moved to (None: none yet)."""

    def __init__(self, runner: TaskRunner | None, on_made: Callable[[ResponseView], None]) -> None:
        super().__init__()
        self.runner = runner
        self.raw = False
        self.differences = False
        self.unfolded = False  # Shift+O: what a row is when made
        self._on_made = on_made
        self.trajectories: Trajectories | None = None
        self.boxes: list[StepBox] = []
        self.at: int | None = None
        self.more: QToolButton | None = None
        self._follow: StepBox | None = None  # to keep in view once its steps are laid out
        self._settled = QTimer(self, singleShot=True, interval=0)
        self._settled.timeout.connect(self._keep_place)
        self._settled.timeout.connect(self._build_near)
        heads = QWidget()
        top = QGridLayout(heads)
        top.setContentsMargins(2, 0, 2, 2)
        top.setHorizontalSpacing(8)
        top.setColumnMinimumWidth(0, HEADER_WIDTH)
        top.setColumnStretch(1, 1)
        top.setColumnStretch(2, 1)
        self.summaries = [PlainLabel(), PlainLabel()]
        for k, label in enumerate(self.summaries):
            label.setObjectName("summary")
            label.setStyleSheet("#summary { font-weight: bold; }")
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            top.addWidget(label, 0, 1 + k)
        self.area = QScrollArea()
        self.area.setWidgetResizable(True)
        self.area.setFrameShape(QFrame.Shape.StyledPanel)
        self.area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.area.verticalScrollBar().actionTriggered.connect(self._scrolled)
        self.area.verticalScrollBar().valueChanged.connect(self._settled.start)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(heads)
        layout.addWidget(self.area, 1)
        # What the area holds, made once and kept from pair to pair: the system message,
        # the line for a pair without steps, the rows (``_kept``: those of the pair shown
        # first, ``boxes``, then hidden ones waiting for the next pairs), the line for the
        # rest, and a stretch.
        content = QWidget()
        column = QVBoxLayout(content)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.system = PlainLabel()
        self.system.setObjectName("system")
        self.system.setStyleSheet("#system { color: palette(placeholder-text); }")
        self.system.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._empty = PlainLabel("no steps between the task and the final answers")
        self._more = more = QToolButton()
        more.setAutoRaise(True)
        more.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay on the pairs
        more.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        more.setArrowType(Qt.ArrowType.DownArrow)
        more.clicked.connect(self.show_more)
        for widget in (self.system, self._empty, more):
            column.addWidget(widget)
            widget.hide()
        column.addStretch(1)
        self._content = content
        self._column = column
        self._kept: list[StepBox] = []
        self.area.setWidget(content)
        self.hide()

    # ---- what is shown ------------------------------------------------------------------
    def show_trajectories(self, found: Trajectories | None) -> None:
        """Show ``found`` (None: the view goes), as many of its first ``WINDOW`` rows made
        as fill the view. The rows shown before show the new pair's (``StepBox.bind``):
        no widget is made or deleted for a pair of folded rows."""
        old = [box.release() for box in self.boxes]
        _let_go([piece for piece in old if piece is not None])
        self.trajectories, self.boxes, self.at = found, [], None
        self._follow = None
        self.setVisible(found is not None)
        if found is None:
            self.more = None
            for widget in (self.system, self._empty, self._more, *self._kept):
                widget.hide()
            return
        self.area.verticalScrollBar().setValue(0)
        self.summaries[0].setText(summary("A", found.counts_a))
        self.summaries[1].setText(summary("B", found.counts_b))
        if found.system is not None:
            self.system.setText(f"system (A and B): {found.system}")
        self.system.setVisible(found.system is not None)
        self._empty.setVisible(not found.rows)
        self.more = self._more if len(found.rows) > WINDOW else None
        self._more.setVisible(self.more is not None)
        made = self._make(WINDOW, fill=max(self.area.viewport().height(), FILL))
        for box in self._kept[len(made) :]:
            box.hide()
        # laid out now, the area's scroll range with it, as a new content would be: else
        # the rows were painted in the content still as tall as the pair before made it
        QCoreApplication.sendEvent(self._content, QEvent(QEvent.Type.LayoutRequest))
        extra = self._kept[KEEP:]
        if extra:
            del self._kept[KEEP:]
            _let_go([(box, 0) for box in extra])

    def count(self) -> int:
        """How many rows the pair has, made or not."""
        return len(self.trajectories.rows) if self.trajectories is not None else 0

    def _make(self, n: int, fill: int | None = None) -> list[StepBox]:
        """The next ``n`` rows made (a row kept from a pair before shows it, else a new
        one), under those made, above the line for the rest; with ``fill``, only as many as
        fill that many pixels (a folded row's height is known before it is laid out: its
        lines), the view's height as a pair is shown."""
        column, found = self._column, self.trajectories
        if found is None:
            return []
        start = len(self.boxes)
        made: list[StepBox] = []
        room = fill if fill is not None else -1
        for i in range(start, min(start + n, self.count())):
            if i < len(self._kept):
                box = self._kept[i]
                box.bind(found.rows[i])
            else:
                box = StepBox(found.rows[i], self)
                column.insertWidget(2 + len(self._kept), box)  # after the system, the empty
                self._kept.append(box)
            made.append(box)
            room -= box.line.height()
            if fill is not None and room < 0:
                break
        self.boxes.extend(made)
        for box in made:
            box.set_unfolded(self.unfolded)
            box.setVisible(True)  # now, not once the event loop comes back: it takes room
        self._show_more_line()
        return made

    def _show_more_line(self) -> None:
        more = self.more
        if more is None:
            return
        left = self.count() - len(self.boxes)
        more.setVisible(left > 0)
        if left:
            more.setText(
                f"{left:,} more step{'s' if left != 1 else ''} not shown (rows"
                f" {len(self.boxes) + 1:,}–{self.count():,}): click or scroll down to show"
                f" {min(WINDOW, left)} more"
            )

    def show_more(self) -> list[StepBox]:
        return self._make(WINDOW)

    def _scrolled(self, _action: int) -> None:
        QTimer.singleShot(0, self, self._at_more)

    def _at_more(self) -> None:
        bar = self.area.verticalScrollBar()
        if len(self.boxes) < self.count() and bar.maximum() > 0 and bar.value() == bar.maximum():
            self.show_more()

    def box(self, index: int) -> StepBox:
        """The row at ``index``, made (with those before it) if it is not yet."""
        while index >= len(self.boxes):
            self.show_more()
        return self.boxes[index]

    # ---- moving, unfolding ----------------------------------------------------------------
    def go(self, step: int) -> str:
        """To the next (``step`` 1) or previous (-1) row on both sides at once, framed and
        brought into view; what the status bar says."""
        total = self.count()
        if not total:
            return "no steps between the task and the final answers"
        at = 0 if self.at is None else max(0, min(total - 1, self.at + step))
        if self.at is not None:
            self.boxes[self.at].set_current(False)
        self.at = at
        box = self.box(at)
        box.set_current(True)
        self.bring(box)
        return _said(box.row, total)

    def current(self) -> StepBox | None:
        return self.boxes[self.at] if self.at is not None else None

    def unfold_here(self) -> str:
        """O: the step moved to unfolded, or folded again; before any, the steps on
        screen."""
        box = self.current()
        if box is not None:
            box.set_unfolded(not box.unfolded)
            self.bring(box)
            if box.unfolded:
                return f"step {box.row.number} unfolded (O again folds it)"
            return f"step {box.row.number} folded (O again unfolds it)"
        seen = self.on_screen()
        unfold = not all(b.unfolded for b in seen)
        for b in seen:
            b.set_unfolded(unfold)
        state = "unfolded" if unfold else "folded"
        return f"{len(seen)} steps on screen {state} (. and , move to one step)"

    def on_screen(self) -> list[StepBox]:
        top = self.area.verticalScrollBar().value()
        bottom = top + self.area.viewport().height()
        return [b for b in self.boxes if b.y() < bottom and b.y() + b.height() > top]

    def set_unfolded(self, unfolded: bool) -> None:
        """Shift+O: every row unfolded (those made later too), or folded."""
        self.unfolded = unfolded
        for box in self.boxes:
            box.set_unfolded(unfolded)
        if self.current() is not None:
            self.bring(self.boxes[self.at or 0])

    def bring(self, box: StepBox) -> None:
        """Scroll so ``box`` is in view, now and as its steps are made and laid out."""
        self._follow = box
        self._keep_place()
        self._settled.start()

    def _keep_place(self) -> None:
        if self._follow is not None:
            self._column.activate()
            self.area.ensureWidgetVisible(self._follow, 0, 0)

    # ---- what a row asks, and the switches ----------------------------------------------------
    def wants(self, box: StepBox) -> None:
        """A row unfolded: its steps are made once it is near sight (``_build_near``)."""
        self._settled.start()

    def _build_near(self) -> None:
        """The first row unfolded but not made, if it is within a view's height below
        sight, made (one at a time: each pushes those after it down). Shift+O on 200
        steps then makes the rows a reviewer can see, not all twenty made."""
        if any(box.building for box in self.boxes):
            return
        self._column.activate()  # the rows placed as they are now
        bar, height = self.area.verticalScrollBar(), self.area.viewport().height()
        for box in self.boxes:
            if box.unfolded and not box.built():
                if box is self._follow or box.y() < bar.value() + 2 * height:
                    box.build()
                return

    def pending(self) -> bool:
        """Work under way for what is in sight: rows being made, marks being compared."""
        return (
            self._settled.isActive()
            or any(box.building for box in self.boxes)
            or any(d.pending() for d in self.diffs())
        )

    def made(self, box: StepBox) -> None:
        for view in box.views:
            self._on_made(view)
            if isinstance(view, FittedView):
                view.fitted.connect(self._settled.start)
        self._settled.start()

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
        for box in self.boxes:
            box.set_diff(on)


def _side(row: StepRow, side: str) -> str:
    move = row.a if side == "A" else row.b
    if move is None:
        return f"{side} none"
    if move.role in ("user", "system"):
        return f"{side} {move.role}: {move.preview(40)}"
    tools = [card.name for card in move.cards]
    if not tools:
        return f"{side} says: {move.preview(40)}"
    return f"{side} {', '.join(tools)}"


def _said(row: StepRow, total: int) -> str:
    where = f"row {row.number} of {total}"
    if row.kind == "request":
        return f"{where}: a {row.role} turn ({_side(row, 'A')}; {_side(row, 'B')})"
    return f"step {row.number} of {total}: {_side(row, 'A')}; {_side(row, 'B')} (O unfolds it)"
