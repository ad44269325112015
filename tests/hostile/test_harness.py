"""The harness itself: a refusal that changes the project, or prints a traceback, fails."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, Run, fingerprint


def test_fingerprint_sees_a_changed_row(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    conn = sqlite3.connect(project)
    conn.execute("INSERT INTO settings(key, value) VALUES ('x', 'y')")
    conn.commit()
    conn.close()
    assert fingerprint(project) != before


def test_fingerprint_of_a_file_sqlite_cannot_read(tmp_path: Path) -> None:
    junk = tmp_path / "junk.tiebreak"
    junk.write_bytes(b"not a database" * 100)
    assert fingerprint(junk).startswith("bytes:")


def test_refused_rejects_a_traceback_and_a_change(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    with pytest.raises(AssertionError):
        hostile.refused(Run(1, "", "Traceback (most recent call last):\n  boom\n"))
    with pytest.raises(AssertionError):
        hostile.refused(Run(0, "", ""), project=project, before=before)
    write_jsonl(tmp_path / "a.jsonl", [{"instruction": "i", "output_1": "a", "output_2": "b"}])
    hostile.succeeded(hostile.cli("import", project, tmp_path / "a.jsonl"))
    with pytest.raises(AssertionError, match="changed"):
        hostile.refused(Run(1, "", "tiebreak: error: x\n"), project=project, before=before)


def test_a_missing_project_is_refused(tmp_path: Path, hostile: Hostile) -> None:
    hostile.refused(hostile.cli("stats", tmp_path / "nothing.tiebreak"), says="no such project")
