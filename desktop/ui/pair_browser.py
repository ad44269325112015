"""The left side of the window: the search box, the filter and the pair list, and moving
through the list (J, K, U, F). Choosing a row asks for that pair to be shown."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.services.pair_list import FILTERS, ListRow
from desktop.ui.context import WindowContext
from desktop.ui.enter_field import EnterField
from desktop.ui.pair_list import COLUMN_WIDTHS, PairListModel
from desktop.ui.shortcuts import Shortcuts


class PairBrowser(QWidget):
    pairChosen = Signal(object)  # the id of the pair to show; None: the list is empty

    def __init__(self, context: WindowContext) -> None:
        super().__init__()
        self.context = context
        self.search = EnterField()
        self.search.setPlaceholderText("search…")
        self.search.setClearButtonEnabled(True)
        self.search_timer = QTimer(self, singleShot=True, interval=200)
        self.search_timer.timeout.connect(self.new_query)
        self.search.textChanged.connect(lambda _: self.search_timer.start())
        self.search.returnPressed.connect(self.new_query)  # Enter: now, not after the pause
        self.filter = QComboBox()
        self.filter.addItems(FILTERS)
        self.filter.currentTextChanged.connect(lambda _: self.new_query())
        self.model = PairListModel(self._fetch_rows)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header = self.table.horizontalHeader()
        # Fixed sizes: sizing to contents would read every loaded row on each change.
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setMinimumSectionSize(32)  # the stretched status column may be narrow
        header.setDefaultSectionSize(60)
        header.setStretchLastSection(True)
        header.setHighlightSections(False)  # the titles stay plain whichever row is chosen
        for column, width in enumerate(COLUMN_WIDTHS):
            self.table.setColumnWidth(column, width)
        self.table.selectionModel().currentRowChanged.connect(
            lambda current, _: self._row_chosen(current.row())
        )
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.filter)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 0, 4)
        layout.addLayout(top)
        layout.addWidget(self.table)

    def bind(self, shortcuts: Shortcuts) -> None:
        shortcuts.bind("next_pair", self.next_pair)
        shortcuts.bind("previous_pair", self.previous_pair)
        shortcuts.bind("next_unreviewed", lambda: self._step_to(lambda r: not r.mine))
        shortcuts.bind("next_flagged", lambda: self._step_to(lambda r: r.flagged))
        shortcuts.bind("focus_search", self.focus_search)

    # ---- the list ----------------------------------------------------------------------
    def _fetch_rows(self, after: int, limit: int) -> list[ListRow]:
        return self.context.session.rows(
            search=self.search.text().strip(),
            filter_name=self.filter.currentText(),
            after_id=after,
            limit=limit,
        )

    def new_query(self) -> None:
        """A changed search or filter starts at its first match, as a search does."""
        self.search_timer.stop()
        self.reload(keep=0)

    def reload(self, keep: int | None = None) -> None:
        """Read the list again and select the pair ``keep`` (default: the one shown), or
        the first row where the search or filter leaves it out."""
        current = self.context.session.current
        keep = keep if keep is not None else (current.id if current else None)
        self.model.reset()
        # Rows come in id order: stop at the first id past the one to keep, so a pair the
        # search or filter leaves out never makes the list load every page.
        row = self.model.fetch_all_until(lambda r: r.id >= keep, 0) if keep else None
        if row is not None and self.model.row_at(row).id != keep:
            row = 0
        self._select(row if row is not None else 0)

    def show_in_all(self, pair_id: int) -> None:
        """Select ``pair_id`` in the whole list: no search, no filter."""
        self.search.clear()
        self.search_timer.stop()  # not a query the reviewer typed: nothing to run later
        self.filter.setCurrentText("all")
        self.reload(keep=pair_id)

    def update_row(self, row: ListRow) -> None:
        """Show ``row``'s new status, if it is loaded."""
        self.model.replace_row(row)

    def loaded(self, pair_ids: Iterable[int]) -> list[int]:
        """Those of ``pair_ids`` whose rows the list has loaded."""
        return [p for p in pair_ids if self.model.index_of(p) is not None]

    def focus(self) -> None:
        """The keys act on pairs (not on the search box) while the list has the focus."""
        self.table.setFocus()

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    # ---- moving ------------------------------------------------------------------------
    def next_pair(self) -> None:
        self._step(1)

    def previous_pair(self) -> None:
        self._step(-1)

    def _step(self, step: int) -> None:
        target = self.table.currentIndex().row() + step
        root = self.table.rootIndex()
        if step > 0 and target >= self.model.rowCount() and self.model.canFetchMore(root):
            self.model.fetchMore(root)
        if 0 <= target < self.model.rowCount():
            self._select(target)

    def _step_to(self, wanted: Callable[[ListRow], bool]) -> None:
        """On to the next row that is ``wanted``, loading pages as needed."""
        found = self.model.fetch_all_until(wanted, self.table.currentIndex().row() + 1)
        if found is None:
            self.context.say("no further pair of that kind", 3000)
        else:
            self._select(found)

    def _select(self, row: int) -> None:
        if self.model.rowCount() == 0:
            self.pairChosen.emit(None)
            return
        row = max(0, min(row, self.model.rowCount() - 1))
        self.table.selectRow(row)
        self.table.scrollTo(self.model.index(row, 0))
        self._row_chosen(row)

    def _row_chosen(self, row: int) -> None:
        list_row = self.model.row_at(row)
        current = self.context.session.current
        if list_row is None or (current and current.id == list_row.id):
            return
        self.pairChosen.emit(list_row.id)
