"""What the review window shows, read from the project: the pair list with its flags,
search, and one pair's verdicts per dimension. No Qt here; the window only displays it."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import NamedTuple

from desktop.adapters.store import human_verdicts
from desktop.adapters.store.project import ProjectStore
from desktop.domain.dimension_view import DimensionView, dimension_view, human_consensus, judge_view
from desktop.domain.verdicts import Verdict

_V = {"A": Verdict.A, "B": Verdict.B, "tie": Verdict.TIE}

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


class JudgeDetail(NamedTuple):
    status: str
    raw_completion: str | None
    error: str | None
    order: str
    latency_ms: float | None


class PairVerdicts(NamedTuple):
    dimensions: dict[str, DimensionView]  # human: every reviewer's consensus
    judge: list[JudgeDetail]  # AB first, then BA where judged in both orders
    notes: dict[str, str]  # the current reviewer's notes, by dimension
    mine: dict[str, Verdict]  # the current reviewer's own current verdicts
    others: dict[str, list[str]]  # other reviewers with a current verdict, by dimension


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
    params: dict[str, object] = {
        "rubric": rubric,
        "model": judge_model or "",
        "after": after_id,
        "limit": limit,
        "me": reviewer,
    }
    where = ["p.id > :after"]
    if ids:  # one query for all the rows a running job changed, not one each
        params.update({f"id{i}": pair_id for i, pair_id in enumerate(ids)})
        where.append(f"p.id IN ({', '.join(f':id{i}' for i in range(len(ids)))})")
    if search:
        where.append(
            "(p.instruction LIKE :q ESCAPE '\\' OR p.response_a LIKE :q ESCAPE '\\'"
            " OR p.response_b LIKE :q ESCAPE '\\' OR p.external_id = :raw)"
        )
        params["q"] = (
            "%" + search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        )
        params["raw"] = search
    sql = f"""
        SELECT p.id, p.external_id, p.category,
          (SELECT group_concat(ord || ':' || status || ':' || coalesce(verdicts, ''), '|')
             FROM judge_results r WHERE r.pair_id = p.id AND r.rubric_name = :rubric
             AND r.judge_model = :model
             AND r.id IN (SELECT max(id) FROM judge_results WHERE pair_id = p.id
                          AND rubric_name = :rubric AND judge_model = :model GROUP BY ord)),
          (SELECT group_concat(h.id || char(31) || h.dimension || char(31) || h.verdict
                               || char(31) || (h.reviewer = :me), char(30))
             FROM human_verdicts h WHERE h.pair_id = p.id AND h.rubric_name = :rubric
             AND {human_verdicts.CURRENT})
        FROM pairs p WHERE {" AND ".join(where)} ORDER BY p.id"""
    rows: list[ListRow] = []
    cursor = store.conn.execute(sql, params)
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
        status = next((s for s in ("error", "parse-failure", "ok") if s in states), "")
        judged = any(s != "error" for s in states)  # an error is no answer
        ab = parts.get("AB", ("", {}))[1]
        ba = parts.get("BA", ("", {}))[1]
        for dim, value in ab.items():
            verdict, _, consistent = judge_view(
                _V.get(value), None, _V.get(ba.get(dim)), None, "BA" in parts
            )
            inconsistent |= consistent is False
            if verdict is not None:
                judge[dim] = verdict
    # Each reviewer's current verdict as "id␟dimension␟verdict␟is-mine" (withdrawals are
    # NULL, so group_concat leaves them out), put back in the order they were given.
    given = sorted(
        (int(i), dim, _V[value], flag == "1")
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


def pair_verdicts(
    store: ProjectStore,
    pair_id: int,
    rubric: str,
    judge_model: str | None,
    dimensions: tuple[str, ...],
    reviewer: str = "",
) -> PairVerdicts:
    """One pair's verdicts per dimension; ``reviewer``'s own verdicts and notes apart."""
    latest = {}
    for order in ("AB", "BA"):
        row = store.conn.execute(
            "SELECT status, verdicts, confidence, raw_completion, error, latency_ms"
            " FROM judge_results WHERE pair_id = ? AND rubric_name = ? AND judge_model = ?"
            " AND ord = ? ORDER BY id DESC LIMIT 1",
            [pair_id, rubric, judge_model or "", order],
        ).fetchone()
        if row:
            latest[order] = row
    current = human_verdicts.current_verdicts(store, pair_id, rubric)
    by_dim: dict[str, list[Verdict | None]] = {}
    for h in current:
        by_dim.setdefault(h.dimension, []).append(h.verdict)
    mine = {h.dimension: h.verdict for h in current if h.reviewer == reviewer and h.verdict}
    notes = {h.dimension: h.note for h in current if h.reviewer == reviewer and h.note}
    others: dict[str, list[str]] = {}
    for h in current:
        if h.reviewer != reviewer and h.verdict is not None:
            others.setdefault(h.dimension, []).append(h.reviewer)
    views: dict[str, DimensionView] = {}
    ab, ba = latest.get("AB"), latest.get("BA")
    fv = json.loads(ab[1]) if ab and ab[1] else {}
    fc = json.loads(ab[2]) if ab and ab[2] else {}
    bv = json.loads(ba[1]) if ba and ba[1] else {}
    bc = json.loads(ba[2]) if ba and ba[2] else {}
    for dim in dimensions:
        judge, conf, consistent = judge_view(
            _V.get(fv.get(dim)), fc.get(dim), _V.get(bv.get(dim)), bc.get(dim), ba is not None
        )
        consensus = human_consensus(by_dim.get(dim, []))
        views[dim] = dimension_view(judge, conf, consistent, consensus)
    details = [JudgeDetail(r[0], r[3], r[4], order, r[5]) for order, r in latest.items()]
    return PairVerdicts(views, details, notes, mine, others)


def counts(store: ProjectStore, rubric: str, judge_model: str | None) -> tuple[int, int, int]:
    """(pairs, judged, reviewed) for the status bar. Judged: some order's latest answer is
    not an error, as the pair list marks it."""
    total = store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0]
    judged = store.conn.execute(
        "SELECT count(DISTINCT pair_id) FROM judge_results WHERE status != 'error' AND id IN"
        " (SELECT max(id) FROM judge_results WHERE rubric_name = ? AND judge_model = ?"
        " GROUP BY pair_id, ord)",
        [rubric, judge_model or ""],
    ).fetchone()[0]
    reviewed = store.conn.execute(  # a withdrawn verdict no longer counts
        "SELECT count(DISTINCT pair_id) FROM human_verdicts h WHERE rubric_name = ?"
        f" AND verdict IS NOT NULL AND {human_verdicts.CURRENT}",
        [rubric],
    ).fetchone()[0]
    return total, judged, reviewed
