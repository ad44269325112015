"""Pairs in a project: bulk insert without duplicates, lookup by id or external id."""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple, TypeGuard, cast

from desktop.adapters.store.pair_keys import content_key
from desktop.adapters.store.pair_reader import (
    EVERY_STORED_FIELD,
    Condition,
    PairQuery,
    read_pair,
    read_pairs,
)
from desktop.adapters.store.pair_steps import add_counts, counts_row, totals
from desktop.adapters.store.project import ProjectStore
from desktop.domain.conversations import sides_from_json
from desktop.domain.errors import TiebreakError
from desktop.domain.limits import SQLITE_MAX
from desktop.domain.pair_record import PairColumns
from desktop.domain.pairs import (
    CONVERSATION_FIELDS,
    IDENTITY_FIELDS,
    OPTIONAL_FIELDS,
    STORED_FIELDS,
    Pair,
)


class PairRow(NamedTuple):
    """A pairs row ready to insert, its values named as the table's columns: the key
    (see ``pair_keys``), the pair's STORED_FIELDS (a conversation pair's sides as JSON
    text), and its metadata as JSON text."""

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
    conversation_a: str | None
    conversation_b: str | None
    turn: int | None
    tools: str | None
    metadata: str | None


PAIR_COLUMNS = PairRow._fields  # the insert names each value where the row holds it
_FIELD_COLUMNS = PAIR_COLUMNS[1:-1]  # STORED_FIELDS, in the order the row holds them
if _FIELD_COLUMNS != STORED_FIELDS:  # a field the row lacks would be dropped unseen
    raise RuntimeError(f"PairRow's fields {_FIELD_COLUMNS} are not the pair's {STORED_FIELDS}")
# What two records claiming one external id are compared on (``identity_clash``).
_CLASH_FIELDS = (*IDENTITY_FIELDS, *CONVERSATION_FIELDS)
#: What a pair's key is made of besides its turn: text each, or None.
_KEYED = ("external_id", *IDENTITY_FIELDS, "conversation_a", "conversation_b", "tools")
#: Besides the row's own: a trajectory's counts of both sides together (m012, NULL for
#: any other pair), which the list sorts by through their indexes (``pair_steps``).
_TOTALS = ("steps", "calls", "errors")
_INSERTED = (*PAIR_COLUMNS, *_TOTALS)
_ROW = f"({', '.join('?' * len(_INSERTED))})"
#: Rows per INSERT: one statement for many rows (an import's batch), because the search
#: index (m005) writes what it holds in memory to the file at the end of every statement:
#: row by row, an import took four times as long, 500 at a time 15% longer than 2,000.
#: Within SQLite's limit on a statement's values.
_ROWS_PER_INSERT = 2000


@functools.lru_cache(maxsize=4)  # each statement is long
def _insert(rows: int) -> str:
    return (
        f"INSERT INTO pairs ({', '.join(_INSERTED)}) VALUES {', '.join([_ROW] * rows)}"
        " ON CONFLICT(pair_key) DO NOTHING"
    )


def new_row(fields: Mapping[str, object], metadata: str | None) -> PairRow:
    """A prepared pairs row of a pair's ``fields`` (one absent is empty; a conversation
    pair's sides as JSON text) and its metadata as JSON text, keyed as ``pair_keys``
    says."""
    get = fields.get
    keyed = [get(name) for name in _KEYED]
    if not _texts(keyed):
        raise TypeError(f"a pair's {', '.join(_KEYED)} are each text or absent")
    external_id, *identity, side_a, side_b, tools = keyed
    turn = get("turn")
    conversation = None
    if turn is not None:  # a conversation pair: both sides are there with its turn
        conversation = cast("tuple[str, str, int]", (side_a, side_b, turn))
    key = content_key(external_id, *identity, conversation=conversation, tools=tools)
    return PairRow._make((key, *map(get, _FIELD_COLUMNS), metadata))


def _texts(values: list[object]) -> TypeGuard[list[str | None]]:
    return all(value is None or isinstance(value, str) for value in values)


def stored_row(fields: Mapping[str, object], metadata: str | None) -> PairRow:
    """A prepared pairs row of a pair read from a project with its ``pair_key``: the key
    is kept as that project made it."""
    return PairRow._make((fields["pair_key"], *map(fields.__getitem__, _FIELD_COLUMNS), metadata))


