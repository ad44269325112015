"""Opening files the desktop's way and installing the desktop entry, with what a file
manager or a careless user may pass: every refusal is one line and changes nothing."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import new_project
from tests.hostile.conftest import Hostile, fingerprint

OFFSCREEN = {"QT_QPA_PLATFORM": "offscreen"}


def test_a_missing_project_named_alone(tmp_path: Path, hostile: Hostile) -> None:
    run = hostile.cli(tmp_path / "gone.tiebreak", env=OFFSCREEN)
    hostile.refused(run, says="gone.tiebreak: no such project")


def test_a_file_that_is_no_project(tmp_path: Path, hostile: Hostile) -> None:
    junk = tmp_path / "notes.tiebreak"
    junk.write_text("just some notes\n", encoding="utf-8")
    before = fingerprint(junk)
    run = hostile.cli(junk, env=OFFSCREEN)
    hostile.refused(run, says="not a Tiebreak project", project=junk, before=before)


def test_another_programs_database_by_path(tmp_path: Path, hostile: Hostile) -> None:
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    before = fingerprint(other)
    run = hostile.cli(other.resolve(), env=OFFSCREEN)
    hostile.refused(run, says="another program", project=other, before=before)


def test_a_folder_named_like_a_project(tmp_path: Path, hostile: Hostile) -> None:
    folder = tmp_path / "dir.tiebreak"
    folder.mkdir()
    hostile.refused(hostile.cli(folder, env=OFFSCREEN), says="is a folder")


def test_a_damaged_project_from_the_file_manager(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    data = bytearray(project.read_bytes())
    data[200:4096] = b"\xff" * (4096 - 200)
    project.write_bytes(bytes(data))
    before = fingerprint(project)
    run = hostile.cli(project.resolve(), env=OFFSCREEN)
    hostile.refused(run, project=project, before=before)


def test_an_option_named_like_a_project_is_a_usage_error(hostile: Hostile) -> None:
    hostile.refused(hostile.cli("--x.tiebreak"), code=2)


def test_install_desktop_where_the_data_home_is_a_file(tmp_path: Path, hostile: Hostile) -> None:
    blocker = tmp_path / "share"
    blocker.write_text("a file where a folder should be", encoding="utf-8")
    run = hostile.cli("install-desktop", env={"XDG_DATA_HOME": str(blocker)})
    hostile.refused(run, says="cannot be written")
    assert blocker.read_text(encoding="utf-8") == "a file where a folder should be"


def test_uninstall_desktop_when_nothing_is_installed(tmp_path: Path, hostile: Hostile) -> None:
    run = hostile.cli("install-desktop", "--uninstall", env={"XDG_DATA_HOME": str(tmp_path)})
    hostile.succeeded(run)
    assert "removed" not in run.stdout
