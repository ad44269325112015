"""The rows an export reads: one per pair in id order, streamed straight from SQLite.

Each row is the pair's fields (``id`` and ``domain.pairs.FIELDS``) and metadata; for a
rubric, then both orders' latest answers of one judge and every reviewer's current
verdicts, found in a few index probes per pair (100,000 pairs export in seconds).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from desktop.adapters.store.human_verdicts import CURRENT
from desktop.adapters.store.project import ProjectStore
from desktop.domain.pairs import FIELDS

PAIR_FIELDS = ("id", *FIELDS)
_PAIR_COLS = ", ".join(f"p.{c}" for c in PAIR_FIELDS)
_LATEST = (
    "SELECT max(id) FROM judge_results WHERE rubric_name = :rubric"
    " AND judge_model = :model AND pair_id = p.id AND ord = '{}'"
)
# Every reviewer's latest verdict per dimension, in one probe of the index per pair.
_HUMAN = (
    "(SELECT group_concat(h.dimension || ':' || coalesce(h.verdict, '-'), '|')"
    " FROM human_verdicts h WHERE h.pair_id = p.id AND h.rubric_name = :rubric"
    f" AND {CURRENT})"
)
_WITH_VERDICTS = (
    f"SELECT {_PAIR_COLS}, p.metadata,"
    " ab.status, ab.verdicts, ab.confidence, ba.id IS NOT NULL, ba.status, ba.verdicts,"
    f" ba.confidence, {_HUMAN}, ab.preference"
    " FROM pairs p"
    f" LEFT JOIN judge_results ab ON ab.id = ({_LATEST.format('AB')})"
    f" LEFT JOIN judge_results ba ON ba.id = ({_LATEST.format('BA')})"
    " ORDER BY p.id"
)


def pair_rows(store: ProjectStore) -> sqlite3.Cursor:
    """(PAIR_FIELDS..., metadata) of every pair."""
    return store.conn.execute(f"SELECT {_PAIR_COLS}, p.metadata FROM pairs p ORDER BY p.id")


def rows_with_verdicts(store: ProjectStore, rubric: str, judge_model: str | None) -> sqlite3.Cursor:
    """(PAIR_FIELDS..., metadata, AB status, AB verdicts, AB confidence, BA asked, BA status,
    BA verdicts, BA confidence, reviewers' "dimension:verdict|..." ('-' withdrawn),
    AB preference) of every pair; answers and verdicts as stored (JSON text)."""
    params: dict[str, Any] = {"rubric": rubric, "model": judge_model or ""}
    return store.conn.execute(_WITH_VERDICTS, params)