def insert_rows(conn: sqlite3.Connection, rows: Sequence[PairRow]) -> int:
    """Insert prepared rows (see new_row) inside the caller's transaction; returns how many
    were new."""
    most = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER) // len(_INSERTED)
    step = max(1, min(_ROWS_PER_INSERT, most))
    added = 0
    counted = [_counted(row) for row in rows]  # a trajectory's counts, else None
    for start in range(0, len(rows), step):
        chunk = rows[start : start + step]
        values: list[object] = []
        for row, counts in zip(chunk, counted[start : start + step], strict=True):
            values += row
            values += totals(counts) if counts is not None else _NO_TOTALS
        # The statement's own rows (total_changes would count the search index's too).
        added += conn.execute(_insert(len(chunk)), values).rowcount
    add_counts(conn, [(row[0], c) for row, c in zip(rows, counted, strict=True) if c is not None])
    return added


_NO_TOTALS = (None,) * len(_TOTALS)


def _counted(row: PairRow) -> tuple[int, ...] | None:
    """A prepared row's trajectory counts (``pair_steps.counts_row``), else None."""
    if row.turn is None:
        return None
    return counts_row(row.conversation_a, row.conversation_b, row.tools)


def ids_for_keys(conn: sqlite3.Connection, keys: Iterable[str]) -> dict[str, int]:
    return {key: pair_id for rows in _by_keys(conn, ("id",), keys) for key, pair_id in rows}


def identities_for_keys(
    conn: sqlite3.Connection, keys: Iterable[str]
) -> dict[str, tuple[int, dict[str, str | int | None]]]:
    """The pairs with these keys: each one's row id, IDENTITY_FIELDS and
    CONVERSATION_FIELDS."""
    return {
        row[0]: (row[1], dict(zip(_CLASH_FIELDS, row[2:], strict=True)))
        for rows in _by_keys(conn, ("id", *_CLASH_FIELDS), keys)
        for row in rows
    }


def _by_keys(
    conn: sqlite3.Connection, columns: Sequence[str], keys: Iterable[str]
) -> Iterator[sqlite3.Cursor]:
    """The rows, ``pair_key`` then ``columns``, of the pairs with these keys: a cursor for
    each 500 keys."""
    keys = list(keys)
    for start in range(0, len(keys), 500):
        chunk = keys[start : start + 500]
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT pair_key, {', '.join(columns)} FROM pairs WHERE pair_key IN ({marks})"
        yield conn.execute(sql, chunk)


def last_id(store: ProjectStore) -> int:
    """The highest row id in use (0 for none): pairs above it are added after now."""
    return store.conn.execute("SELECT coalesce(max(id), 0) FROM pairs").fetchone()[0]


def pair_ids_matching(
    store: ProjectStore, where: str | None, pair_ids: Sequence[int] | None
) -> list[int]:
    """Ids, in order, of the pairs among ``pair_ids`` (all when None) that meet ``where``,
    a user's SQL condition on the pairs' columns (``tiebreak judge --where``)."""
    condition, params = _selection(where, pair_ids)
    return [
        r[0]
        for r in _run(store, f"SELECT p.id FROM pairs p {condition} ORDER BY p.id", params, where)
    ]


# What str.strip() strips: a text of only these is as good as none (render.variables_for).
_WHITESPACE = "".join(c for c in map(chr, range(0x3001)) if c.isspace())


def count_lacking(
    store: ProjectStore, field: str, where: str | None, pair_ids: Sequence[int] | None
) -> tuple[int, int]:
    """(pairs selected as ``pair_ids_matching`` selects them, how many of those have no
    ``field``, one of OPTIONAL_FIELDS: none, or only whitespace)."""
    if field not in OPTIONAL_FIELDS:
        raise ValueError(field)
    condition, params = _selection(where, pair_ids)
    sql = (
        f"SELECT count(*), coalesce(sum(coalesce(trim(p.{field}, ?), '') = ''), 0)"
        f" FROM pairs p {condition}"
    )
    selected, lacking = _run(store, sql, [_WHITESPACE, *params], where)[0]
    return selected, lacking


def _selection(where: str | None, pair_ids: Sequence[int] | None) -> tuple[str, list[int | str]]:
    clauses: list[str] = []
    params: list[int | str] = []
    if pair_ids is not None:
        clauses.append(f"p.id IN ({','.join('?' * len(pair_ids))})")
        params.extend(pair_ids)
    if where:
        clauses.append(f"({where})")
    return (f"WHERE {' AND '.join(clauses)}" if clauses else ""), params


def _run(
    store: ProjectStore, sql: str, params: list[int | str], where: str | None
) -> list[tuple[int, ...]]:
    """The rows, numbers each (ids, counts), of a query with a user's condition."""
    try:
        return store.conn.execute(sql, params).fetchall()
    except sqlite3.Error as exc:
        raise TiebreakError(f"--where {where!r}: {exc}") from None


