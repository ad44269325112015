"""The pairs the search index (``pairs_search``, m005) does not hold yet: a large import
leaves them out and returns, and they are indexed after it, a chunk a transaction, while
the search reads them whole (``search_index``).

``search_backlog`` (m013) holds at most one row: every pair from ``first_id`` on is
outside the index, every pair below it inside (no row: all are). m013's triggers keep
that true for any insert, delete or change of a pair, whichever id it has, so an import,
a merge or an edit during the backlog needs nothing of its own. Indexing a chunk moves
``first_id`` past it in the same transaction: an indexer stopped anywhere (a crash, the
file moved) leaves the index and the backlog true to each other, and the next one goes
on from there.
"""

from __future__ import annotations

import sqlite3

#: SQL: the first pair outside the index (NULL: none is). For a condition on ``p.id``.
FIRST_UNINDEXED = "(SELECT first_id FROM search_backlog)"


def first_unindexed(conn: sqlite3.Connection) -> int | None:
    """The id from which pairs are outside the index, or None: the index holds every pair."""
    row = conn.execute("SELECT first_id FROM search_backlog").fetchone()
    return None if row is None else int(row[0])


def defer(conn: sqlite3.Connection) -> None:
    """Inside the caller's transaction: the pairs added from now on stay out of the index
    (an import's; where a backlog is there already, it goes on from where it stands)."""
    conn.execute(
        "INSERT INTO search_backlog(first_id) SELECT coalesce(max(id), 0) + 1 FROM pairs"
        " WHERE NOT EXISTS (SELECT 1 FROM search_backlog)"
    )


def unindexed(conn: sqlite3.Connection) -> int:
    """At most how many pairs are outside the index: the span of their ids (two seeks; a
    count would read every row of them)."""
    row = conn.execute(
        f"SELECT max(id) - {FIRST_UNINDEXED} + 1 FROM pairs WHERE id >= {FIRST_UNINDEXED}"
    ).fetchone()
    return int(row[0] or 0)


def index_some(conn: sqlite3.Connection, most: int) -> int:
    """Inside the caller's transaction: put up to ``most`` of the pairs outside the index
    into it, in id order, and move the backlog past them (gone once none is left);
    returns how many were indexed."""
    first = first_unindexed(conn)
    if first is None:
        return 0
    ids = conn.execute(
        "SELECT count(*), max(id) FROM (SELECT id FROM pairs WHERE id >= ? ORDER BY id LIMIT ?)",
        [first, most],
    ).fetchone()
    count, last = int(ids[0]), ids[1]
    if count:
        # One statement: FTS5 writes what it gathered at its end, so one per chunk.
        conn.execute(
            "INSERT INTO pairs_search(rowid, instruction, response_a, response_b)"
            " SELECT id, instruction, response_a, response_b FROM pairs"
            " WHERE id BETWEEN ? AND ? ORDER BY id",
            [first, last],
        )
    after = last if count else first - 1
    if conn.execute("SELECT 1 FROM pairs WHERE id > ? LIMIT 1", [after]).fetchone() is None:
        conn.execute("DELETE FROM search_backlog")
    else:
        conn.execute("UPDATE search_backlog SET first_id = ?", [after + 1])
    return count
