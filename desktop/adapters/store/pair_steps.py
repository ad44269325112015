"""What each side of a trajectory pair did (``pair_steps``, migration m012): its steps,
tool calls and the results its tools returned as errors, for the pair list's columns, sort
and filters; and the index that lets the list's search find text in tool arguments and
results (``steps_search``).

Counted once, as a pair is added (``insert_rows`` writes both sides' totals in the pair's
row, ``pairs.steps``, ``calls`` and ``errors``, each indexed, so a sort by one is a seek,
and calls ``add_counts``; m012 counts the pairs a project already holds), by the domain's
own reading of each format (``domain/trajectory.counts_of_json``), not per pair
shown: a page of 10,000 trajectories sorted by steps is then a seek of an index and of
this small table, not 20,000 sides parsed.
Only trajectory pairs have a row (a side calls a tool or carries a result, or the pair
keeps tool definitions), so a project without one has an empty table and the list shows
no such columns.

``steps_search`` is SQLite's FTS5 with the trigram tokenizer, as ``pairs_search`` (m005),
over the text of every string and number in each side's messages but their structural
members (role, type, ids): what the agent said, tool names, arguments (OpenAI's JSON
string as written, other forms' values) and results. Its content is the view
``pair_steps_text``, which works that text out of the stored JSON (``json_tree``), so the
index holds no copy of it; triggers on ``pair_steps`` and ``pairs`` keep it in step.
FTS5's ``'rebuild'`` cannot read that view (a table-valued function inside it is "SQL logic
error"): to build the index again, ``'delete-all'`` and insert each counted pair's text
as the insert trigger does.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from desktop.domain.trajectory import counts_of_json, may_act

if TYPE_CHECKING:
    from sqlite_utils import Database

#: The counts of a pair, as the table's columns.
COUNT_COLUMNS = ("steps_a", "steps_b", "calls_a", "calls_b", "errors_a", "errors_b")
#: The members of a message that say what it is rather than what was said.
_STRUCTURAL = ("role", "type", "id", "tool_call_id", "tool_use_id")


def side_text(side: str) -> str:
    """SQL for the searchable text of a side (``side``, an SQL expression of its JSON)."""
    keys = ", ".join(f"'{k}'" for k in _STRUCTURAL)
    return (
        f"(SELECT group_concat(n.atom, char(10)) FROM json_tree({side}) n"
        " WHERE n.type IN ('text', 'integer', 'real')"
        f" AND (n.key IS NULL OR n.key NOT IN ({keys})))"
    )


def counts_row(
    conversation_a: str | None, conversation_b: str | None, tools: str | None
) -> tuple[int, ...] | None:
    """A pair's counts in COUNT_COLUMNS' order, or None where it is no trajectory."""
    if conversation_a is None or conversation_b is None:
        return None
    if tools is None and not (may_act(conversation_a) or may_act(conversation_b)):
        return None
    a, b = counts_of_json(conversation_a), counts_of_json(conversation_b)
    if tools is None and not (a.acts or b.acts):
        return None
    return (a.steps, b.steps, a.calls, b.calls, a.errors, b.errors)


def totals(counts: tuple[int, ...]) -> tuple[int, int, int]:
    """Steps, calls and errors of both sides together, from ``counts_row``'s counts: what
    the pairs table keeps beside each trajectory pair (m012) for the list to sort by."""
    return (counts[0] + counts[1], counts[2] + counts[3], counts[4] + counts[5])


#: Rows a statement adds: the index (``steps_search``) writes what it holds to the file at
#: the end of each statement, so one statement a pair (executemany) made an import of
#: 10,000 runs three times as long as one a batch.
_ROWS_PER_ADD = 2000


def _add(conn: sqlite3.Connection, rows: Sequence[tuple[int | str, ...]], by: str) -> None:
    """Insert counts rows (each its counts, then the pair's ``by``: ``pair_key`` or
    ``id``) a batch a statement."""
    width = len(COUNT_COLUMNS) + 1
    taken = ", ".join(f"v.column{i + 1}" for i in range(len(COUNT_COLUMNS)))
    for start in range(0, len(rows), _ROWS_PER_ADD):
        chunk = rows[start : start + _ROWS_PER_ADD]
        marks = ", ".join([f"({', '.join('?' * width)})"] * len(chunk))
        conn.execute(
            f"INSERT OR IGNORE INTO pair_steps (pair_id, {', '.join(COUNT_COLUMNS)})"
            f" SELECT p.id, {taken} FROM (VALUES {marks}) v"
            f" JOIN pairs p ON p.{by} = v.column{width}",
            [value for row in chunk for value in row],
        )


def add_counts(conn: sqlite3.Connection, counted: Iterable[tuple[str, tuple[int, ...]]]) -> None:
    """Keep the counts of trajectory pairs just inserted, each given as its ``pair_key``
    and ``counts_row``, inside the caller's transaction; a pair counted before is kept as
    it was."""
    _add(conn, [(*counts, key) for key, counts in counted], "pair_key")


def count_existing(conn: sqlite3.Connection) -> int:
    """Count every trajectory pair a project holds (m012, once); how many there were."""
    added = 0
    cursor = conn.execute(
        "SELECT id, conversation_a, conversation_b, tools FROM pairs WHERE turn IS NOT NULL"
    )
    found = []
    while batch := cursor.fetchmany(500):
        for pair_id, a, b, tools in batch:
            counts = counts_row(a, b, tools)
            if counts is not None:
                found.append((pair_id, counts))
    for start in range(0, len(found), _ROWS_PER_ADD):
        chunk = found[start : start + _ROWS_PER_ADD]
        _add(conn, [(*counts, pair_id) for pair_id, counts in chunk], "id")
        conn.executemany(
            "UPDATE pairs SET steps = ?, calls = ?, errors = ? WHERE id = ?",
            [(*totals(counts), pair_id) for pair_id, counts in chunk],
        )
        added += len(chunk)
    return added


def holds_trajectories(conn: sqlite3.Connection) -> bool:
    """Whether the project holds a trajectory pair (one seek)."""
    return conn.execute("SELECT EXISTS (SELECT 1 FROM pair_steps)").fetchone()[0] == 1


def create_schema(db: Database) -> None:
    """Migration m012's step, kept beside what reads and writes its tables: ``pair_steps``,
    the totals in ``pairs``, the view ``pair_steps_text``, ``steps_search`` and the
    triggers that keep them in step (see the module's docstring); then the pairs a project
    already holds are counted, once. Released: never edited, a later migration changes it."""
    db.execute(
        """
        CREATE TABLE pair_steps (
            pair_id INTEGER PRIMARY KEY REFERENCES pairs(id),
            steps_a INTEGER NOT NULL,
            steps_b INTEGER NOT NULL,
            calls_a INTEGER NOT NULL,
            calls_b INTEGER NOT NULL,
            errors_a INTEGER NOT NULL,
            errors_b INTEGER NOT NULL
        )"""
    )
    # Both sides' totals in the pair's own row, each indexed: the list's sort by one is a
    # seek (NULL for any other pair, which sorts as -1).
    for total in ("steps", "calls", "errors"):
        db.execute(f"ALTER TABLE pairs ADD COLUMN {total} INTEGER")
        db.execute(f"CREATE INDEX pairs_{total} ON pairs(coalesce({total}, -1))")
    text_a, text_b = side_text("p.conversation_a"), side_text("p.conversation_b")
    db.execute(
        f"CREATE VIEW pair_steps_text AS SELECT s.pair_id AS id, {text_a} AS text_a,"
        f" {text_b} AS text_b FROM pair_steps s JOIN pairs p ON p.id = s.pair_id"
    )
    db.execute(
        "CREATE VIRTUAL TABLE steps_search USING fts5(text_a, text_b,"
        " content='pair_steps_text', content_rowid='id', tokenize='trigram', detail='none',"
        " columnsize=0)"
    )
    of = "FROM pairs p WHERE p.id = {row}.pair_id"
    db.execute(
        "CREATE TRIGGER pair_steps_insert AFTER INSERT ON pair_steps BEGIN"
        f" INSERT INTO steps_search(rowid, text_a, text_b) SELECT p.id, {text_a}, {text_b}"
        f" {of.format(row='new')}; END"
    )
    db.execute(
        "CREATE TRIGGER pair_steps_delete BEFORE DELETE ON pair_steps BEGIN"
        " INSERT INTO steps_search(steps_search, rowid, text_a, text_b)"
        f" SELECT 'delete', p.id, {text_a}, {text_b} {of.format(row='old')}; END"
    )
    db.execute(
        "CREATE TRIGGER pairs_steps_delete BEFORE DELETE ON pairs BEGIN"
        " DELETE FROM pair_steps WHERE pair_id = old.id; END"
    )
    sides = "conversation_a, conversation_b"
    counted = "old.id IN (SELECT pair_id FROM pair_steps)"
    db.execute(
        f"CREATE TRIGGER pairs_steps_update_old BEFORE UPDATE OF {sides} ON pairs WHEN {counted}"
        " BEGIN INSERT INTO steps_search(steps_search, rowid, text_a, text_b)"
        f" SELECT 'delete', p.id, {text_a}, {text_b} FROM pairs p WHERE p.id = old.id; END"
    )
    db.execute(
        f"CREATE TRIGGER pairs_steps_update_new AFTER UPDATE OF {sides} ON pairs WHEN {counted}"
        f" BEGIN INSERT INTO steps_search(rowid, text_a, text_b) SELECT p.id, {text_a}, {text_b}"
        " FROM pairs p WHERE p.id = new.id; END"
    )
    count_existing(db.conn)
