"""A damaged project file is refused before any write, and every read that meets the
damage says so in one line naming the file; a file left in another journal mode waits
for its writer instead of failing."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.damage import damage_error
from desktop.domain.errors import ProjectError
from tests.helpers import new_project, write_jsonl, write_lock_held


def _project(tmp_path: Path, n: int = 400) -> Path:
    """Pairs of about 3 KB each, so the pairs' pages are most of the file."""
    from desktop.services.importing import import_file

    path = new_project(tmp_path)
    rows = [
        {
            "instruction": f"question {i} " + "x" * 1000,
            "output_1": "a" * 1000,
            "output_2": "b" * 1000,
        }
        for i in range(n)
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "d.jsonl", rows))
    return path


def _damage(path: Path) -> None:
    size = path.stat().st_size
    with path.open("r+b") as fh:
        fh.seek(size // 2)
        fh.write(b"\xff" * 8192)


def _quick_checks(store) -> list[str]:
    seen: list[str] = []
    store.conn.set_trace_callback(lambda sql: seen.append(sql) if "quick_check" in sql else None)
    return seen


def test_a_write_to_a_damaged_file_is_refused_before_it_starts(tmp_path: Path) -> None:
    path = _project(tmp_path)
    _damage(path)
    before = path.read_bytes()
    with open_project(path) as store:
        assert store.get_setting("rubric") is None  # a read that misses the damage works
        with pytest.raises(ProjectError, match=r"p\.tiebreak: the file is damaged \(Page \d+"):
            store.set_setting("rubric", "x")
    assert path.read_bytes() == before


@pytest.mark.parametrize("how", ["iterate", "fetchall", "fetchone", "fetchmany"])
def test_every_way_of_reading_names_the_damaged_file(tmp_path: Path, how: str) -> None:
    path = _project(tmp_path)
    _damage(path)
    with open_project(path, readonly=True) as store:
        cursor = store.conn.execute("SELECT * FROM pairs ORDER BY id")
        with pytest.raises(ProjectError) as caught:
            if how == "iterate":
                list(cursor)
            else:
                while getattr(cursor, how)():
                    pass
    assert str(caught.value).startswith(f"{path}: the file is damaged (")


def test_the_check_runs_once_while_the_file_is_held(tmp_path: Path) -> None:
    """The window's workers and a command's later writes do not pay for it again."""
    path = _project(tmp_path, 10)
    os.utime(path)  # as if changed by another program since Tiebreak last closed it
    with open_project(path) as first:
        seen_first = _quick_checks(first)
        first.set_setting("a", "1")
        first.set_setting("a", "2")
        with open_project(path) as second:
            seen_second = _quick_checks(second)
            second.set_setting("b", "1")
    assert (len(seen_first), len(seen_second)) == (1, 0)


def test_a_file_only_tiebreak_changed_is_not_checked_again(tmp_path: Path) -> None:
    """Sound when last closed, and changed by nothing else since: a stat, not a read of
    every page. Any other change, even one that puts the modification time back, and the
    next write checks the whole file again."""
    path = _project(tmp_path, 10)
    for outside_change, checks in ((None, 0), ("touch", 1), ("same mtime", 1), (None, 0)):
        if outside_change == "touch":
            os.utime(path)
        elif outside_change == "same mtime":
            info = path.stat()
            byte = path.read_bytes()[100:101]
            with path.open("r+b") as fh:
                fh.seek(100)
                fh.write(byte)  # the same byte: only the file's times change
            os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
        with open_project(path) as store:
            seen = _quick_checks(store)
            store.set_setting("k", "v")
        assert len(seen) == checks, outside_change


def test_damage_behind_a_restored_modification_time_is_found(tmp_path: Path) -> None:
    path = _project(tmp_path)
    with open_project(path) as store:
        store.set_setting("k", "v")  # sound, and remembered so
    info = path.stat()
    _damage(path)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    with open_project(path) as store, pytest.raises(ProjectError, match="the file is damaged"):
        store.set_setting("k", "w")


def test_text_that_is_not_utf8_is_named_by_column_not_printed(tmp_path: Path) -> None:
    exc = sqlite3.OperationalError(
        "Could not decode to UTF-8 column 'category' with text '\x1b]0;owned\x07\ufffd'"
    )
    error = damage_error(tmp_path / "p.tiebreak", exc)
    assert error is not None
    assert "text that is not UTF-8 in column 'category'" in str(error)
    assert "\x1b" not in str(error) and "owned" not in str(error)


def test_a_file_left_in_rollback_mode_waits_for_its_writer(tmp_path: Path) -> None:
    """A project left out of WAL mode (by an older release's bulk import, say) and held by
    a writer: opening it waits for that writer instead of failing at once."""
    path = new_project(tmp_path)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0] == "delete"
    conn.close()
    with write_lock_held(path, seconds=1.0, commit=True):
        started = time.monotonic()
        with open_project(path) as store:
            assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert store.get_setting("held") == "1"
        assert time.monotonic() - started >= 0.5
