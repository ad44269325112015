"""The pair list: a Qt table model that pages through SQLite as the view scrolls."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from desktop.domain.shown_text import shown
from desktop.services.pair_list import SORTS, ListRow

HEADERS = ("#", "id", "category", "status")
COLUMN_WIDTHS = (44, 80, 84)  # status, last, takes the rest: the list never scrolls sideways
PAGE = 500
FIRST_PAGE = 60  # a screenful: the first pair paints without waiting for the rest
Index = QModelIndex | QPersistentModelIndex
#: ``fetch(last, limit)``: the rows after ``last`` (None: from the start), in the list's order.
Fetch = Callable[[ListRow | None, int], list[ListRow]]


def status_text(row: ListRow) -> str:
    """J judged, H reviewed by a human, D a dispute (reviewers split, no majority), ! judge
    and human disagree, ~ orders disagree, ? parse failure, E error, s skipped by you
    (decide later), X broken (out of every figure)."""
    marks = []
    if row.status == "error":
        marks.append("E")
    elif row.status == "parse-failure":
        marks.append("?")
    elif row.judged:
        marks.append("J")
    if row.reviewed:
        marks.append("H")
    if row.disputed:
        marks.append("D")
    if row.broken:
        marks.append("X")
    elif row.skipped:
        marks.append("s")
    if row.disagree:
        marks.append("!")
    if row.inconsistent:
        marks.append("~")
    return "  ".join(marks)


class PairListModel(QAbstractTableModel):
    """Rows come from ``fetch(last, limit)``; only pages the view reaches are loaded. A
    click on a column's title sorts the whole list by it (in SQL, page by page: see
    ``sort``); the status column is filtered (the filter list), not sorted."""

    def __init__(self, fetch: Fetch) -> None:
        super().__init__()
        self._fetch = fetch
        self.sort_column, self.descending = HEADERS[0], False
        self._rows: list[ListRow] = []
        self._positions: dict[int, int] = {}  # pair id -> row
        self._exhausted = False

    def reset(self, fetch: Fetch | None = None) -> None:
        self.beginResetModel()
        if fetch is not None:
            self._fetch = fetch
        self._rows = []
        self._positions = {}
        self._exhausted = False
        self.endResetModel()
        self.fetchMore(QModelIndex())

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(HEADERS)

    def canFetchMore(self, parent: Index) -> bool:
        return not parent.isValid() and not self._exhausted

    def fetchMore(self, parent: Index) -> None:
        if parent.isValid() or self._exhausted:
            return
        size = PAGE if self._rows else FIRST_PAGE
        page = self._fetch(self._rows[-1] if self._rows else None, size)
        if len(page) < size:
            self._exhausted = True
        if page:
            self.beginInsertRows(QModelIndex(), len(self._rows), len(self._rows) + len(page) - 1)
            for row in page:
                self._positions[row.id] = len(self._rows)
                self._rows.append(row)
            self.endInsertRows()

    @property
    def sorted(self) -> bool:
        """Sorted other than by # ascending (the list's own order)."""
        return self.sort_column != HEADERS[0] or self.descending

    def sortable(self, column: int) -> bool:
        return HEADERS[column] in SORTS

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the whole list (what the project holds, not the rows loaded so far)."""
        if not self.sortable(column):
            return
        descending = order == Qt.SortOrder.DescendingOrder
        if (HEADERS[column], descending) != (self.sort_column, self.descending):
            self.sort_column, self.descending = HEADERS[column], descending
            self.reset()

    def fetch_all_until(self, predicate: Callable[[ListRow], bool], start: int) -> int | None:
        """The first row index at or after ``start`` matching, loading pages as needed."""
        index = start
        while True:
            while index < len(self._rows):
                if predicate(self._rows[index]):
                    return index
                index += 1
            if self._exhausted:
                return None
            self.fetchMore(QModelIndex())

    def row_at(self, index: int) -> ListRow | None:
        return self._rows[index] if 0 <= index < len(self._rows) else None

    def index_of(self, pair_id: int) -> int | None:
        return self._positions.get(pair_id)

    def replace_row(self, row: ListRow) -> None:
        i = self.index_of(row.id)
        if i is not None:
            self._rows[i] = row
            self.dataChanged.emit(self.index(i, 0), self.index(i, len(HEADERS) - 1))

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:  # an id and a category are the data's
            if index.column() == 0:
                return row.id
            texts = (row.external_id or "", row.category or "", status_text(row))
            return shown(texts[index.column() - 1])
        if role == Qt.ItemDataRole.ToolTipRole and index.column() == 3:
            return status_text.__doc__
        return None

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        return None