def pair_ids(store: ProjectStore) -> set[int]:
    """The row id of every pair."""
    return {r[0] for r in store.conn.execute("SELECT id FROM pairs")}


def count_pairs(store: ProjectStore) -> int:
    return store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0]


#: What a Pair is read from: its stored fields, conversations as stored (decoded below,
#: where ``sides_from_json`` shares the history two sides start with), metadata as stored.
_WHOLE = PairQuery(columns=(*EVERY_STORED_FIELD, "metadata_text"))


def _pair(fields: PairColumns) -> Pair:
    """A pair as the reader read it."""
    text = fields.metadata_text
    side_a, side_b = sides_from_json(fields.conversation_a, fields.conversation_b)
    return Pair(
        fields.instruction,
        fields.response_a,
        fields.response_b,
        fields.reference,
        fields.source,
        metadata=json.loads(text) if text else {},
        id=fields.id,
        external_id=fields.external_id,
        model_a=fields.model_a,
        model_b=fields.model_b,
        category=fields.category,
        conversation_a=side_a,
        conversation_b=side_b,
        turn=fields.turn,
        tools=fields.tools,
    )


def _first(store: ProjectStore, where: Condition) -> Pair | None:
    """The first pair, in id order, that meets ``where``."""
    records = read_pairs(store, _WHOLE, where=where)
    try:
        record = next(records, None)
    finally:
        records.close()
    return None if record is None else _pair(record.fields)


def get_pair(store: ProjectStore, pair_id: int) -> Pair | None:
    record = read_pair(store, _WHOLE, pair_id)
    return None if record is None else _pair(record.fields)


def get_pairs(store: ProjectStore, pair_ids: Sequence[int]) -> dict[int, Pair]:
    """The pairs of these ids (at most 500, one query; an id no pair has is left out)."""
    ids = list(dict.fromkeys(pair_ids))
    if not ids:
        return {}
    return {r.id: _pair(r.fields) for r in read_pairs(store, _WHOLE, ids=ids)}


def pairs_if_readable(store: ProjectStore, pair_ids: Sequence[int]) -> list[Pair]:
    """``get_pairs``'s pairs, or none where the file cannot be read now (locked, damaged,
    closed): for reading ahead, whose failure is the next read's to report."""
    try:
        return list(get_pairs(store, pair_ids).values())
    except (sqlite3.Error, TiebreakError):
        return []


def find_pair(store: ProjectStore, ref: str) -> Pair:
    """A pair named by a person: its external id, or ``#N`` / ``N`` for the row id."""
    pair = _first(store, Condition("p.external_id = :c_ref", {"c_ref": ref}))
    if pair is None:
        number = row_number(ref[1:] if ref.startswith("#") else ref)
        if number is not None:
            pair = get_pair(store, number)
    if pair is None:
        raise TiebreakError(f"{store.path}: no pair with id {ref!r}")
    return pair


def row_number(text: str) -> int | None:
    """``text`` as a row id, or None where it writes none: ASCII digits only (``str.isdigit``
    takes "²", which ``int`` refuses), and within SQLite's range (beyond it no row is, and
    sqlite3 raises OverflowError rather than finding none)."""
    if not (text.isascii() and text.isdigit()) or len(text) > 19:
        return None
    number = int(text)
    return number if number <= SQLITE_MAX else None


def iter_pairs(store: ProjectStore) -> Iterator[Pair]:
    """Every pair in id order, streamed from one cursor, so memory stays flat."""
    return (_pair(record.fields) for record in read_pairs(store, _WHOLE))


_ROLE_COUNT = (
    "(SELECT count(*) FROM json_each(p.{side}) WHERE json_extract(value, '$.role') = '{role}')"
)


def conversation_turns(store: ProjectStore, *, runs: bool = True) -> int:
    """At least as many turns as any side of any conversation pair has (its assistant
    messages, or its user messages where a request follows the last answer); 0 where the
    project holds none (an export then writes the columns it always wrote). Without
    ``runs``, trajectories (the pairs ``pair_steps`` counts) are left out (their steps are
    no turns; an export gives each run a cell of its own)."""
    per_side = (
        _ROLE_COUNT.format(side=side, role=role)
        for side in ("conversation_a", "conversation_b")
        for role in ("user", "assistant")
    )
    row = store.conn.execute(
        f"SELECT max(max({', '.join(per_side)})) FROM pairs p WHERE p.turn IS NOT NULL"
        + ("" if runs else " AND p.id NOT IN (SELECT pair_id FROM pair_steps)")
    ).fetchone()
    return row[0] or 0
