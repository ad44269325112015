"""Human verdicts: an append-only history per pair, rubric and dimension.

Nothing is overwritten: an edit or an undo appends a row, and the latest row of each
reviewer counts. A row with no verdict records that the reviewer withdrew theirs, or
(``mark``) skipped the pair or marked it broken; "both bad" is the verdict tie with the
mark ``bothbad``. A row carries its reviewer's note on that dimension: a new verdict
written without one keeps the note of the row before (``KEEP``).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping, Sequence
from typing import NamedTuple, NotRequired, TypedDict

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import now
from desktop.domain.verdicts import MARKS, Mark, Verdict


class Keep(enum.Enum):
    """A note not given: the reviewer's current note on the dimension stays."""

    NOTE = "keep"


KEEP = Keep.NOTE

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
    mark: Mark | None = None


class VerdictRow(TypedDict):
    """A human_verdicts row with every column, as stored (``mark`` may be left out)."""

    pair_id: int
    rubric_name: str
    dimension: str
    verdict: str | None
    reviewer: str
    note: str | None
    mode: str | None
    created_at: str
    mark: NotRequired[str | None]


_COLUMNS = tuple(VerdictRow.__annotations__)
_INSERT = (
    f"INSERT INTO human_verdicts({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
)


def add_verdict(
    store: ProjectStore,
    *,
    pair_id: int,
    rubric_name: str,
    dimension: str,
    verdict: Verdict | None,
    reviewer: str,
    note: str | Keep | None = KEEP,
    mode: str | None = None,
    mark: Mark | None = None,
) -> None:
    """A reviewer's verdict given now, committed at once. ``note``: KEEP (the default)
    keeps the note of the reviewer's row before; None or "" clears it."""
    with store.transaction():
        if note is KEEP:
            before = latest_row(store, pair_id, rubric_name, dimension, reviewer)
            note = None if before is None else before.note
        insert_verdict(
            store,
            {
                "pair_id": pair_id,
                "rubric_name": rubric_name,
                "dimension": dimension,
                "verdict": verdict.value if verdict else None,
                "reviewer": reviewer,
                "note": note or None,
                "mode": mode,
                "created_at": now(),
                "mark": mark.value if mark else None,
            },
        )


def insert_verdict(store: ProjectStore, row: VerdictRow) -> None:
    """One row with every column (an import or merge keeps its own time; ``mark`` may be
    left out), inside the caller's transaction."""
    store.conn.execute(_INSERT, _values(row))


def _values(row: Mapping[str, object]) -> list[object]:
    return [row.get(c) if c == "mark" else row[c] for c in _COLUMNS]


class LatestRow(NamedTuple):
    verdict: str | None  # as stored; None: withdrawn, skipped or broken (see mark)
    created_at: str
    note: str | None = None
    mode: str | None = None
    mark: str | None = None


def latest_row(
    store: ProjectStore, pair_id: int, rubric: str, dimension: str, reviewer: str
) -> LatestRow | None:
    """A reviewer's latest row, or None if they gave none."""
    row = store.conn.execute(
        "SELECT verdict, created_at, note, mode, mark FROM human_verdicts WHERE pair_id = ?"
        " AND rubric_name = ? AND dimension = ? AND reviewer = ? ORDER BY id DESC LIMIT 1",
        [pair_id, rubric, dimension, reviewer],
    ).fetchone()
    return LatestRow(*row) if row else None


def every_row(store: ProjectStore) -> Iterator[VerdictRow]:
    """The whole history, oldest first, each row with every column."""
    cursor = store.conn.execute(f"SELECT {', '.join(_COLUMNS)} FROM human_verdicts ORDER BY id")
    for pid, rubric, dim, verdict, reviewer, note, mode, created_at, mark in cursor:
        yield VerdictRow(
            pair_id=pid,
            rubric_name=rubric,
            dimension=dim,
            verdict=verdict,
            reviewer=reviewer,
            note=note,
            mode=mode,
            created_at=created_at,
            mark=mark,
        )


def dimensions_with_verdicts(store: ProjectStore, rubric: str) -> tuple[str, ...]:
    """The dimensions reviewers gave verdicts on for a rubric the project has no text of."""
    rows = store.conn.execute(
        "SELECT DISTINCT dimension FROM human_verdicts WHERE rubric_name = ? ORDER BY dimension",
        [rubric],
    ).fetchall()
    return tuple(r[0] for r in rows)


def history(
    store: ProjectStore, pair_id: int, rubric_name: str, dimension: str
) -> list[HumanVerdict]:
    rows = store.conn.execute(
        "SELECT dimension, verdict, reviewer, note, created_at, mode, mark FROM human_verdicts"
        " WHERE pair_id = ? AND rubric_name = ? AND dimension = ? ORDER BY id",
        [pair_id, rubric_name, dimension],
    ).fetchall()
    return [_verdict(r) for r in rows]


def _verdict(row: tuple) -> HumanVerdict:
    dimension, verdict, reviewer, note, created_at, mode, mark = row
    return HumanVerdict(
        dimension,
        Verdict(verdict) if verdict else None,
        reviewer,
        note,
        created_at,
        mode,
        MARKS.get(mark),
    )


def latest_of_pairs(
    store: ProjectStore, rubric: str, pair_ids: Sequence[int]
) -> dict[tuple[int, str, str], str | None]:
    """Each reviewer's latest verdict (as stored; None: withdrawn) on ``pair_ids``, keyed
    by (pair, dimension, reviewer): an import's check of a whole batch in one query."""
    out: dict[tuple[int, str, str], str | None] = {}
    for start in range(0, len(pair_ids), 500):
        chunk = pair_ids[start : start + 500]
        rows = store.conn.execute(
            "SELECT pair_id, dimension, reviewer, verdict FROM human_verdicts h"
            f" WHERE rubric_name = ? AND pair_id IN ({','.join('?' * len(chunk))})"
            f" AND {CURRENT}",
            [rubric, *chunk],
        )
        out.update(((pid, dim, who), verdict) for pid, dim, who, verdict in rows)
    return out


def insert_verdicts(store: ProjectStore, rows: Sequence[VerdictRow]) -> None:
    """Rows with every column, inside the caller's transaction (see insert_verdict)."""
    store.conn.executemany(_INSERT, [_values(row) for row in rows])
