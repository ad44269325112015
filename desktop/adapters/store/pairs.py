"""Pairs in a project: bulk insert without duplicates, lookup by id or external id."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from desktop.adapters.store.pair_keys import content_key
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError
from desktop.domain.pairs import FIELDS, IDENTITY_FIELDS, Pair


class PairRow(NamedTuple):
    """A pairs row ready to insert, its values named as the table's columns: the key
    (see ``pair_keys``), the pair's FIELDS, and its metadata as JSON text."""

    pair_key: str
    external_id: str | None
    instruction: str | None
    response_a: str | None
    response_b: str | None
    reference: str | None
    source: str | None
    model_a: str | None
    model_b: str | None
    category: str | None
    metadata: str | None


PAIR_COLUMNS = PairRow._fields  # the insert names each value where the row holds it
_FIELD_COLUMNS = PAIR_COLUMNS[1:-1]  # FIELDS, in the order the row holds them
if set(_FIELD_COLUMNS) != set(FIELDS):  # a field the row lacks would be dropped unseen
    raise RuntimeError(f"PairRow's fields {_FIELD_COLUMNS} are not the pair's {FIELDS}")
_INSERT = (
    f"INSERT INTO pairs ({', '.join(PAIR_COLUMNS)})"
    f" VALUES ({', '.join('?' * len(PAIR_COLUMNS))}) ON CONFLICT(pair_key) DO NOTHING"
)


def identity_of(row: Sequence[Any]) -> dict[str, Any]:
    """A prepared pairs row (see PAIR_COLUMNS) as a mapping of its columns."""
    return dict(zip(PAIR_COLUMNS, row, strict=True))


def pair_row(pair: Pair) -> PairRow:
    metadata = json.dumps(pair.metadata, ensure_ascii=False) if pair.metadata else None
    return new_row({f: getattr(pair, f) for f in FIELDS}, metadata)


def new_row(fields: Mapping[str, str | None], metadata: str | None) -> PairRow:
    """A prepared pairs row of a pair's ``fields`` (one absent is empty) and its metadata
    as JSON text, keyed as ``pair_keys`` says."""
    key = content_key(fields.get("external_id"), *map(fields.get, IDENTITY_FIELDS))
    return PairRow(key, *map(fields.get, _FIELD_COLUMNS), metadata)


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


def stored_rows(store: ProjectStore, batch: int) -> Iterator[list[tuple[Any, ...]]]:
    """Every pair as its row id and prepared row (see PAIR_COLUMNS), in id order, ``batch``
    rows at a time."""
    cursor = store.conn.execute(f"SELECT id, {', '.join(PAIR_COLUMNS)} FROM pairs ORDER BY id")
    while rows := cursor.fetchmany(batch):
        yield rows


def identity_of_id(store: ProjectStore, pair_id: int) -> dict[str, str | None]:
    """The IDENTITY_FIELDS of the pair with this row id."""
    row = store.conn.execute(
        f"SELECT {', '.join(IDENTITY_FIELDS)} FROM pairs WHERE id = ?", [pair_id]
    ).fetchone()
    return dict(zip(IDENTITY_FIELDS, row, strict=True))


def identities_without_id(store: ProjectStore) -> Iterator[tuple[Any, ...]]:
    """(row id, IDENTITY_FIELDS...) of every pair that has no external id."""
    cols = ", ".join(IDENTITY_FIELDS)
    yield from store.conn.execute(
        f"SELECT id, {cols} FROM pairs WHERE external_id IS NULL OR external_id = ''"
    )


def last_id(store: ProjectStore) -> int:
    """The highest row id in use (0 for none): pairs above it are added after now."""
    return store.conn.execute("SELECT coalesce(max(id), 0) FROM pairs").fetchone()[0]


def pair_ids_matching(
    store: ProjectStore, where: str | None, pair_ids: Sequence[int] | None
) -> list[int]:
    """Ids, in order, of the pairs among ``pair_ids`` (all when None) that meet ``where``,
    a user's SQL condition on the pairs' columns (``tiebreak judge --where``)."""
    clauses: list[str] = []
    params: list[Any] = []
    if pair_ids is not None:
        clauses.append(f"p.id IN ({','.join('?' * len(pair_ids))})")
        params.extend(pair_ids)
    if where:
        clauses.append(f"({where})")
    condition = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    sql = f"SELECT p.id FROM pairs p {condition} ORDER BY p.id"
    try:
        return [r[0] for r in store.conn.execute(sql, params)]
    except sqlite3.Error as exc:
        raise TiebreakError(f"--where {where!r}: {exc}") from None


def pair_ids(store: ProjectStore) -> set[int]:
    """The row id of every pair."""
    return {r[0] for r in store.conn.execute("SELECT id FROM pairs")}


def count_pairs(store: ProjectStore) -> int:
    return store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0]


def _from_row(row: sqlite3.Row | tuple[Any, ...]) -> Pair:
    """A row of ``_SELECT`` as a Pair."""
    metadata = row[-1]
    return Pair(
        id=row[0],
        **dict(zip(FIELDS, row[1:-1], strict=True)),
        metadata=json.loads(metadata) if metadata else {},
    )


_SELECT = f"SELECT id, {', '.join(FIELDS)}, metadata FROM pairs"


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
