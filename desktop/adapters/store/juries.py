"""Juries a project keeps (``juries``: migration m008): several judges of a rubric combined
as one under a name, which every place that chooses a judge offers (``services/juries.py``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import NamedTuple

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import now


class JuryRow(NamedTuple):
    rubric: str
    name: str
    jurors: tuple[str, ...]
    combine: str  # a key of domain.jury.COMBINES
    created_at: str = ""


_COLUMNS = "rubric_name, name, jurors, combine, created_at"


def _row(values: Sequence[str]) -> JuryRow:
    rubric, name, jurors, combine, created_at = values
    return JuryRow(rubric, name, tuple(json.loads(jurors)), combine, created_at)


def save_jury(store: ProjectStore, jury: JuryRow) -> None:
    """Keep ``jury`` (one of that name on its rubric is replaced), committed now."""
    with store.transaction() as conn:
        conn.execute(
            f"INSERT INTO juries ({_COLUMNS}) VALUES (?, ?, ?, ?, ?)"
            " ON CONFLICT(rubric_name, name) DO UPDATE SET jurors = excluded.jurors,"
            " combine = excluded.combine, created_at = excluded.created_at",
            (jury.rubric, jury.name, json.dumps(list(jury.jurors)), jury.combine, now()),
        )


def remove_jury(store: ProjectStore, rubric: str, name: str) -> bool:
    """Forget a jury (its jurors' answers stay); whether there was one."""
    with store.transaction() as conn:
        cursor = conn.execute(
            "DELETE FROM juries WHERE rubric_name = ? AND name = ?", (rubric, name)
        )
    return cursor.rowcount > 0


def juries(store: ProjectStore, rubric: str | None = None) -> list[JuryRow]:
    """The juries of a rubric (of every rubric without one), most recent first."""
    where, params = ("WHERE rubric_name = ?", (rubric,)) if rubric is not None else ("", ())
    try:
        cursor = store.conn.execute(
            f"SELECT {_COLUMNS} FROM juries {where} ORDER BY rubric_name, id DESC", params
        )
        return [_row(r) for r in cursor]
    except sqlite3.OperationalError:  # a connection that never ran m008 (none should)
        return []


def find_jury(store: ProjectStore, rubric: str, name: str) -> JuryRow | None:
    """The jury of that name on the rubric, if the project keeps one: one index seek, made
    each time a judge's name is read (a page of the list, the verdict panel)."""
    try:
        row = store.conn.execute(
            f"SELECT {_COLUMNS} FROM juries WHERE rubric_name = ? AND name = ?", (rubric, name)
        ).fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else _row(row)


def judged_by_any(store: ProjectStore, rubric: str, judges: Sequence[str]) -> int:
    """Pairs some of ``judges`` judged for the rubric (some order's latest answer is not an
    error): a jury's count, by the rule ``results.judged_pairs`` counts one judge's."""
    if not judges:
        return 0
    marks = ", ".join("?" * len(judges))
    return int(
        store.conn.execute(
            "SELECT count(DISTINCT pair_id) FROM judge_results WHERE status != 'error' AND id IN"
            " (SELECT max(id) FROM judge_results WHERE rubric_name = ?"
            f" AND judge_model IN ({marks}) GROUP BY judge_model, pair_id, ord)",
            [rubric, *judges],
        ).fetchone()[0]
    )
