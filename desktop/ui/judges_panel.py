"""The Judges dock's view: the judge-selection table (``services.judge_selection``) as a
Qt table, one row per judge configuration and jury, the best row and those not
distinguishable from it marked, with the choices of reference and dimension above it.

The cells say what `tiebreak judges --against` prints, from the same dataclasses; the
table is a model over them (``SelectionModel``), so a new table replaces the rows in one
reset and the view keeps its column widths."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.domain.shown_text import shown
from desktop.services.judge_selection_columns import AGAINST, COLUMNS, summary
from desktop.ui.plain_text import PlainLabel

if TYPE_CHECKING:
    from desktop.domain.judge_selection import Row
    from desktop.services.judge_selection import Selection

JUDGE = 1  # the judge's column


class SelectionModel(QAbstractTableModel):
    def __init__(self) -> None:
        super().__init__()
        self.rows: list[Row] = []

    def show_rows(self, rows: list[Row]) -> None:
        self.beginResetModel()
        self.rows = rows
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> object:
        if not index.isValid():
            return None
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[index.column()][2](row)
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == JUDGE:
            return shown(row.name)
        if role == Qt.ItemDataRole.FontRole and row.best:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> object:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section][1]
        return None


class JudgesPanel(QWidget):
    """The heading, the choices (reference, dimension), the table and its notes."""

    choiceChanged = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.heading = PlainLabel("")
        self.heading.setWordWrap(True)
        self.against = QComboBox()
        for value, label in AGAINST:
            self.against.addItem(f"against {label}", value)
        self.dimension = QComboBox()
        refresh = QPushButton("Refresh")
        for w in (self.against, self.dimension, refresh):
            w.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # the keys stay on the pairs
        self.against.currentIndexChanged.connect(self.choiceChanged)
        self.dimension.currentIndexChanged.connect(self.choiceChanged)
        refresh.clicked.connect(self.choiceChanged)
        self.model = SelectionModel()
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # A judge's name can be a long path (org/repo/file): the judge column is a fixed
        # 18 ems, elided in the middle (the whole name in its tooltip), so the figures show.
        header.setSectionResizeMode(JUDGE, QHeaderView.ResizeMode.Interactive)
        self.table.setColumnWidth(JUDGE, 18 * self.fontMetrics().horizontalAdvance("m"))
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.setWordWrap(False)
        self.notes = PlainLabel("", lines=True)  # one note a line
        self.notes.setWordWrap(True)
        choices = QHBoxLayout()
        choices.addWidget(self.against)
        choices.addWidget(self.dimension)
        choices.addStretch(1)
        choices.addWidget(refresh)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addLayout(choices)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.notes)

    def chosen(self) -> tuple[str, str | None]:
        """(the reference, the dimension: None for the rubric's first)."""
        return str(self.against.currentData()), self.dimension.currentData()

    def set_dimensions(self, dimensions: list[str]) -> None:
        """The rubric's dimensions, keeping the one chosen where the new rubric has it."""
        current = self.dimension.currentData()
        self.dimension.blockSignals(True)
        self.dimension.clear()
        for d in dimensions:
            self.dimension.addItem(shown(d), d)
        if current in dimensions:
            self.dimension.setCurrentIndex(dimensions.index(current))
        self.dimension.blockSignals(False)

    def computing(self) -> None:
        self.heading.setText(self.heading.text().split(" · computing")[0] + " · computing…")

    def show_selection(self, selection: Selection) -> None:
        t = selection.table
        self.heading.setText(
            f"{shown(selection.rubric)} · {shown(selection.dimension)} · against"
            f" {selection.against}: {summary(selection)}"
        )
        self.model.show_rows(t.rows)
        self.notes.setText("\n".join(t.notes))
        self.notes.setVisible(bool(t.notes))

    def show_failure(self, message: str) -> None:
        self.heading.setText(message)
        self.model.show_rows([])
        self.notes.hide()
