"""Human verdicts: an append-only history per pair, rubric and dimension.

Nothing is overwritten: an edit or an undo appends a row, and the latest row of each
reviewer counts. A row with no verdict records that the reviewer withdrew theirs.
"""

from __future__ import annotations

from typing import NamedTuple

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import now
from desktop.domain.verdicts import Verdict

#: SQL: ``h``, a row of human_verdicts, is its reviewer's current row for its pair, rubric
#: and dimension. Every reader of "the current verdicts" shares this one definition.
CURRENT = (
    "h.id = (SELECT max(id) FROM human_verdicts WHERE pair_id = h.pair_id"
    " AND rubric_name = h.rubric_name AND dimension = h.dimension AND reviewer = h.reviewer)"
)


class HumanVerdict(NamedTuple):
    dimension: str
    verdict: Verdict | None
    reviewer: str
    note: str | None
    created_at: str
    mode: str | None = None


def add_verdict(
    store: ProjectStore,
    *,
    pair_id: int,
    rubric_name: str,
    dimension: str,
    verdict: Verdict | None,
    reviewer: str,
    note: str | None = None,
    mode: str | None = None,
) -> None:
    with store.transaction():
        store.conn.execute(
            "INSERT INTO human_verdicts"
            "(pair_id, rubric_name, dimension, verdict, reviewer, note, mode, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                pair_id,
                rubric_name,
                dimension,
                verdict.value if verdict else None,
                reviewer,
                note,
                mode,
                now(),
            ],
        )


def history(
    store: ProjectStore, pair_id: int, rubric_name: str, dimension: str
) -> list[HumanVerdict]:
    rows = store.conn.execute(
        "SELECT dimension, verdict, reviewer, note, created_at, mode FROM human_verdicts"
        " WHERE pair_id = ? AND rubric_name = ? AND dimension = ? ORDER BY id",
        [pair_id, rubric_name, dimension],
    ).fetchall()
    return [_verdict(r) for r in rows]


def current_verdicts(store: ProjectStore, pair_id: int, rubric_name: str) -> list[HumanVerdict]:
    """Each reviewer's latest row per dimension of one pair, oldest first. A withdrawal is
    kept (its verdict is None): it is still where that reviewer's note lives."""
    rows = store.conn.execute(
        "SELECT dimension, verdict, reviewer, note, created_at, mode FROM human_verdicts h"
        f" WHERE pair_id = ? AND rubric_name = ? AND {CURRENT} ORDER BY id",
        [pair_id, rubric_name],
    ).fetchall()
    return [_verdict(r) for r in rows]


def _verdict(row: tuple) -> HumanVerdict:
    dimension, verdict, reviewer, note, created_at, mode = row
    return HumanVerdict(
        dimension, Verdict(verdict) if verdict else None, reviewer, note, created_at, mode
    )
