"""The Generators dock's view: `tiebreak stats --by model`'s table (``services.leaderboard``)
as a Qt table, one row per generator and baseline, the columns ``shown_columns`` gives the
command (AlpacaEval's figures, the LC win rate and its std err, and B's win rate three ways
where reviewers gave verdicts), with ``lc_note``'s lines under it as plain text.

The table is a model over the rows (``LeaderboardModel``): a new leaderboard replaces them
in one reset and the view keeps its column widths."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.domain.shown_text import shown
from desktop.ui.plain_text import PlainLabel, plain_tooltip

if TYPE_CHECKING:
    from desktop.services.figures import Column
    from desktop.services.leaderboard import Leaderboard, LeaderboardRow

NAMES = 2  # the generator's and the baseline's columns come first, left-aligned


FIRST = ("win_rate", "standard_error", "lc_win_rate", "lc_standard_error")


def window_order(columns: list[Column]) -> list[Column]:
    """The command's columns, the headline figures (the win rate, the LC win rate and their
    errors) right after the names: a dock half the window wide shows them unscrolled."""
    names, rest = columns[:NAMES], columns[NAMES:]
    first = [c for name in FIRST for c in rest if c.name == name]
    return [*names, *first, *(c for c in rest if c not in first)]


class LeaderboardModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[LeaderboardRow] = []
        self.columns: list[Column] = []
        self.many_dimensions = False  # a dimension column first where the rubric has several

    def show_board(self, board: Leaderboard | None) -> None:
        from desktop.services.leaderboard import shown_columns

        self.beginResetModel()
        self.rows = board.rows if board is not None else []
        self.columns = window_order(shown_columns(board)[0]) if board is not None else []
        self.many_dimensions = len({r.dimension for r in self.rows}) > 1
        self.endResetModel()

    def _offset(self) -> int:
        return 1 if self.many_dimensions else 0

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.columns) + self._offset()

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> object:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        at = index.column() - self._offset()
        if role == Qt.ItemDataRole.DisplayRole:
            return shown(row.dimension if at < 0 else self.columns[at].window_cell(row))
        if role == Qt.ItemDataRole.ToolTipRole and at >= 0:
            column = self.columns[at]
            if at < NAMES:  # a long name is elided: the whole of it
                return plain_tooltip(column.window_cell(row))
            if column.name.startswith("lc_") and row.lc_reason is not None:
                return plain_tooltip(row.lc_reason)  # why the dash
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and at >= NAMES:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> object:
        if orientation != Qt.Orientation.Horizontal:
            return None
        at = section - self._offset()
        if role == Qt.ItemDataRole.DisplayRole:
            return (
                "dimension" if at < 0 else self.columns[at].window_label or self.columns[at].label
            )
        if role == Qt.ItemDataRole.ToolTipRole and at >= 0:
            return self.columns[at].tip or None
        return None


class GeneratorsPanel(QWidget):
    """The heading, the table and, under it, what the LC columns are."""

    refreshAsked = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.heading = PlainLabel("Computing the generators' figures…")
        self.heading.setWordWrap(True)
        refresh = QPushButton("Refresh")
        refresh.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # the keys stay on the pairs
        refresh.clicked.connect(self.refreshAsked)
        self.model = LeaderboardModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setWordWrap(False)
        self.three_ways = PlainLabel("")  # what B's win rate three ways are, where shown
        self.three_ways.setWordWrap(True)
        self.notes = PlainLabel("", lines=True)  # one line per note, each name one line
        self.notes.setWordWrap(True)
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(refresh)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.three_ways)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.notes)

    def computing(self) -> None:
        self.heading.setText(self.heading.text().split(" · computing")[0] + " · computing…")

    def show_board(self, board: Leaderboard) -> None:
        from desktop.services.leaderboard import lc_note, shown_columns

        self.heading.setText(
            f"{shown(board.rubric)} · judge {shown(board.judge_model or 'none')} · one row per"
            " generator (model_b) against its baseline (model_a)"
        )
        three_ways = shown_columns(board)[1]
        self.three_ways.setText(three_ways or "")
        self.three_ways.setVisible(three_ways is not None)
        self.model.show_board(board)
        note = lc_note(board)
        self.notes.setText("\n".join(shown(line) for line in note))  # a name: one line
        self.notes.setVisible(bool(note))

    def show_failure(self, message: str) -> None:
        self.heading.setText(message)
        self.model.show_board(None)
        self.three_ways.hide()
        self.notes.hide()
