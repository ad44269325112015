"""The project file: creation, migrations, and refusing every kind of unfit file."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.migrations import APPLICATION_ID
from desktop.adapters.store.schema import MIGRATION_NAMES
from desktop.domain.errors import ProjectError
from tests.helpers import new_project, write_lock_held


def _snapshot(path: Path) -> bytes:
    return path.read_bytes()


def test_new_project_is_wal_and_versioned(tmp_path: Path) -> None:
    path = tmp_path / "p.tiebreak"
    with open_project(path, create=True) as store:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert {"pairs", "rubrics", "judge_results", "human_verdicts", "settings"} <= set(
            store.db.table_names()
        )
    with open_project(path) as store:  # reopening applies nothing new
        applied = store.conn.execute("SELECT name FROM _sqlite_migrations").fetchall()
        assert [r[0] for r in applied] == [
            "m001_initial",
            "m002_pair_identity",
            "m003_judge_preference",
            "m004_conversations",
            "m005_search_index",
            "m006_samples",
            "m007_judge_seen",
            "m008_juries",
            "m009_review_marks",
            "m010_pairs_with_nul",
            "m011_trajectory_tools",
            "m012_trajectory_steps",
            "m013_search_backlog",
            "m015_data_revision",
            "m016_answer_measures",
        ]


def test_new_refuses_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "p.tiebreak"
    path.write_text("keep me")
    with pytest.raises(ProjectError, match="already exists"):
        open_project(path, create=True)
    assert path.read_text() == "keep me"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "not a Tiebreak project"),
        (b"pair,instruction\n1,hello\n", "not an SQLite database"),
        (b"SQLite format 3\x00" + b"\x00" * 200, "damaged"),
    ],
)
def test_unfit_files_are_refused_unchanged(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.tiebreak"
    path.write_bytes(content)
    with pytest.raises(ProjectError, match=message) as info:
        open_project(path)
    assert "\n" not in str(info.value)
    assert path.read_bytes() == content
    assert not Path(f"{path}-wal").exists()


def test_foreign_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    before = _snapshot(path)
    with pytest.raises(ProjectError, match="another program"):
        open_project(path)
    assert _snapshot(path) == before


def test_missing_project_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="tiebreak new"):
        open_project(tmp_path / "nope.tiebreak")


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "p.tiebreak"
    open_project(path, create=True).close()
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO _sqlite_migrations(migration_set, name, applied_at)"
        " VALUES ('tiebreak', 'm999_from_the_future', 'x')"
    )
    conn.commit()
    conn.close()
    with pytest.raises(ProjectError, match="newer Tiebreak"):
        open_project(path)


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0, reason="root ignores file permissions"
)
def test_read_only_file_is_refused_for_writing(tmp_path: Path) -> None:
    path = tmp_path / "p.tiebreak"
    open_project(path, create=True).close()
    path.chmod(stat.S_IRUSR)
    with pytest.raises(ProjectError, match="read-only"):
        open_project(path)


def test_read_only_file_is_refused_for_writing_even_as_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "p.tiebreak"
    open_project(path, create=True).close()
    real_access = os.access
    monkeypatch.setattr(
        os,
        "access",
        lambda p, mode: False if mode == os.W_OK and Path(p) == path else real_access(p, mode),
    )
    with pytest.raises(ProjectError, match="read-only"):
        open_project(path)


def test_locked_by_another_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "p.tiebreak"
    open_project(path, create=True).close()
    monkeypatch.setattr("desktop.adapters.store.connection.BUSY_TIMEOUT_MS", 100)
    with (
        write_lock_held(path),
        open_project(path) as store,
        pytest.raises(ProjectError, match="locked by another"),
    ):
        store.set_setting("position", "3")
    with open_project(path) as store:
        assert store.get_setting("position") is None
        assert store.get_setting("held") is None  # the other writer never committed


def test_schema_names_match_the_migrations() -> None:
    from desktop.adapters.store.migrations import known_migrations

    assert known_migrations() == MIGRATION_NAMES


def test_opening_a_current_project_does_not_load_sqlite_utils(tmp_path: Path) -> None:
    """Start-up time: sqlite-utils (and what it imports) loads only to migrate."""
    path = new_project(tmp_path)
    code = (
        "import sys; from desktop.adapters.store import open_project;"
        f" s = open_project({str(path)!r}); s.set_setting('k', 'v');"
        " print('sqlite_utils' in sys.modules, s.get_setting('k'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "v"]


def test_nested_transactions_roll_back_only_their_part(tmp_path: Path) -> None:
    with open_project(new_project(tmp_path)) as store:
        with store.transaction():
            store.conn.execute("INSERT INTO settings VALUES ('outer', '1')")
            with pytest.raises(ValueError), store.transaction():
                store.conn.execute("INSERT INTO settings VALUES ('inner', '1')")
                raise ValueError("inner fails")
        assert store.get_setting("outer") == "1"
        assert store.get_setting("inner") is None
        with pytest.raises(ValueError), store.transaction():
            store.conn.execute("INSERT INTO settings VALUES ('gone', '1')")
            raise ValueError("outer fails")
        assert store.get_setting("gone") is None
        assert not store.conn.in_transaction
