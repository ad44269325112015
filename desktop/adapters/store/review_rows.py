"""What the review window reads: a page of the pair list with each pair's latest answers
and reviewers' current verdicts, one pair's latest answer per order, and the status bar's
counts. Filters and search run in SQL, so a 100,000-pair project never loads whole."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from typing import Any

from desktop.adapters.store import human_verdicts, results
from desktop.adapters.store.project import ProjectStore


def list_page(
    store: ProjectStore,
    rubric: str,
    judge_model: str | None,
    *,
    search: str,
    after_id: int,
    limit: int,
    reviewer: str,
    ids: Collection[int],
) -> sqlite3.Cursor:
    """(id, external id, category, latest answers "order:status:verdicts|...", current
    verdicts "id␟dimension␟verdict␟is-mine␞...") of the pairs after ``after_id`` (among
    ``ids`` if given) whose texts contain ``search`` or whose external id is it, in id
    order; the caller reads as far as it needs."""
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
    return store.conn.execute(sql, params)


def latest_answer(
    store: ProjectStore, pair_id: int, rubric: str, judge_model: str | None, order: str
) -> tuple[Any, ...] | None:
    """(status, verdicts, confidence, raw completion, error, latency in ms) of a judge's
    latest answer for a pair in one order."""
    return store.conn.execute(
        "SELECT status, verdicts, confidence, raw_completion, error, latency_ms"
        " FROM judge_results WHERE pair_id = ? AND rubric_name = ? AND judge_model = ?"
        " AND ord = ? ORDER BY id DESC LIMIT 1",
        [pair_id, rubric, judge_model or "", order],
    ).fetchone()


def pair_counts(store: ProjectStore, rubric: str, judge_model: str | None) -> tuple[int, int, int]:
    """(pairs, judged, reviewed) for the status bar. Judged: some order's latest answer is
    not an error, as the pair list marks it."""
    total = store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0]
    judged = results.judged_pairs(store, rubric, judge_model or "")
    reviewed = store.conn.execute(  # a withdrawn verdict no longer counts
        "SELECT count(DISTINCT pair_id) FROM human_verdicts h WHERE rubric_name = ?"
        f" AND verdict IS NOT NULL AND {human_verdicts.CURRENT}",
        [rubric],
    ).fetchone()[0]
    return total, judged, reviewed
