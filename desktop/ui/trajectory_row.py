"""One row of two trajectories: a step of each side, or a user turn that lines up across
them, in three columns (the row's header, A, B).

Folded (as a row is made), each side is a line a card (``get_weather(location="Paris")
-> 14°C…``) under a line of its text, drawn literally; a side with no step here says so
(the gap). Unfolded (a click on the header, O at the step moved to, Shift+O for all), each
side's step is made as cards (desktop/ui/tool_card.py) through the layout queue with what
it costs, and, with D, the words that differ between A's and B's text, arguments and
results marked as the compared answers are; folded, D says in the header whether the two
sides did the same here.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QFont,
    QFontMetrics,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPalette,
    QStaticText,
)
from PySide6.QtWidgets import QFrame, QGridLayout, QSizePolicy, QVBoxLayout, QWidget

from desktop.domain.shown_text import shown
from desktop.domain.trajectory_steps import Move, StepRow
from desktop.ui.diff_marks import DiffMarks
from desktop.ui.layout_queue import layout_queue
from desktop.ui.response_view import ResponseView
from desktop.ui.tool_card import MoveView, move_cost
from desktop.ui.workers import TaskRunner

HEADER_WIDTH = 86  # the row's header column, as wide in every row and in the summary
SPACING = 8  # between the columns
_ELIDE = Qt.TextElideMode.ElideRight


class RowOwner(Protocol):
    """What a row asks of the view that holds it (ui/trajectory_view.py)."""

    runner: TaskRunner | None
    raw: bool  # R: raw text
    differences: bool  # D: what differs marked

    def made(self, box: StepBox) -> None: ...

    def wants(self, box: StepBox) -> None: ...


def _folded_text(move: Move | None, gap: str) -> str:
    if move is None:
        return gap
    lines = move.lines() or ["(nothing said, no tool called)"]
    if move.role in ("user", "system"):
        lines[0] = f"{move.role}: {lines[0]}"
    return "\n".join(shown(line) for line in lines)


def _static(metrics: QFontMetrics, line: str, width: int) -> QStaticText:
    """``line`` elided to ``width`` pixels, laid out once. Only as many characters as
    could fit are measured (none is narrower than 2 pixels): a result's line may be long."""
    text = QStaticText(metrics.elidedText(line[: width // 2 + 1], _ELIDE, width))
    text.setTextFormat(Qt.TextFormat.PlainText)  # never read as markup
    return text


class _Line(QWidget):
    """The row's line: its header (an arrow, "Step 3", D's mark) and, folded, each side's
    lines; unfolded, only a side's gap. Drawn as text, never read as markup, in one widget
    (a row of labels and buttons cost ten times as much to make: 200-step runs are shown
    twenty rows at a time, on every J). A click folds or unfolds the row."""

    def __init__(self, box: StepBox) -> None:
        super().__init__()
        self.box = box
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Click, O (the step moved to) or Shift+O (every step) unfold it")
        self._cache: tuple[tuple[int, bool, str], list[tuple[int, int, QStaticText, bool]]] | None
        self._cache = None
        self.refit()

    def forget(self) -> None:
        """Its row changed (``StepBox.bind``): laid out again, at the new row's height."""
        self._cache = None
        self.refit()
        self.update()

    def lines(self) -> int:
        box = self.box
        if box.unfolded:
            return 1
        return max(1, *(text.count("\n") + 1 for text in box.sides))

    def refit(self) -> None:
        self.setFixedHeight(self.lines() * self.fontMetrics().lineSpacing() + 4)

    def columns(self) -> list[tuple[int, int]]:
        """Where each side's text starts and how wide it is (as the summaries above)."""
        rest = self.width() - HEADER_WIDTH - 2 * SPACING
        if self.box.row.shared:
            return [(HEADER_WIDTH + SPACING, rest + SPACING)]
        half = rest // 2
        return [(HEADER_WIDTH + SPACING, half), (HEADER_WIDTH + 2 * SPACING + half, half)]

    def _drawn(self) -> list[tuple[int, int, QStaticText, bool]]:
        """What the line draws, at its width now: each piece of text, where, and whether
        it is a gap's (muted, italic). Kept until the width, the fold or the header
        changes: laying text out was most of what a J onto 200-step runs cost, and a
        row is painted more than once."""
        box = self.box
        key = (self.width(), box.unfolded, box.header_text)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        metrics = self.fontMetrics()
        step, top = metrics.lineSpacing(), 2
        arrow = "▾" if box.unfolded else "▸"
        drawn = [(4, top, _static(metrics, f"{arrow} {box.header_text}", HEADER_WIDTH - 4), False)]
        for k, ((x, width), text) in enumerate(zip(self.columns(), box.sides, strict=False)):
            gap = box.gaps[k]
            if box.unfolded and not gap:
                continue
            for n, line in enumerate(text.split("\n")):
                drawn.append((x, top + n * step, _static(metrics, line, width), gap))
        self._cache = (key, drawn)
        return drawn

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()
        plain, muted = QFont(self.font()), QFont(self.font())
        muted.setItalic(True)
        colours = (palette.color(QPalette.ColorRole.Text),
                   palette.color(QPalette.ColorRole.PlaceholderText))  # fmt: skip
        for x, y, text, gap in self._drawn():
            painter.setFont(muted if gap else plain)
            painter.setPen(colours[gap])
            painter.drawStaticText(x, y, text)
        painter.end()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.box.set_unfolded(not self.box.unfolded)


class StepBox(QFrame):
    """One row: its line (which folds it), and each side's step made when unfolded.

    A row is kept when its pair goes and shown again for a row of the next pair
    (``bind``, ui/trajectory_view.py): making and deleting twenty rows' widgets on every
    J was a third of what a J onto 200-step runs cost."""

    def __init__(self, row: StepRow, owner: RowOwner) -> None:
        super().__init__()
        self.owner = owner
        self.setObjectName("step")
        self._current = False
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(0)
        self._unfolded = False
        self.body: QWidget | None = None
        self.building = False  # its steps waiting in the layout queue to be made
        self._read(row)
        self.line = _Line(self)
        self._layout.addWidget(self.line)

    def _read(self, row: StepRow) -> None:
        """What the row shows of ``row``, folded: its header and each side's lines."""
        self.row = row
        self.views: list[ResponseView] = []
        self.diffs: list[DiffMarks] = []
        self.moves: list[MoveView] = []
        self.header_text = ""
        moves = [row.a] if row.shared else [row.a, row.b]
        names = [("A", "B"), ("B", "A")]
        self.gaps = [move is None for move in moves]
        self.sides = []  # each side's text folded, as drawn
        for move, (mine, other) in zip(moves, names, strict=False):
            gap = (
                f"no step here: {mine} took fewer steps than {other}"
                if row.kind == "step"
                else f"no such turn on {mine}'s side"
            )
            self.sides.append(_folded_text(move, gap))
        self._show_header()

    def release(self) -> tuple[QWidget, int] | None:
        """Its pair goes: folded, not framed, and the body of its steps unfolded, if any,
        taken out and given back with how many views it holds, to be deleted (by the view,
        through the layout queue). The row keeps its line, to ``bind`` to another row."""
        layout_queue().drop((self, "step"))
        self.building = False
        self._unfolded = False
        self.set_current(False)
        body, self.body = self.body, None
        views = len(self.views)
        self.views, self.diffs, self.moves = [], [], []
        if body is None:
            return None
        self._layout.removeWidget(body)
        body.hide()
        self._layout.activate()  # its height a line's now, not once the loop comes back
        return body, views

    def bind(self, row: StepRow) -> None:
        """The row shows ``row`` now (after ``release``), folded."""
        self._read(row)
        self.line.forget()

    @property
    def unfolded(self) -> bool:
        return self._unfolded

    def built(self) -> bool:
        return self.body is not None

    def _show_header(self) -> None:
        row = self.row
        text = (
            (row.role + (" (A, B)" if row.shared else ""))
            if row.kind == "request"
            else (f"Step {row.number}")
        )
        if self.owner.differences and not row.shared and row.gap is None:
            text += "  =" if row.same else "  ≠"
        self.header_text = text

    def set_unfolded(self, unfolded: bool) -> None:
        if unfolded == self._unfolded:
            return
        self._unfolded = unfolded
        self.line.refit()
        self.line.update()
        if self.body is not None:
            self.body.setVisible(unfolded)
        elif unfolded:
            self.owner.wants(self)  # made once near sight (ui/trajectory_view.py)

    def build(self) -> None:
        """Its steps made, through the layout queue with what they cost."""
        if self.body is not None or self.building:
            return
        self.building = True
        raw = self.owner.raw
        cost = sum(move_cost(m, raw) for m in (self.row.a, self.row.b) if m is not None)
        layout_queue().submit((self, "step"), self, cost, self._build)

    def _build(self) -> None:
        self.building = False
        if not self._unfolded or self.body is not None:
            self.owner.made(self)
            return  # folded again before its turn came
        raw = self.owner.raw
        row = self.row
        body = QWidget()
        grid = QGridLayout(body)
        grid.setContentsMargins(0, 0, 0, 4)
        grid.setHorizontalSpacing(SPACING)
        grid.setColumnMinimumWidth(0, HEADER_WIDTH)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(2, 1)
        made: list[MoveView | None] = []
        for column, move in enumerate([row.a] if row.shared else [row.a, row.b]):
            if move is None:
                made.append(None)
                continue
            view = MoveView(move, raw)
            view.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            span = 2 if row.shared else 1
            grid.addWidget(view, 0, 1 + column, 1, span, Qt.AlignmentFlag.AlignTop)
            self.moves.append(view)
            self.views += view.views()
            made.append(view)
        if len(made) == 2 and made[0] is not None and made[1] is not None:
            self._compare(made[0], made[1])
        self.body = body
        self._layout.addWidget(body)
        body.setVisible(True)  # now, not once the event loop comes back
        self.owner.made(self)

    def _compare(self, a: MoveView, b: MoveView) -> None:
        """D's marks between the two sides' text, and card by card their arguments and
        results."""
        pairs: list[tuple[ResponseView | None, ResponseView | None]] = [(a.text, b.text)]
        for mine, theirs in zip(a.cards, b.cards, strict=False):
            pairs += [(mine.arguments, theirs.arguments), (mine.result, theirs.result)]
        for left, right in pairs:
            if left is not None and right is not None:
                diff = DiffMarks(left, right, self.owner.runner)
                diff.set_enabled(self.owner.differences)
                self.diffs.append(diff)

    def set_diff(self, on: bool) -> None:
        self._show_header()
        self.line.update()
        for diff in self.diffs:
            diff.set_enabled(on)

    def set_raw(self, raw: bool) -> None:
        """R: the steps' texts raw or as markdown (arguments and results are always shown
        as the text they are)."""
        for move in self.moves:
            if move.text is not None:
                move.text.set_raw(raw)

    def set_current(self, current: bool) -> None:
        if current == self._current:
            return
        self._current = current
        self.setFrameShape(QFrame.Shape.Box if current else QFrame.Shape.NoFrame)
        self.setStyleSheet("#step { border: 2px solid palette(highlight); }" if current else "")
