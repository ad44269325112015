"""Which judge verdicts the window showed to whom (``judge_seen``: migration m007), so a
verdict given in blind mode after a restart is not taken for blind when the reviewer saw
the judge's verdict in an earlier window."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from desktop.adapters.store.project import ProjectStore


class Seen(NamedTuple):
    pair_id: int
    rubric: str
    reviewer: str
    dimension: str
    judge: str
    shown_at: str


def seen_dimensions(store: ProjectStore, pair_id: int, rubric: str, reviewer: str) -> set[str]:
    """The dimensions of a pair on which some judge's verdict was shown to ``reviewer``
    (one seek of the table's key)."""
    rows = store.conn.execute(
        "SELECT DISTINCT dimension FROM judge_seen"
        " WHERE pair_id = ? AND rubric_name = ? AND reviewer = ?",
        (pair_id, rubric, reviewer),
    )
    return {row[0] for row in rows}


def record_seen(store: ProjectStore, seen: Iterable[Seen]) -> None:
    """Rows of what was shown, in one transaction (the caller's, where it has one); a
    verdict shown again keeps the time it was first shown."""
    with store.transaction() as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO judge_seen"
            " (pair_id, rubric_name, reviewer, dimension, judge_model, shown_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            seen,
        )
