"""The left side of the window: the search box, the filters and the pair list, and moving
through the list (J, K, U, F, Ctrl+G). Choosing a row asks for that pair to be shown.

No field or list here keeps the keys: Enter in the search box goes to its first match and
Escape leaves it, and a filter's list, once closed, hands the keys back to the pair list."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.services.changes import ANY_PAIR, Change
from desktop.services.pair_list import (
    FILTERS,
    STEP_FILTERS,
    ListRow,
    ordering,
    search_uses_index,
)
from desktop.services.review_position import saved_position
from desktop.ui.context import WindowContext
from desktop.ui.enter_field import EnterField
from desktop.ui.go_to_pair import GoToPair
from desktop.ui.layout_queue import layout_queue
from desktop.ui.pair_list import COLUMN_WIDTHS, HEADERS, PairListModel
from desktop.ui.picker_box import PickerBox
from desktop.ui.shortcuts import Shortcuts

AHEAD_MS = 16  # reading ahead waits a frame: the pair shown is painted first


class PairBrowser(QWidget):
    pairChosen = Signal(object)  # the id of the pair to show; None: the list is empty
    searchChanged = Signal(str)  # the text the list is searched for now ("" for none)

    def __init__(self, context: WindowContext) -> None:
        super().__init__()
        self.context = context
        self.search = EnterField()
        self.search.setPlaceholderText("search…")
        self.search.setClearButtonEnabled(True)
        self.search_timer = QTimer(self, singleShot=True, interval=200)
        self.search_timer.timeout.connect(self.new_query)
        self.search.textChanged.connect(lambda _: self.search_timer.start())
        self.search.returnPressed.connect(self._search_entered)
        self.ahead_timer = QTimer(self, singleShot=True, interval=AHEAD_MS)
        self.ahead_timer.timeout.connect(self._read_ahead)
        self.search.escaped.connect(self.focus)
        self.goto = GoToPair(context)  # Ctrl+G: a pair by its # or its id
        self.goto.chosen.connect(self.go_to)
        self.goto.left.connect(self.focus)
        self.filter = PickerBox()
        self.filter.addItems(FILTERS)
        self.filter.currentTextChanged.connect(lambda _: self.new_query())
        self.category = PickerBox()
        self.category.setToolTip("only pairs of this category")
        self.generator = PickerBox()
        self.generator.setToolTip("only pairs where this model wrote response A or B")
        for box, everything in ((self.category, "all categories"), (self.generator, "all models")):
            box.addItem(everything, None)
            box.setSizeAdjustPolicy(
                PickerBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            box.setMinimumContentsLength(8)
            box.currentIndexChanged.connect(lambda _: self.new_query())
        for box in (self.filter, self.category, self.generator):
            box.closed.connect(self.keys_back)
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
        header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
        header.sortIndicatorChanged.connect(self._sort_chosen)
        self.table.setSortingEnabled(True)  # a click on a title sorts (the model, in SQL)
        for column, width in enumerate(COLUMN_WIDTHS):
            self.table.setColumnWidth(column, width)
        self.table.selectionModel().currentRowChanged.connect(
            lambda current, _: self._row_chosen(current.row())
        )
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.filter)
        below = QHBoxLayout()
        below.addWidget(self.category, 1)
        below.addWidget(self.generator, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 0, 4)
        layout.addLayout(top)
        layout.addWidget(self.goto)
        layout.addLayout(below)
        layout.addWidget(self.table)
        context.changed.connect(self._changed)

    def bind(self, shortcuts: Shortcuts) -> None:
        shortcuts.bind("next_pair", self.next_pair)
        shortcuts.bind("previous_pair", self.previous_pair)
        shortcuts.bind("next_unreviewed", self.next_unreviewed)
        shortcuts.bind("next_flagged", lambda: self._step_to(lambda r: r.flagged))
        shortcuts.bind("focus_search", self.focus_search)
        shortcuts.bind("go_to_pair", self.goto.ask)

    # ---- the list ----------------------------------------------------------------------
    def _changed(self, change: Change) -> None:
        """A project opened: its filters, and the pair the reviewer was on. Pairs added:
        the filters (new categories, models) and the rows. Other verdicts shown: the rows.
        Verdicts written: the rows loaded of the pairs they are on (the pair shown, and its
        row, follow in PairDisplay)."""
        session = self.context.session
        if change.project:
            self.setEnabled(True)
            self.show_steps()
            self.fill_filters()
            self.reload(keep=saved_position(session.store))
            self.focus()  # the keys act on pairs from the start, not on the search box
        elif change.pairs_added:
            self.show_steps()
            self.fill_filters()
            self.reload()
        elif change.shown or (change.verdicts and change.pairs is ANY_PAIR):
            self.reload()
        elif change.verdicts and change.pairs:
            current = session.current.id if session.current else None
            others = self.loaded(p for p in change.pairs if p != current)
            for row in session.list_rows_for(others):  # rows not loaded cost nothing
                self.update_row(row)

    def _fetch_rows(self, last: ListRow | None, limit: int) -> list[ListRow]:
        model = self.model
        order = ordering(model.sort_column, model.descending, last) if model.sorted else None
        return self.context.session.rows(
            search=self.search.text().strip(),
            filter_name=self.filter.currentText(),
            after_id=last.id if last is not None and order is None else 0,
            limit=limit,
            category=self.category.currentData(),
            generator=self.generator.currentData(),
            order=order,
        )

    def new_query(self) -> None:
        """A changed search or filter starts at its first match, as a search does."""
        self.search_timer.stop()
        text = self.search.text().strip()
        if text and not search_uses_index(text):
            self.context.say(
                "searching every pair: one or two characters are not in the search index", 4000
            )
        self.reload(keep=0)
        self.searchChanged.emit(text)

    def show_steps(self) -> None:
        """A project of trajectories: each pair's steps, tool calls and tool errors as
        columns (sorted by a click on the title) and the filters by what the tools did;
        none of them for any other project."""
        on = self.context.session.holds_trajectories()
        if self.model.show_steps(on):
            for column, width in enumerate(self.model.widths()):
                self.table.setColumnWidth(column, width)
        offered = FILTERS + STEP_FILTERS if on else FILTERS
        if tuple(self.filter.itemText(i) for i in range(self.filter.count())) != offered:
            chosen = self.filter.currentText()
            self.filter.blockSignals(True)
            self.filter.clear()
            self.filter.addItems(offered)
            self.filter.setCurrentIndex(max(0, self.filter.findText(chosen)))
            self.filter.blockSignals(False)

    def fill_filters(self) -> None:
        """The categories and generators of the project, the one chosen kept if it is
        still there (after an import, say)."""
        categories, generators = self.context.session.filter_values()
        for box, values in ((self.category, categories), (self.generator, generators)):
            chosen = box.currentData()
            box.blockSignals(True)
            while box.count() > 1:
                box.removeItem(1)
            for value in values:
                box.addItem(value or "(no category)", value)
            box.setCurrentIndex(max(0, box.findData(chosen)) if chosen is not None else 0)
            box.blockSignals(False)

    def _sort_chosen(self, column: int, order: Qt.SortOrder) -> None:
        """The status column's title shows no sort: it is not one (see PairListModel)."""
        if not self.model.sortable(column):
            header = self.table.horizontalHeader()
            header.blockSignals(True)
            header.setSortIndicator(
                list(self.model.headers).index(self.model.sort_column),
                Qt.SortOrder.DescendingOrder
                if self.model.descending
                else Qt.SortOrder.AscendingOrder,
            )
            header.blockSignals(False)
            self.context.say(
                "the status column is not sorted: choose a filter beside the search", 4000
            )

    def reload(self, keep: int | None = None) -> None:
        """Read the list again and select the pair ``keep`` (default: the one shown), or
        the first row where the search or filter leaves it out."""
        current = self.context.session.current
        keep = keep if keep is not None else (current.id if current else None)
        self.model.reset()
        # Rows come in id order: stop at the first id past the one to keep, so a pair the
        # search or filter leaves out never makes the list load every page. Sorted by
        # something else, the pair is kept if it is on the rows loaded.
        if keep and self.model.sorted:
            row = self.model.index_of(keep)
        else:
            row = self.model.fetch_all_until(lambda r: r.id >= keep, 0) if keep else None
        if row is not None:
            found = self.model.row_at(row)
            if found is None or found.id != keep:
                row = 0
        self._select(row if row is not None else 0)

    def show_in_all(self, pair_id: int) -> None:
        """Select ``pair_id`` in the whole list: no search, no filter."""
        self.search.clear()
        self.search_timer.stop()  # not a query the reviewer typed: nothing to run later
        for box in (self.filter, self.category, self.generator):
            box.blockSignals(True)
            box.setCurrentIndex(0)
            box.blockSignals(False)
        header = self.table.horizontalHeader()
        header.blockSignals(True)  # the list's own order, where the pair can be found
        header.setSortIndicator(0, Qt.SortOrder.AscendingOrder)
        header.blockSignals(False)
        self.model.sort_column, self.model.descending = HEADERS[0], False
        self.reload(keep=pair_id)
        self.searchChanged.emit("")

    def go_to(self, pair_id: int) -> None:
        """Select ``pair_id`` where the list shows it, else in the whole list."""
        row = self.model.index_of(pair_id)
        if row is not None:
            self._select(row)
        else:
            self.show_in_all(pair_id)
            self.context.say(f"pair #{pair_id}: search and filters cleared to show it", 4000)

    def update_row(self, row: ListRow) -> None:
        """Show ``row``'s new status, if it is loaded."""
        self.model.replace_row(row)

    def loaded(self, pair_ids: Iterable[int]) -> list[int]:
        """Those of ``pair_ids`` whose rows the list has loaded."""
        return [p for p in pair_ids if self.model.index_of(p) is not None]

    def focus(self) -> None:
        """The keys act on pairs (not on the search box) while the list has the focus."""
        self.table.setFocus()

    def keys_back(self) -> None:
        """A list (a filter's, the judge picker's) closed: once Qt has put the focus back
        where it opened from, the keys go back to the pair list."""

        def back() -> None:
            self.window().activateWindow()  # the list was a window of its own while open
            self.focus()

        self.context.later(0, back)

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def _search_entered(self) -> None:
        """Enter: the search now (not after the pause), its first match shown, and the keys
        back on the list."""
        self.new_query()
        self.focus()

    # ---- moving ------------------------------------------------------------------------
    def next_pair(self) -> None:
        self._step(1)

    def previous_pair(self) -> None:
        self._step(-1)

    def _step(self, step: int) -> None:
        if not self.isEnabled():  # the project file is gone: the pair shown stays
            return
        target = self.table.currentIndex().row() + step
        root = self.table.rootIndex()
        if step > 0 and target >= self.model.rowCount() and self.model.canFetchMore(root):
            self.model.fetchMore(root)
        if 0 <= target < self.model.rowCount():
            self._select(target)

    def next_unreviewed(self) -> None:
        """U: the next pair without the reviewer's verdict (a broken one is done); the pairs
        they skipped only once no other is left after this one, then from the top."""
        if not self.isEnabled():
            return
        start = self.table.currentIndex().row() + 1
        found = self.model.fetch_all_until(
            lambda r: not r.mine and not r.skipped and not r.broken, start
        )
        if found is None:
            found = self.model.fetch_all_until(lambda r: not r.mine and r.skipped, start)
        if found is None:
            found = self.model.fetch_all_until(lambda r: not r.mine and r.skipped, 0)
        if found is None:
            self.context.say("no further pair of that kind", 3000)
        else:
            self._select(found)

    def _step_to(self, wanted: Callable[[ListRow], bool]) -> None:
        """On to the next row that is ``wanted``, loading pages as needed."""
        if not self.isEnabled():
            return
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
        self.ahead_timer.start()

    def _read_ahead(self) -> None:
        """The rows J and K go to from the one shown, read once the pair shown is laid out
        (its long texts go through the layout queue: reading ahead first would delay them)."""
        if not layout_queue().idle():
            self.ahead_timer.start()
            return
        row = self.table.currentIndex().row()
        near = [self.model.row_at(row + step) for step in (1, -1)]
        if self.isEnabled():
            self.context.session.read_ahead([r.id for r in near if r is not None])
