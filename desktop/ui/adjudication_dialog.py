"""The adjudication view (V): every reviewer's current row on each dimension of one pair,
side by side (verdict, mode, time, note), and what the rows make of it (the label, or a
dispute). A, B, T or X settles the selected dimension; the verdict is recorded as
adjudicated, by the window's reviewer, and becomes the dimension's label."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from desktop.domain.labels import Label
from desktop.domain.pair_record import ReviewerVerdict
from desktop.domain.shown_text import shown
from desktop.domain.verdicts import Mark, Verdict
from desktop.ui.dialogs import lay_out
from desktop.ui.plain_text import PlainLabel

COLUMNS = ("dimension", "reviewer", "verdict", "mode", "time", "note")
KEYS = {"A": Verdict.A, "B": Verdict.B, "T": Verdict.TIE, "X": Mark.BOTH_BAD}


def label_text(label: Label | None) -> str:
    if label is None or (label.verdict is None and not label.disputed):
        return "no verdict yet"
    if label.disputed:
        return "dispute: no majority"
    return f"label {label.answer} ({label.source})"


class AdjudicationDialog(QDialog):
    settled = Signal(str, object)  # dimension, Verdict | Mark

    def __init__(self, parent: QWidget, dimensions: Sequence[str]) -> None:
        super().__init__(parent)
        self.setWindowTitle("Adjudicate this pair")
        self.dimensions = tuple(dimensions)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        hint = PlainLabel(
            "A, B, T or X (both bad) settles the selected dimension as adjudicator; Escape closes"
        )
        lay_out(self, [self.table, hint], QDialogButtonBox.StandardButton.Close)
        for key, answer in KEYS.items():
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.activated.connect(lambda a=answer: self._settle(a))
        self.resize(820, 360)

    def show_reviews(self, reviews: Sequence[ReviewerVerdict], labels: Mapping[str, Label]) -> None:
        """One line per dimension with its label, then one per reviewer's row on it."""
        keep = self.selected_dimension()
        self.table.setRowCount(0)
        by_dim: dict[str, list[ReviewerVerdict]] = {}
        for review in reviews:
            by_dim.setdefault(review.dimension, []).append(review)
        for dim in self.dimensions:
            self._add_row(dim, [dim, "", label_text(labels.get(dim)), "", "", ""], bold=True)
            for r in by_dim.get(dim, []):
                verdict = r.answer or "withdrawn"
                cells = [dim, r.reviewer, verdict, r.mode or "", r.created_at, r.note or ""]
                self._add_row(dim, cells)
        self.table.resizeColumnsToContents()
        self.select(keep or (self.dimensions[0] if self.dimensions else None))

    def _add_row(self, dim: str, cells: list[str], *, bold: bool = False) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        for col, text in enumerate(cells):
            item = QTableWidgetItem(shown(text))
            item.setData(Qt.ItemDataRole.UserRole, dim)
            if bold:
                font = item.font()
                font.setBold(True)
                item.setFont(font)
            self.table.setItem(row, col, item)

    def select(self, dimension: str | None) -> None:
        for row in range(self.table.rowCount()):
            item = self.table.item(row, 0)
            if item is not None and item.data(Qt.ItemDataRole.UserRole) == dimension:
                self.table.selectRow(row)
                self.table.setFocus()
                return

    def selected_dimension(self) -> str | None:
        item = self.table.item(self.table.currentRow(), 0)
        value = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        return value if isinstance(value, str) else None

    def row_texts(self) -> list[list[str]]:
        """What the table shows, row by row (for tests and a screen reader's check)."""
        return [
            [(self.table.item(r, c) or QTableWidgetItem()).text() for c in range(len(COLUMNS))]
            for r in range(self.table.rowCount())
        ]

    def _settle(self, answer: Verdict | Mark) -> None:
        dim = self.selected_dimension()
        if dim is not None:
            self.settled.emit(dim, answer)
