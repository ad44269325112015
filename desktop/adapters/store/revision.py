"""The project's data version: what figures computed from it are keyed by, so a second
look at an unchanged project reuses them, and any write that could change one is seen
(by this process or another reviewer's on the same file).

Migration m015 keeps a count of the writes to the tables in ``WATCHED``; pairs are added
too often for a trigger each (1,000,000 in one import), so the largest pair id stands for
them: an added pair raises it, and a deleted one is counted. Which judge verdicts a
reviewer was shown (``judge_seen``, written as pairs are shown) and the settings (the pair
last shown) move no figure and are not counted: showing a pair keeps the figures kept.
"""

from __future__ import annotations

import sqlite3

#: The tables whose writes can change a figure, and the writes counted (m015).
WATCHED: dict[str, tuple[str, ...]] = {
    "judge_results": ("INSERT", "UPDATE", "DELETE"),
    "human_verdicts": ("INSERT", "UPDATE", "DELETE"),
    "rubrics": ("INSERT", "UPDATE", "DELETE"),
    "samples": ("INSERT", "UPDATE", "DELETE"),
    "sample_pairs": ("INSERT", "UPDATE", "DELETE"),
    "juries": ("INSERT", "UPDATE", "DELETE"),
    "pairs": ("UPDATE", "DELETE"),
}


def data_version(conn: sqlite3.Connection) -> tuple[int, int]:
    """The count of writes and the largest pair id: equal on a project nothing changed
    since (two seeks, read in one statement so both are of one commit)."""
    row = conn.execute(
        "SELECT (SELECT n FROM revision WHERE id = 1), (SELECT max(id) FROM pairs)"
    ).fetchone()
    return int(row[0] or 0), int(row[1] or 0)
