"""The Judges dock's view: the judge-selection table (``services.judge_selection``) as a
Qt table, one row per judge configuration and jury, the best row and those not
distinguishable from it marked, with the choices of reference and dimension above it.

The cells say what `tiebreak judges --against` prints, from the same dataclasses; the
table is a model over them (``SelectionModel``), so a new table replaces the rows in one
reset and the view keeps its column widths."""

from __future__ import annotations

from collections.abc import Callable
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
from desktop.ui.plain_text import PlainLabel

if TYPE_CHECKING:
    from desktop.domain.judge_selection import Estimate, Row
    from desktop.services.judge_selection import Selection

AGAINST = (("reviewers", "the reviewers' consensus"), ("gold", "gold labels from the data"))


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _est(e: Estimate, scale: float = 100.0, digits: int = 1) -> str:
    if e.value is None:
        return "–"
    text = f"{scale * e.value:.{digits}f}"
    if e.low is not None and e.high is not None:
        text += f" [{scale * e.low:.{digits}f}, {scale * e.high:.{digits}f}]"
    return text


def _num(x: float | None, digits: int) -> str:
    return "–" if x is None else f"{x:,.{digits}f}"


def _mark(row: Row) -> str:
    return "best" if row.best else ("~best" if row.near_best else "")


#: (header, tooltip, cell) per column, in the order `tiebreak judges --against` prints.
COLUMNS: tuple[tuple[str, str, Callable[[Row], str]], ...] = (
    ("", "best: the best row; ~best: its difference's interval holds 0", _mark),
    ("judge", "the judge (or jury) whose verdicts are scored", lambda r: shown(r.name)),
    ("orders", "one order, or both (conservative as MT-bench, or averaged)", lambda r: r.use.value),
    (
        "pairs",
        "pairs with a reference this configuration was asked about",
        lambda r: f"{r.pairs:,}",
    ),
    (
        "JudgeBench",
        "JudgeBench's rule: the orders' votes must sum toward the reference",
        lambda r: _est(r.judgebench),
    ),
    (
        "RewardBench",
        "RewardBench's rule: a tie or no verdict scores 0.5",
        lambda r: _est(r.rewardbench),
    ),
    (
        "MT-bench w/o ties",
        "agreement where neither side said tie (MT-bench)",
        lambda r: _est(r.mtbench),
    ),
    ("κ", "Cohen's kappa against the reference", lambda r: _est(r.kappa, 1, 3)),
    ("π", "Scott's pi against the reference", lambda r: _est(r.pi, 1, 3)),
    ("vs best", "difference to the best row, on the same resamples", lambda r: _est(r.difference)),
    ("consistent", "pairs whose two orders agree", lambda r: _pct(r.consistency)),
    (
        "prefer first",
        "decisive votes naming the response shown first",
        lambda r: _pct(r.prefer_first),
    ),
    (
        "parse fail",
        "answers whose verdict could not be read",
        lambda r: _pct(r.parse_failure_share),
    ),
    ("errors", "answers that failed", lambda r: _pct(r.error_share)),
    ("tokens/pair", "tokens per pair, where counted", lambda r: _num(r.tokens_per_pair, 0)),
    ("s/pair", "seconds per pair, where timed", lambda r: _num(r.seconds_per_pair, 2)),
    ("$/pair", "cost per pair, from the profile's price", lambda r: _num(r.cost_per_pair, 6)),
)


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
        self.notes = PlainLabel("")
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
        level = f"{100 * (1 - t.alpha):g}%"
        self.heading.setText(
            f"{shown(selection.rubric)} · {shown(selection.dimension)} · against"
            f" {selection.against}: {t.pairs:,} pairs with a reference; {level} intervals"
            f" from {t.rounds:,} paired resamples; best by {t.primary.value}"
        )
        self.model.show_rows(t.rows)
        self.notes.setText("\n".join(t.notes))
        self.notes.setVisible(bool(t.notes))

    def show_failure(self, message: str) -> None:
        self.heading.setText(message)
        self.model.show_rows([])
        self.notes.hide()
