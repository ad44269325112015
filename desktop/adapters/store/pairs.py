"""Pairs in a project: bulk insert without duplicates, lookup by id or external id."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from desktop.adapters.store.pair_keys import pair_key
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError
from desktop.domain.pairs import IDENTITY_FIELDS, Pair

PAIR_COLUMNS = (
    "pair_key",
    "external_id",
    "instruction",
    "response_a",
    "response_b",
    "reference",
    "source",
    "model_a",
    "model_b",
    "category",
    "metadata",
)
_INSERT = (
    f"INSERT INTO pairs ({', '.join(PAIR_COLUMNS)})"
    f" VALUES ({', '.join('?' * len(PAIR_COLUMNS))}) ON CONFLICT(pair_key) DO NOTHING"
)


def identity_of(row: Sequence[Any]) -> dict[str, Any]:
    """A prepared pairs row (see PAIR_COLUMNS) as a mapping of its columns."""
    return dict(zip(PAIR_COLUMNS, row, strict=True))


def pair_row(pair: Pair) -> tuple[Any, ...]:
    return (
        pair_key(pair),
        pair.external_id,
        pair.instruction,
        pair.response_a,
        pair.response_b,
        pair.reference,
        pair.source,
        pair.model_a,
        pair.model_b,
        pair.category,
        json.dumps(pair.metadata, ensure_ascii=False) if pair.metadata else None,
    )


def insert_rows(conn: sqlite3.Connection, rows: Sequence[tuple[Any, ...]]) -> int:
    """Insert prepared rows (see pair_row) inside the caller's transaction; returns how many
    were new."""
    before = conn.total_changes
    conn.executemany(_INSERT, rows)
    return conn.total_changes - before


def ids_for_keys(conn: sqlite3.Connection, keys: Iterable[str]) -> dict[str, int]:
    return {key: row[0] for key, row in _by_keys(conn, ("id",), keys)}


def identities_for_keys(
    conn: sqlite3.Connection, keys: Iterable[str]
) -> dict[str, tuple[int, dict[str, str | None]]]:
    """The pairs with these keys: each one's row id and IDENTITY_FIELDS."""
    return {
        key: (row[0], dict(zip(IDENTITY_FIELDS, row[1:], strict=True)))
        for key, row in _by_keys(conn, ("id", *IDENTITY_FIELDS), keys)
    }


def _by_keys(
    conn: sqlite3.Connection, columns: Sequence[str], keys: Iterable[str]
) -> Iterable[tuple[str, tuple[Any, ...]]]:
    keys = list(keys)
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT pair_key, {', '.join(columns)} FROM pairs WHERE pair_key IN ({marks})"
        for key, *values in conn.execute(sql, chunk):
            yield key, tuple(values)


def count_pairs(store: ProjectStore) -> int:
    return store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0]


def _from_row(row: sqlite3.Row | tuple[Any, ...]) -> Pair:
    (
        pid,
        external_id,
        instruction,
        a,
        b,
        reference,
        source,
        model_a,
        model_b,
        category,
        metadata,
    ) = row
    return Pair(
        id=pid,
        external_id=external_id,
        instruction=instruction,
        response_a=a,
        response_b=b,
        reference=reference,
        source=source,
        model_a=model_a,
        model_b=model_b,
        category=category,
        metadata=json.loads(metadata) if metadata else {},
    )


_SELECT = (
    "SELECT id, external_id, instruction, response_a, response_b, reference, source,"
    " model_a, model_b, category, metadata FROM pairs"
)


def get_pair(store: ProjectStore, pair_id: int) -> Pair | None:
    row = store.conn.execute(f"{_SELECT} WHERE id = ?", [pair_id]).fetchone()
    return _from_row(row) if row else None


def find_pair(store: ProjectStore, ref: str) -> Pair:
    """A pair named by a person: its external id, or ``#N`` / ``N`` for the row id."""
    row = store.conn.execute(f"{_SELECT} WHERE external_id = ? LIMIT 1", [ref]).fetchone()
    if row is None:
        number = ref[1:] if ref.startswith("#") else ref
        if number.isdigit():
            row = store.conn.execute(f"{_SELECT} WHERE id = ?", [int(number)]).fetchone()
    if row is None:
        raise TiebreakError(f"{store.path}: no pair with id {ref!r}")
    return _from_row(row)


def iter_pairs(store: ProjectStore, *, batch: int = 500) -> Iterable[Pair]:
    """Every pair in id order, a batch at a time, so memory stays flat."""
    last = 0
    while True:
        rows = store.conn.execute(
            f"{_SELECT} WHERE id > ? ORDER BY id LIMIT ?", [last, batch]
        ).fetchall()
        if not rows:
            return
        for row in rows:
            yield _from_row(row)
        last = rows[-1][0]
