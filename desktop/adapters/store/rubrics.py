"""Rubrics recorded in a project: the exact text behind every verdict, keyed by hash."""

from __future__ import annotations

import json
from typing import NamedTuple

from desktop.adapters.store.project import ProjectStore


class StoredRubric(NamedTuple):
    hash: str
    name: str
    title: str
    dimensions: tuple[str, ...]
    kind: str  # "rubric" (a prompt we render) or "imported" (verdicts from elsewhere)
    text: str


def record_rubric(
    store: ProjectStore,
    *,
    hash: str,
    name: str,
    title: str,
    dimensions: tuple[str, ...],
    kind: str,
    text: str,
) -> None:
    """Remember a rubric version; call inside the transaction that stores its results."""
    store.conn.execute(
        "INSERT INTO rubrics(hash, name, title, dimensions, kind, text, added_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(hash) DO NOTHING",
        [hash, name, title, json.dumps(list(dimensions)), kind, text, now()],
    )


def copy_new_rubrics(store: ProjectStore, source: ProjectStore) -> None:
    """Every rubric text of ``source`` under a name ``store`` does not know yet, as it was
    recorded there; inside the caller's transaction."""
    have = {r[0] for r in store.conn.execute("SELECT DISTINCT name FROM rubrics")}
    for row in source.conn.execute(
        "SELECT hash, name, title, dimensions, kind, text, added_at FROM rubrics ORDER BY rowid"
    ):
        if row[1] in have:
            continue
        store.conn.execute(
            "INSERT INTO rubrics(hash, name, title, dimensions, kind, text, added_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(hash) DO NOTHING",
            list(row),
        )


# Each rubric with judge results, and its oldest result, found by skipping along the index
# (rubric_name, judge_model, id): a few seeks per rubric and judge, where grouping all the
# results read every one of them (35 ms for 400,000 answers, at every window start).
_JUDGED_RUBRICS = """
    WITH RECURSIVE
      rubric(name) AS (
        SELECT (SELECT min(rubric_name) FROM judge_results)
        UNION ALL
        SELECT (SELECT min(rubric_name) FROM judge_results WHERE rubric_name > rubric.name)
        FROM rubric WHERE rubric.name IS NOT NULL),
      judge(rubric, model) AS (
        SELECT name, (SELECT min(judge_model) FROM judge_results WHERE rubric_name = name)
        FROM rubric WHERE name IS NOT NULL
        UNION ALL
        SELECT judge.rubric, (SELECT min(judge_model) FROM judge_results
                              WHERE rubric_name = judge.rubric AND judge_model > judge.model)
        FROM judge WHERE judge.model IS NOT NULL)
    SELECT rubric AS name, min((SELECT min(id) FROM judge_results
                                WHERE rubric_name = rubric AND judge_model = model)) AS first
    FROM judge WHERE model IS NOT NULL GROUP BY rubric"""


def rubric_names(store: ProjectStore) -> list[str]:
    """Names of rubrics with any judge result or human verdict, oldest first."""
    rows = store.conn.execute(
        "SELECT name FROM ("
        f" {_JUDGED_RUBRICS}"
        " UNION ALL"
        " SELECT rubric_name, min(id) + 1e12 FROM human_verdicts GROUP BY rubric_name"
        ") GROUP BY name ORDER BY min(first)"
    ).fetchall()
    return [r[0] for r in rows]


def own_rubric_names(store: ProjectStore) -> list[str]:
    """Names of prompt rubrics kept in the project (added by a user or used to judge)."""
    rows = store.conn.execute(
        "SELECT name FROM rubrics WHERE kind = 'rubric' GROUP BY name ORDER BY min(rowid)"
    ).fetchall()
    return [r[0] for r in rows]


def latest_rubric(store: ProjectStore, name: str) -> StoredRubric | None:
    row = store.conn.execute(
        "SELECT hash, name, title, dimensions, kind, text FROM rubrics WHERE name = ?"
        " ORDER BY added_at DESC, rowid DESC LIMIT 1",
        [name],
    ).fetchone()
    if row is None:
        return None
    return StoredRubric(row[0], row[1], row[2], tuple(json.loads(row[3])), row[4], row[5])


def rubric_text(store: ProjectStore, rubric_hash: str) -> str | None:
    """The exact text recorded under a rubric hash."""
    row = store.conn.execute("SELECT text FROM rubrics WHERE hash = ?", [rubric_hash]).fetchone()
    return row[0] if row else None


def now() -> str:
    from datetime import UTC, datetime  # only when something is written

    return datetime.now(UTC).isoformat(timespec="milliseconds")
