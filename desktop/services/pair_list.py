"""The pair list as the review window shows it: a page of rows with their flags, searched
and filtered, and the status bar's counts. No Qt here; the window only displays it."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import NamedTuple

from desktop.adapters.store import review_rows
from desktop.adapters.store.project import ProjectStore
from desktop.domain.dimension_view import human_consensus, judge_view, worst_status
from desktop.domain.verdicts import BY_VALUE, Verdict

FILTERS = (
    "all",
    "unjudged",
    "unreviewed",
    "reviewed",
    "flagged",
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

    @property
    def flagged(self) -> bool:
        return self.status in ("parse-failure", "error") or self.inconsistent or self.disagree


def list_rows(
    store: ProjectStore,
    rubric: str,
    judge_model: str | None,
    *,
    search: str = "",
    filter_name: str = "all",
    after_id: int = 0,
    limit: int = 500,
    reviewer: str = "",
    ids: Collection[int] = (),
) -> list[ListRow]:
    """A page of the pair list, in id order, after ``after_id`` (and among ``ids``, if
    given); filters run in SQL so a 100,000-pair project never loads whole. ``mine`` is
    ``reviewer``'s own verdicts."""
    cursor = review_rows.list_page(
        store,
        rubric,
        judge_model,
        search=search,
        after_id=after_id,
        limit=limit,
        reviewer=reviewer,
        ids=ids,
    )
    rows: list[ListRow] = []
    for pid, ext, category, judged_raw, human_raw in cursor:
        row = _list_row(pid, ext, category, judged_raw, human_raw, reviewer)
        if _keep(row, filter_name):
            rows.append(row)
            if len(rows) >= limit:
                break
    cursor.close()
    return rows


def _list_row(
    pid: int,
    ext: str | None,
    category: str | None,
    judged_raw: str | None,
    human_raw: str | None,
    reviewer: str,
) -> ListRow:
    status, inconsistent, judged = "", False, False
    judge: dict[str, Verdict] = {}
    if judged_raw:
        parts = {}
        for item in judged_raw.split("|"):
            order, state, verdicts = item.split(":", 2)
            parts[order] = (state, json.loads(verdicts) if verdicts else {})
        states = [s for s, _ in parts.values()]
        status = worst_status(states)
        judged = any(s != "error" for s in states)  # an error is no answer
        ab = parts.get("AB", ("", {}))[1]
        ba = parts.get("BA", ("", {}))[1]
        for dim, value in ab.items():
            verdict, _, consistent = judge_view(
                BY_VALUE.get(value), None, BY_VALUE.get(ba.get(dim)), None, "BA" in parts
            )
            inconsistent |= consistent is False
            if verdict is not None:
                judge[dim] = verdict
    # Each reviewer's current verdict as "id␟dimension␟verdict␟is-mine" (withdrawals are
    # NULL, so group_concat leaves them out), put back in the order they were given.
    given = sorted(
        (int(i), dim, BY_VALUE[value], flag == "1")
        for i, dim, value, flag in (
            item.split("\x1f") for item in (human_raw or "").split("\x1e") if item
        )
    )
    by_dim: dict[str, list[Verdict | None]] = {}
    for _, dim, verdict, _ in given:
        by_dim.setdefault(dim, []).append(verdict)
    consensus = {dim: human_consensus(values) for dim, values in by_dim.items()}
    disagree = any(judge.get(d) not in (None, v) for d, v in consensus.items())
    mine = any(is_mine for *_, is_mine in given)
    return ListRow(pid, ext, category, judged, bool(given), status, inconsistent, disagree, mine)


def _keep(row: ListRow, filter_name: str) -> bool:
    return {
        "all": True,
        "unjudged": not row.judged,
        "unreviewed": not row.reviewed,
        "reviewed": row.reviewed,
        "flagged": row.flagged,
        "disagree": row.disagree,
        "inconsistent": row.inconsistent,
        "parse-failure": row.status == "parse-failure",
        "error": row.status == "error",
    }.get(filter_name, True)


def counts(store: ProjectStore, rubric: str, judge_model: str | None) -> tuple[int, int, int]:
    """(pairs, judged, reviewed) for the status bar. Judged: some order's latest answer is
    not an error, as the pair list marks it."""
    return review_rows.pair_counts(store, rubric, judge_model)
