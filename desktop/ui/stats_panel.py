"""The agreement view: per dimension, how often the judge agrees with the reviewers, with
the confusion matrix as a heat map and agreement as bars; saved as PNG on request.

Figures come from the same service as `tiebreak stats`, computed off the GUI thread."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.domain.shown_text import shown
from desktop.services.figure_formats import h2h_sentence, pct, win_sentence
from desktop.services.figures import AGREEMENT, WINDOW_AGREEMENT, by_name
from desktop.ui.plain_text import PlainLabel

if TYPE_CHECKING:  # the figures' module loads when they are first computed
    from desktop.services.stats import DimensionStats, Section, Stats

FIGURES = by_name(AGREEMENT, WINDOW_AGREEMENT)
COLUMNS = ("dimension", *(f.window_label or f.label for f in FIGURES))
COLUMN_TIPS = ("", *(f.tip for f in FIGURES))
BAR_COLUMN = 1 + WINDOW_AGREEMENT.index("agree")
LABELS = ("A", "B", "tie")


def _sides(s: Section) -> tuple[str, str]:
    """How B and A are named: the generator and the baseline, where the pairs name one."""
    b = f"{s.generator} (B)" if s.generator else "B"
    return b, (f"{s.baseline} (A)" if s.baseline else "A")


class _BarDelegate(QStyledItemDelegate):
    """Agreement drawn as a bar behind its number, so weak dimensions stand out."""

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        share = index.data(Qt.ItemDataRole.UserRole)
        if isinstance(share, float):
            rect = QRect(option.rect.adjusted(2, 3, -2, -3))
            rect.setWidth(int(rect.width() * max(0.0, min(1.0, share))))
            color = option.palette.color(QPalette.ColorRole.Highlight)
            color.setAlpha(110)
            painter.fillRect(rect, color)
        super().paint(painter, option, index)


class StatsPanel(QWidget):
    refreshRequested = Signal()
    savePng = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = PlainLabel("No figures yet.")
        self.heading.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        for col, tip in enumerate(COLUMN_TIPS):
            header = self.table.horizontalHeaderItem(col)  # made by the labels above
            if header is not None:
                header.setToolTip(tip)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setItemDelegateForColumn(BAR_COLUMN, _BarDelegate(self.table))
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.currentCellChanged.connect(lambda row, *_: self._show_matrix(row))
        self.matrix_title = PlainLabel(lines=True)  # its names are shown() where put in
        self.matrix_title.setWordWrap(True)
        self.matrix = QTableWidget(3, 3)
        self.matrix.setHorizontalHeaderLabels([f"human {v}" for v in LABELS])
        self.matrix.setVerticalHeaderLabels([f"judge {v}" for v in LABELS])
        self.matrix.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.matrix.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.matrix.setMaximumHeight(130)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refreshRequested.emit)
        save = QPushButton("Save as PNG…")
        save.clicked.connect(self.savePng.emit)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(refresh)
        buttons.addWidget(save)
        self.section = QComboBox()  # all pairs, or one category
        self.section.currentTextChanged.connect(lambda _: self._show_section())
        self.section.hide()
        self._stats: Stats | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(self.section)
        layout.addWidget(self.heading)
        layout.addWidget(self.table, 2)
        layout.addWidget(self.matrix_title)
        layout.addWidget(self.matrix, 1)
        layout.addLayout(buttons)
        self._dims: list[DimensionStats] = []
        self._section: Section | None = None

    def show_stats(self, stats: Stats) -> None:
        self._stats = stats
        chosen = self.section.currentData()
        names = ["all pairs", *(c.name for c in stats.categories)]
        self.section.blockSignals(True)
        self.section.clear()
        for name in names:  # a category is the data's text
            self.section.addItem(shown(name), name)
        self.section.setCurrentIndex(max(0, self.section.findData(chosen)))
        self.section.blockSignals(False)
        self.section.setVisible(len(names) > 1)
        self._show_section()

    def _show_section(self) -> None:
        stats = self._stats
        if stats is None:
            return
        name = self.section.currentData()
        s = next((c for c in stats.categories if c.name == name), stats.overall)
        self._section = s
        self.heading.setText(
            f"{stats.rubric} · judge {stats.judge_model or 'none'} · {s.pairs:,} pairs,"
            f" {s.judged:,} judged, {s.reviewed:,} reviewed · parse failures"
            f" {pct(s.parse_failure_rate)}" + (f" · {note}" if (note := s.labels_note()) else "")
        )
        self._dims = list(s.dimensions)
        self.table.setRowCount(len(self._dims))
        for row, d in enumerate(self._dims):
            a = d.vs_human
            cells = (shown(d.dimension), *(f.window_cell(d) for f in FIGURES))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col == BAR_COLUMN and a.agreement is not None:
                    item.setData(Qt.ItemDataRole.UserRole, float(a.agreement))
                self.table.setItem(row, col, item)
        # Wide enough for every column: the dock takes the width, the table never scrolls.
        header = self.table.horizontalHeader()
        self.table.setMinimumWidth(header.length() + 2 * self.table.frameWidth() + 4)
        if self._dims:  # the first dimension with figures to show
            first = next((i for i, d in enumerate(self._dims) if d.vs_human.n), 0)
            self.table.setCurrentCell(first, 0)
            self._show_matrix(first)

    def _show_matrix(self, row: int) -> None:
        if not 0 <= row < len(self._dims):
            return
        d = self._dims[row]
        confusion = d.vs_human.confusion
        peak = max((v for line in confusion for v in line), default=0) or 1
        modes = " · ".join(
            f"{mode} {pct(a.agreement)} of {a.n:,}" for mode, a in sorted(d.by_mode.items())
        )
        b, a = _sides(self._section) if self._section else ("B", "A")
        self.matrix_title.setText(
            f"{shown(d.dimension)}: {shown(b)} wins {h2h_sentence(d.judge_h2h)} against {shown(a)}"
            " by the judge,"
            f" {win_sentence(d.human_win)} by the humans"
            + (f"\nagreement by how the reviewer decided: {modes}" if modes else "")
            + f"\njudge × human, {d.vs_human.n:,} pairs:"
        )
        for i in range(3):
            for j in range(3):
                value = confusion[i][j] if i < len(confusion) and j < len(confusion[i]) else 0
                item = QTableWidgetItem(f"{value:,}")
                item.setTextAlignment(Qt.AlignmentFlag.AlignCenter)
                shade = QColor(40, 110, 200) if i == j else QColor(210, 70, 60)
                shade.setAlpha(int(30 + 200 * value / peak))
                item.setBackground(shade)
                self.matrix.setItem(i, j, item)
