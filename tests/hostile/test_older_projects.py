"""A project written by an earlier release (schema m001 only) is read by every reading
command: where it may be written, it is brought up to date first; where it may not (a
read-only folder, a colleague's file shared read-only), it is read through an up-to-date
copy in memory, and the file is left exactly as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database

from desktop.adapters.store import open_project
from desktop.adapters.store.migrations import migrations
from desktop.adapters.store.schema import APPLICATION_ID, MIGRATION_NAMES
from tests.helpers import new_project
from tests.hostile.conftest import Hostile, User, fingerprint

READERS = (
    ("export", "{p}", "{out}/labelled.csv"),
    ("stats", "{p}", "--json"),
    ("queue", "{p}", "--rubric", "href-overall"),
    ("judges", "{p}"),
    ("rubrics", "--project", "{p}"),
    ("merge", "{mine}", "{p}"),  # the other reviewer's project is only read
)


def older_project(path: Path) -> Path:
    """Two pairs and a reviewer's verdict, in a file as the release before m002 wrote it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    migrations.apply(Database(conn), stop_before="m002_pair_identity")
    for n in (1, 2):
        conn.execute(
            "INSERT INTO pairs (pair_key, external_id, instruction, response_a, response_b)"
            " VALUES (?, ?, ?, 'a', 'b')",
            [f"id:p{n}", f"p{n}", f"question {n}"],
        )
    conn.execute(
        "INSERT INTO human_verdicts (pair_id, rubric_name, dimension, verdict, reviewer,"
        " mode, created_at) VALUES (1, 'href-overall', 'overall', 'B', 'ann', 'cli',"
        " '2026-01-01T00:00:00Z')"
    )
    conn.close()
    return path


def _applied(path: Path) -> set[str]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM _sqlite_migrations")}
    finally:
        conn.close()


def _run_readers(hostile: Hostile, project: Path, out: Path, user: User | None) -> None:
    mine = new_project(out, "mine.tiebreak")
    for words in READERS:
        args = [w.format(p=project, out=out, mine=mine) for w in words]
        hostile.succeeded(hostile.cli(*args, user=user))
    with open_project(mine, readonly=True) as store:
        merged = store.conn.execute("SELECT reviewer, verdict FROM human_verdicts").fetchall()
    assert merged == [("ann", "B")]
    assert "overall_human" in (out / "labelled.csv").read_text(encoding="utf-8")


def test_an_older_project_is_brought_up_to_date_by_a_reader(
    tmp_path: Path, hostile: Hostile
) -> None:
    project = older_project(tmp_path / "old.tiebreak")
    out = tmp_path / "out"
    out.mkdir()
    _run_readers(hostile, project, out, None)
    assert _applied(project) == MIGRATION_NAMES


def test_an_older_project_in_a_read_only_folder_is_read_as_it_is(
    tmp_path: Path, plain_user: User, hostile: Hostile
) -> None:
    folder, out = tmp_path / "shared", tmp_path / "out"
    folder.mkdir()
    out.mkdir()
    project = older_project(folder / "old.tiebreak")
    before, listing = fingerprint(project), sorted(folder.iterdir())
    folder.chmod(0o555)
    try:
        _run_readers(hostile, project, out, plain_user)
        assert sorted(folder.iterdir()) == listing, "left a file beside it"
        assert fingerprint(project) == before
        assert "m002_pair_identity" not in _applied(project)
    finally:
        folder.chmod(0o755)
