"""The pair list: a Qt table model that pages through SQLite as the view scrolls."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from desktop.domain.shown_text import shown
from desktop.services.pair_list import SORTS, ListRow

HEADERS = ("#", "id", "category", "status")
COLUMN_WIDTHS = (44, 80, 84)  # status, last, takes the rest: the list never scrolls sideways
#: The columns a project of trajectories adds before the status: each "A · B".
STEP_HEADERS = ("steps", "calls", "errors")
STEP_WIDTHS = (52, 52, 52)
STEP_TIP = (
    "{what} on side A · side B (a trajectory's messages after its task; tool calls; results"
    " its tools returned as errors). A click on the title sorts by both sides together."
)
_STEP_WHAT = {"steps": "Steps", "calls": "Tool calls", "errors": "Tool errors"}
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


def step_text(row: ListRow, kind: str) -> str:
    """A trajectory's count of ``kind`` (steps, calls, errors) as "A · B"; "" for a pair
    that is no trajectory."""
    a, b = getattr(row, f"{kind}_a"), getattr(row, f"{kind}_b")
    return "" if a is None or b is None else f"{a} · {b}"


class PairListModel(QAbstractTableModel):
    """Rows come from ``fetch(last, limit)``; only pages the view reaches are loaded. A
    click on a column's title sorts the whole list by it (in SQL, page by page: see
    ``sort``); the status column is filtered (the filter list), not sorted."""

    def __init__(self, fetch: Fetch) -> None:
        super().__init__()
        self._fetch = fetch
        self.headers: tuple[str, ...] = HEADERS
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

    def show_steps(self, on: bool) -> bool:
        """Show the trajectory columns (a project of trajectories) or not; whether that
        changed the columns. The list is read again by the caller."""
        headers = (*HEADERS[:-1], *STEP_HEADERS, HEADERS[-1]) if on else HEADERS
        if headers == self.headers:
            return False
        self.beginResetModel()
        self.headers = headers
        if self.sort_column not in headers:
            self.sort_column, self.descending = HEADERS[0], False
        self.endResetModel()
        return True

    def widths(self) -> tuple[int, ...]:
        """Each column's width but the last (the status, which takes the rest)."""
        return COLUMN_WIDTHS + (STEP_WIDTHS if len(self.headers) > len(HEADERS) else ())

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return len(self.headers)

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
        return self.headers[column] in SORTS

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort the whole list (what the project holds, not the rows loaded so far)."""
        if not self.sortable(column):
            return
        descending = order == Qt.SortOrder.DescendingOrder
        if (self.headers[column], descending) != (self.sort_column, self.descending):
            self.sort_column, self.descending = self.headers[column], descending
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
            self.dataChanged.emit(self.index(i, 0), self.index(i, len(self.headers) - 1))

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        name = self.headers[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:  # an id and a category are the data's
            if index.column() == 0:
                return row.id
            if name in STEP_HEADERS:
                return step_text(row, name)
            texts = {"id": row.external_id or "", "category": row.category or ""}
            return shown(texts[name]) if name in texts else status_text(row)
        if role == Qt.ItemDataRole.ToolTipRole:
            if name == "status":
                return status_text.__doc__
            if name in STEP_HEADERS:
                return STEP_TIP.format(what=_STEP_WHAT[name])
        return None

    def headerData(
        self,
        section: int,
        orientation: Qt.Orientation,
        role: int = Qt.ItemDataRole.DisplayRole,
    ) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            name = self.headers[section]
            return STEP_TIP.format(what=_STEP_WHAT[name]) if name in STEP_HEADERS else None
        return None
