"""The pair list as the review window shows it: a page of rows with their flags, searched
and filtered, and the status bar's counts. No Qt here; the window only displays it."""

from __future__ import annotations

from collections.abc import Collection, Generator
from typing import NamedTuple

from desktop.adapters.store import pair_counts, pair_filters, search_index
from desktop.adapters.store.pair_reader import (
    LIST_COLUMNS,
    STEP_LIST_COLUMNS,
    Condition,
    Ordering,
    PairQuery,
    read_pairs,
)
from desktop.adapters.store.pair_steps import COUNT_COLUMNS, holds_trajectories
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
#: The filters a project of trajectories adds: by what the tools did (see pair_filters).
STEP_FILTERS = tuple(pair_filters.STEP_FILTERS)


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
    # A trajectory pair's counts per side (steps, tool calls, errors its tools returned);
    # None for a pair that is none, and in a project without trajectories.
    steps_a: int | None = None
    steps_b: int | None = None
    calls_a: int | None = None
    calls_b: int | None = None
    errors_a: int | None = None
    errors_b: int | None = None

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
    the page is full. ``mine`` is ``reviewer``'s own verdicts. A project that holds
    trajectories gives each row its counts, searches their steps too, and takes the
    filters of STEP_FILTERS."""
    policy = policy_named(store, rubric, judge_model)
    steps = holds_trajectories(store.conn)
    query = PairQuery(rubric, policy.judges, STEP_LIST_COLUMNS if steps else LIST_COLUMNS)
    filters = (
        pair_filters.in_category(category) if category is not None else None,
        pair_filters.by_generator(generator) if generator is not None else None,
        pair_filters.by_steps(filter_name),
    )
    if search and search_index.indexed(search) and not ids and order is None:
        return _searched(
            store, query, policy, search, filters, after_id, limit, reviewer, filter_name, steps
        )
    found = search_index.text_search(search, steps=steps) if search else None
    where = pair_filters.all_of(found, *filters)
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
    steps: bool,
) -> list[ListRow]:
    """A page of an indexed search in id order: the index's candidates a window at a
    time, each checked against its text (``scan_search``) and the filters. Windows, not
    all the candidates at once: a common word's first page costs the same at a million
    pairs as at a thousand."""
    where = pair_filters.all_of(search_index.scan_search(search, steps=steps), *filters)
    rows: list[ListRow] = []
    after, size = after_id, _WINDOWS[0]
    while len(rows) < limit:
        window, more = search_index.candidates(store, search, after, size, steps=steps)
        size = min(size * 2, _WINDOWS[1])
        if window:
            records = read_pairs(store, query, ids=window, where=where)
            _fill(rows, records, policy, reviewer, filter_name, limit)
        if not more:
            break
        after = window[-1]
    return rows


def search_uses_index(text: str) -> bool:
    """Whether the list's search for ``text`` goes through the full-text index (its
    candidates) rather than reading every pair, which the window says it does."""
    return search_index.indexed(text)


def list_row(view: PairView) -> ListRow:
    fields = view.record.fields
    steps = len(fields) > len(LIST_COLUMNS)
    counted = tuple(getattr(fields, name) for name in COUNT_COLUMNS) if steps else ()
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
        *counted,
    )


#: The list's columns a reviewer may sort by, and the key each sorts on (a trajectory's
#: counts by both sides together).
SORTS = {
    "#": "id",
    "id": "external_id",
    "category": "category",
    "steps": "steps",
    "calls": "calls",
    "errors": "errors",
}


def both_sides(row: ListRow, kind: str) -> int:
    """A row's count of ``kind`` (steps, calls, errors) on both sides, as the list sorts
    by it: -1 for a pair that is no trajectory."""
    a, b = getattr(row, f"{kind}_a"), getattr(row, f"{kind}_b")
    return -1 if a is None or b is None else a + b


def ordering(column: str, descending: bool, last: ListRow | None) -> Ordering:
    """The order of the list sorted by ``column`` (a key of SORTS), read on after
    ``last``, the last row it holds."""
    key = SORTS[column]
    if last is None:
        return Ordering(key, descending)
    if key in ("steps", "calls", "errors"):
        return Ordering(key, descending, (both_sides(last, key), last.id))
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
    }.get(filter_name, True)  # a STEP_FILTERS name is a condition in SQL


def counts(store: ProjectStore, rubric: str, judge_model: str | None) -> pair_counts.PairCounts:
    """(pairs, judged, reviewed) for the status bar, counted in SQL by the rules the list
    marks rows with (see ``pair_counts``); a kept jury's pairs are those a juror judged."""
    got = pair_counts.pair_counts(store, rubric, judge_model)
    if named_jury(store, rubric, judge_model) is None:
        return got
    assert judge_model is not None
    return got._replace(judged=jury_pairs(store, rubric, judge_model))
