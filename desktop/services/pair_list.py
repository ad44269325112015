"""The pair list as the review window shows it: a page of rows with their flags, searched
and filtered, and the status bar's counts. No Qt here; the window only displays it."""

from __future__ import annotations

from collections.abc import Collection, Generator
from typing import NamedTuple

from desktop.adapters.store import pair_counts, pair_filters, search_index
from desktop.adapters.store.pair_reader import (
    LIST_COLUMNS,
    Condition,
    Ordering,
    PairQuery,
    read_pairs,
)
from desktop.adapters.store.project import ProjectStore
from desktop.domain.judge_policy import JudgePolicy
from desktop.domain.pair_record import PairRecord
from desktop.domain.pair_view import PairView
from desktop.services.juries import jury_pairs, named_jury, policy_named

FILTERS = (
    "all",
    "unjudged",
    "unreviewed",
    "reviewed",
    "flagged",
    "disputed",
    "skipped",
    "broken",
    "disagree",
    "inconsistent",
    "parse-failure",
    "error",
)


class ListRow(NamedTuple):
    id: int
    external_id: str | None
    category: str | None
    judged: bool
    reviewed: bool  # some reviewer's current verdict on some dimension
    status: str  # "", "ok", "parse-failure", "error"
    inconsistent: bool
    disagree: bool  # the reviewers' consensus differs from the judge on some dimension
    mine: bool = False  # the current reviewer's own verdict on some dimension
    disputed: bool = False  # reviewers split with no majority on some dimension
    skipped: bool = False  # the current reviewer skipped it (decide later)
    broken: bool = False  # a reviewer marked it broken: out of every figure

    @property
    def flagged(self) -> bool:
        return (
            self.status in ("parse-failure", "error")
            or self.inconsistent
            or self.disagree
            or self.disputed
        )


def list_rows(
    store: ProjectStore,
    rubric: str,
    judge_model: str | JudgePolicy | None,
    *,
    search: str = "",
    filter_name: str = "all",
    after_id: int = 0,
    limit: int = 500,
    reviewer: str = "",
    ids: Collection[int] = (),
    category: str | None = None,
    generator: str | None = None,
    order: Ordering | None = None,
) -> list[ListRow]:
    """A page of the pair list, in id order (or ``order``'s), after ``after_id`` (and
    among ``ids``, if given); the search and the filters by ``category`` and ``generator``
    run in SQL, so a 100,000-pair project never loads whole, and the reading stops once
    the page is full. ``mine`` is ``reviewer``'s own verdicts."""
    policy = policy_named(store, rubric, judge_model)
    query = PairQuery(rubric, policy.judges, LIST_COLUMNS)
    filters = (
        pair_filters.in_category(category) if category is not None else None,
        pair_filters.by_generator(generator) if generator is not None else None,
    )
    if search and search_index.indexed(search) and not ids and order is None:
        return _searched(
            store, query, policy, search, filters, after_id, limit, reviewer, filter_name
        )
    where = pair_filters.all_of(search_index.text_search(search) if search else None, *filters)
    records = read_pairs(store, query, after_id=after_id, ids=ids or None, where=where, order=order)
    rows: list[ListRow] = []
    _fill(rows, records, policy, reviewer, filter_name, limit)
    return rows


def _fill(
    rows: list[ListRow],
    records: Generator[PairRecord, None, None],
    policy: JudgePolicy,
    reviewer: str,
    filter_name: str,
    limit: int,
) -> None:
    """Rows of ``records`` the filter keeps, until ``rows`` holds ``limit``."""
    try:
        for record in records:
            row = list_row(PairView(record, policy, reviewer))
            if _keep(row, filter_name):
                rows.append(row)
                if len(rows) >= limit:
                    break
    finally:
        records.close()


#: The index's candidates read at once: the first window small (a common word fills a page
#: from it), each next one twice as large, up to the last.
_WINDOWS = (128, 4096)


def _searched(
    store: ProjectStore,
    query: PairQuery,
    policy: JudgePolicy,
    search: str,
    filters: tuple[Condition | None, ...],
    after_id: int,
    limit: int,
    reviewer: str,
    filter_name: str,
) -> list[ListRow]:
    """A page of an indexed search in id order: the index's candidates a window at a
    time, each checked against its text (``scan_search``) and the filters. Windows, not
    all the candidates at once: a common word's first page costs the same at a million
    pairs as at a thousand."""
    where = pair_filters.all_of(search_index.scan_search(search), *filters)
    rows: list[ListRow] = []
    after, size = after_id, _WINDOWS[0]
    while len(rows) < limit:
        window, more = search_index.candidates(store, search, after, size)
        size = min(size * 2, _WINDOWS[1])
        if window:
            records = read_pairs(store, query, ids=window, where=where)
            _fill(rows, records, policy, reviewer, filter_name, limit)
        if not more:
            break
        after = window[-1]
    return rows


def list_row(view: PairView) -> ListRow:
    fields = view.record.fields
    return ListRow(
        fields.id,
        fields.external_id,
        fields.category,
        view.judged,
        view.reviewed,
        view.status,
        view.inconsistent,
        view.disagree,
        view.mine,
        bool(view.disputes()),
        view.skipped,
        view.broken,
    )


#: The list's columns a reviewer may sort by, and the key each sorts on.
SORTS = {"#": "id", "id": "external_id", "category": "category"}


def ordering(column: str, descending: bool, last: ListRow | None) -> Ordering:
    """The order of the list sorted by ``column`` (a key of SORTS), read on after
    ``last``, the last row it holds."""
    key = SORTS[column]
    if last is None:
        return Ordering(key, descending)
    value = {"id": last.id, "external_id": last.external_id, "category": last.category}[key]
    return Ordering(key, descending, (value if value is not None else "", last.id))


def _keep(row: ListRow, filter_name: str) -> bool:
    return {
        "all": True,
        "unjudged": not row.judged,
        "unreviewed": not row.reviewed,
        "reviewed": row.reviewed,
        "flagged": row.flagged,
        "disputed": row.disputed,
        "skipped": row.skipped,
        "broken": row.broken,
        "disagree": row.disagree,
        "inconsistent": row.inconsistent,
        "parse-failure": row.status == "parse-failure",
        "error": row.status == "error",
    }.get(filter_name, True)


def counts(store: ProjectStore, rubric: str, judge_model: str | None) -> pair_counts.PairCounts:
    """(pairs, judged, reviewed) for the status bar, counted in SQL by the rules the list
    marks rows with (see ``pair_counts``); a kept jury's pairs are those a juror judged."""
    got = pair_counts.pair_counts(store, rubric, judge_model)
    if named_jury(store, rubric, judge_model) is None:
        return got
    assert judge_model is not None
    return got._replace(judged=jury_pairs(store, rubric, judge_model))
