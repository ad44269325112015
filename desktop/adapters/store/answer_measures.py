"""Each pair's two answers as the figures measure them (m016, ``domain.answer_measures``),
kept so a large project's figures read a few integers a pair instead of every text again.

A row is a pair's measures by one tokenizer (its name kept with them: a count by another
tokenizer is not this one's). A pair with no row, or a row by another tokenizer, is
measured where a figure needs it (``services.answer_measuring``); m016's triggers take the
row away when the pair is deleted or its answers change, so a row is never stale.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator

from desktop.domain.answer_measures import Measures, Style
from desktop.domain.judge_biases import Answer

#: The measured columns, A's then B's: a ``Measures`` flattened.
_ONE = ("length", "has_list", "tokens", "headers", "lists", "bold")
COLUMNS = tuple(f"{c}_{side}" for side in ("a", "b") for c in _ONE)


#: Ids per ``IN (...)``: under 999, the fewest variables an SQLite build may allow.
_IDS_A_QUERY = 900


def _chunks(ids: Iterable[int]) -> Iterator[list[int]]:
    """``ids`` in order, without repeats, a statement's worth at a time."""
    wanted = sorted(set(ids))
    for i in range(0, len(wanted), _IDS_A_QUERY):
        yield wanted[i : i + _IDS_A_QUERY]


def _flat(m: Measures) -> tuple[int, ...]:
    return (m.length, int(m.has_list), *m.style)


def keep(
    conn: sqlite3.Connection,
    tokenizer: str,
    rows: Iterable[tuple[int, str, str, Measures, Measures]],
) -> int:
    """Inside the caller's transaction: keep each (pair id, A's text, B's text, A's
    measures, B's measures), replacing a row by another tokenizer. A pair deleted since its
    texts were read, or whose answers are no longer those texts, gets no row. Returns how
    many rows were written."""
    marks = ", ".join("?" * (len(COLUMNS) + 2))
    cursor = conn.executemany(
        f"INSERT OR REPLACE INTO answer_measures (pair_id, tokenizer, {', '.join(COLUMNS)})"
        f" SELECT {marks} WHERE EXISTS (SELECT 1 FROM pairs"
        " WHERE id = ? AND response_a = ? AND response_b = ?)",
        [(pid, tokenizer, *_flat(ma), *_flat(mb), pid, a, b) for pid, a, b, ma, mb in rows],
    )
    return cursor.rowcount


def _selected(
    conn: sqlite3.Connection,
    columns: str,
    where: str,
    args: list[object],
    ids: Iterable[int] | None,
) -> Iterator[tuple[int, ...]]:
    """Rows of ``columns`` (after pair_id) of the kept measures, of ``ids`` (None: all)."""
    select = f"SELECT pair_id, {columns} FROM answer_measures WHERE {where}"
    if ids is None:
        yield from conn.execute(select, args)
        return
    for chunk in _chunks(ids):
        yield from conn.execute(
            f"{select} AND pair_id IN ({', '.join('?' * len(chunk))})", [*args, *chunk]
        )


def kept_styles(
    conn: sqlite3.Connection, tokenizer: str, ids: Iterable[int] | None = None
) -> dict[int, tuple[Style, Style]]:
    """A's and B's style counts kept by ``tokenizer``, of ``ids`` (None: every pair's)."""
    columns = ", ".join(f"{c}_{s}" for s in ("a", "b") for c in _ONE[2:])
    return {
        pid: ((ta, ha, la, ba), (tb, hb, lb, bb))
        for pid, ta, ha, la, ba, tb, hb, lb, bb in _selected(
            conn, columns, "tokenizer = ?", [tokenizer], ids
        )
    }


def kept_answers(
    conn: sqlite3.Connection, ids: Iterable[int] | None = None
) -> dict[int, tuple[Answer, Answer]]:
    """A's and B's lengths and list marks kept (by any tokenizer: they count no tokens), of
    ``ids`` (None: every pair's)."""
    return {
        pid: (Answer(la, bool(xa)), Answer(lb, bool(xb)))
        for pid, la, xa, lb, xb in _selected(
            conn, "length_a, has_list_a, length_b, has_list_b", "1", [], ids
        )
    }


def unmeasured(
    conn: sqlite3.Connection, tokenizer: str, after: int, most: int
) -> list[tuple[int, str, str]]:
    """Up to ``most`` pairs after id ``after``, in id order, with no measures by
    ``tokenizer``: (id, response A, response B)."""
    return [
        (int(pid), str(a or ""), str(b or ""))
        for pid, a, b in conn.execute(
            "SELECT p.id, p.response_a, p.response_b FROM pairs p"
            " LEFT JOIN answer_measures m ON m.pair_id = p.id AND m.tokenizer = ?"
            " WHERE p.id > ? AND m.pair_id IS NULL ORDER BY p.id LIMIT ?",
            [tokenizer, after, most],
        )
    ]


def texts_of(conn: sqlite3.Connection, ids: Iterable[int]) -> Iterator[tuple[int, str, str]]:
    """(id, response A, response B) of the pairs ``ids``, in id order."""
    for chunk in _chunks(ids):
        for pid, a, b in conn.execute(
            "SELECT id, response_a, response_b FROM pairs"
            f" WHERE id IN ({', '.join('?' * len(chunk))}) ORDER BY id",
            chunk,
        ):
            yield int(pid), str(a or ""), str(b or "")
