"""A file moved or copied over a project while a long writer works on it (issue 29, items
1-3 and 18). The held-file check ran once, before an import's one transaction: a
colleague's file copied over the project 1.5 s into a 100,000-pair import took the import
and lost its own pairs (or became a hybrid that failed ``integrity_check``), a file moved
over it sent the pairs into the unlinked old file, and both said "pairs added" with exit 0.
A project moved to another file system within a second of a verdict lost that verdict: it
was still in the ``-wal`` beside the old name, which the session deleted when it let go.
Now a writer looks at its file while it writes and before it commits, a replaced file is
left exactly as it was put there, nothing is acknowledged that is not in the file the user
named, acknowledged writes reach the file before they are acknowledged, and a log that may
hold the only copy of acknowledged work is saved, never deleted."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from tests.held_projects import REFUSED, RUBRIC, beside, colleague_project, give_verdict, put_over
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, Run, fingerprint

IMPORTED = 20_000  # pairs of about 2 KB: the import reports progress at 12,000, mid-way
COLLEAGUE_PAIRS = 300


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.bench.bench_import_export import generate

    path = tmp_path_factory.mktemp("big") / "pairs.jsonl"
    generate(path, IMPORTED)
    return path


@pytest.fixture(scope="module")
def colleague_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return colleague_project(tmp_path_factory.mktemp("colleague"), COLLEAGUE_PAIRS)


@pytest.fixture
def colleague(colleague_source: Path, tmp_path: Path) -> Path:
    path = tmp_path / "colleague.tiebreak"
    shutil.copyfile(colleague_source, path)
    return path


def _pairs(path: Path) -> int:
    with open_project(path, readonly=True) as store:
        return int(store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0])


def _sound(path: Path) -> bool:
    with open_project(path, readonly=True) as store:
        return bool(store.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)])


@pytest.fixture(scope="module")
def big_project(tmp_path_factory: pytest.TempPathFactory, big_file: Path) -> Path:
    from desktop.services.importing import import_file

    path = new_project(tmp_path_factory.mktemp("big-project"), "theirs.tiebreak")
    with open_project(path) as store:
        import_file(store, big_file)
    return path


def _import_then(project: Path, source: Path, act: Callable[[], None]) -> Run:
    return _write_then(project, act, "import", project, source)


def _write_then(project: Path, act: Callable[[], None], *command: str | Path) -> Run:
    """Run the command; once its one transaction is under way (its log grows past a
    megabyte: the page cache spills, a third of the way into an import), ``act()``."""
    job = subprocess.Popen(
        [sys.executable, "-m", "desktop", *map(str, command)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "TIEBREAK_DEBUG"},
    )
    wal = Path(f"{project}-wal")
    while job.poll() is None and not (wal.exists() and wal.stat().st_size > 2**20):
        time.sleep(0.005)
    assert job.poll() is None, "the command ended before its log grew"
    act()
    stdout, stderr = job.communicate(timeout=120)
    # The progress it printed before, then the one line.
    lines = [line for line in stderr.splitlines(True) if not line.startswith("imported ")]
    return Run(job.returncode, stdout, "".join(lines))


@pytest.mark.parametrize("how", ["cp", "mv"])
def test_a_file_put_over_a_running_import_is_left_as_it_was_put(
    tmp_path: Path, big_file: Path, colleague: Path, how: str, hostile: Hostile
) -> None:
    project = new_project(tmp_path)
    before = fingerprint(colleague)
    run = _import_then(project, big_file, lambda: put_over(colleague, project, how))
    hostile.refused(run, says=f"{project}: {REFUSED}")
    assert "pairs added" not in run.stdout
    assert fingerprint(project) == before and beside(project) == []
    assert _pairs(project) == COLLEAGUE_PAIRS and _sound(project)


def test_a_project_moved_away_during_an_import_is_not_said_to_hold_it(
    tmp_path: Path, big_file: Path, hostile: Hostile
) -> None:
    project = new_project(tmp_path)
    moved = tmp_path / "moved.tiebreak"
    run = _import_then(project, big_file, lambda: os.rename(project, moved))
    hostile.refused(run, says=f"{project}: {REFUSED}")
    assert not project.exists() and beside(project) == [] and beside(moved) == []
    assert _pairs(moved) == 0 and _sound(moved)  # refused: nothing of it anywhere


def test_a_file_copied_over_a_running_merge_is_left_as_it_was_put(
    tmp_path: Path, big_project: Path, colleague: Path, hostile: Hostile
) -> None:
    project = new_project(tmp_path)
    before = fingerprint(colleague)
    run = _write_then(
        project, lambda: put_over(colleague, project, "cp"), "merge", project, big_project
    )
    hostile.refused(run, says=f"{project}: {REFUSED}")
    assert fingerprint(project) == before and beside(project) == []
    assert _pairs(project) == COLLEAGUE_PAIRS and _sound(project)


def _older_project(path: Path, pairs: Path) -> Path:
    """A release's file from before the search index (m005): the first write of a newer
    release builds the index over every pair, for seconds on a large project."""
    import json

    from sqlite_utils import Database

    from desktop.adapters.store.migrations import migrations
    from desktop.adapters.store.schema import APPLICATION_ID

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    migrations.apply(Database(conn), stop_before="m005_search_index")
    with pairs.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO pairs (pair_key, external_id, instruction, response_a, response_b)"
        " VALUES (?, ?, ?, ?, ?)",
        [
            (f"id:{r['id']}", r["id"], r["instruction"], r["response_a"], r["response_b"])
            for r in rows
        ],
    )
    conn.execute("COMMIT")
    conn.close()
    return path


def test_a_file_copied_over_a_project_being_brought_up_to_date_is_left_as_it_was_put(
    tmp_path: Path, big_file: Path, colleague: Path, hostile: Hostile
) -> None:
    project = _older_project(tmp_path / "older.tiebreak", big_file)
    before = fingerprint(colleague)
    run = _write_then(
        project,
        lambda: put_over(colleague, project, "cp"),
        "override",
        project,
        "bench-000001",
        "precision",
        "A",
        "--rubric",
        "href-four",
    )
    hostile.refused(run, says=f"{project}: {REFUSED}")
    assert fingerprint(project) == before and beside(project) == []
    assert _pairs(project) == COLLEAGUE_PAIRS and _sound(project)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    rows = [
        {"id": f"x{i}", "instruction": f"q{i}", "output_1": "a", "output_2": "b"} for i in range(20)
    ]
    with open_project(path) as store:
        from desktop.services.importing import import_file

        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    return path


def _verdicts(path: Path) -> list[tuple[str, str]]:
    with open_project(path, readonly=True) as store:
        return store.conn.execute(
            "SELECT p.external_id, h.verdict FROM human_verdicts h JOIN pairs p"
            " ON p.id = h.pair_id ORDER BY h.id"
        ).fetchall()


def _move_to_another_file_system(source: Path, target: Path) -> None:
    """What ``mv`` does across file systems: the file copied (the file alone: mv knows
    nothing of a -wal), then the original removed."""
    shutil.copyfile(source, target)
    source.unlink()


def test_a_window_moved_to_another_file_system_keeps_the_verdict_just_given(
    project: Path, tmp_path: Path, hostile: Hostile
) -> None:
    from desktop.services.app_settings import AppSettings
    from desktop.services.pair_lookup import find_pair
    from desktop.services.session import ReviewSession

    elsewhere = tmp_path / "usb"
    elsewhere.mkdir()
    moved = elsewhere / project.name
    session = ReviewSession(project, AppSettings(reviewer="ada"))
    try:
        session.choose_rubric(RUBRIC)
        pair_id = find_pair(session.store, "x1").id
        assert pair_id is not None
        session.set_verdict(pair_id, "overall", session_verdict("A"), note=None)  # shown
        _move_to_another_file_system(project, moved)  # within a second of the verdict
        assert session.file_lost() == f"{project}: {REFUSED}"
    finally:
        session.close()
    assert _verdicts(moved) == [("x1", "A")]
    assert beside(project) == [] and beside(moved) == []
    hostile.held()


def session_verdict(text: str):  # type: ignore[no-untyped-def]
    from desktop.services.overrides import parse_verdict

    return parse_verdict(text)


def test_a_log_holding_the_only_copy_of_acknowledged_work_is_saved_not_deleted(
    project: Path, tmp_path: Path, hostile: Hostile
) -> None:
    """A writer that copies its log into the file only now and then (a judging job, once a
    second): what it committed since is in the log alone. Moved to another file system
    then, the file's copy lacks it; letting go, the session saves it beside the old name
    instead of deleting the log."""
    elsewhere = tmp_path / "usb"
    elsewhere.mkdir()
    moved = elsewhere / project.name
    store = open_project(project)
    try:
        store.settle_every(60.0)
        give_verdict(store, "x1", "A")  # settled: the first commit copies the log in
        give_verdict(store, "x2", "B")  # acknowledged, in the log alone
        _move_to_another_file_system(project, moved)
        error = store.verify()
        assert error is not None
        line = str(error)
        assert line.startswith(f"{project}: {REFUSED.removesuffix('; reopen it')}"), line
        saved = [p for p in tmp_path.iterdir() if p.name.startswith(f"{project.stem}.recovered-")]
        assert len(saved) == 1, list(tmp_path.iterdir())
        assert str(saved[0]) in line
    finally:
        store.close()
    assert _verdicts(moved) == [("x1", "A")]  # what the copy took
    assert _verdicts(saved[0]) == [("x1", "A"), ("x2", "B")]  # and nothing acknowledged lost
    assert _sound(saved[0]) and beside(project) == [] and beside(saved[0]) == []
    hostile.held()


def test_an_export_reading_a_file_copied_over_says_it_was_replaced(
    tmp_path: Path, big_file: Path, colleague: Path, hostile: Hostile
) -> None:
    """Not "the file is damaged; restore a backup": the file put there is sound. The copy
    lands while the export reads (at its first progress, 5,000 rows in)."""
    from desktop.domain.errors import ProjectError
    from desktop.services.exporting import export_project

    project = new_project(tmp_path)
    hostile.succeeded(hostile.cli("import", project, big_file))
    out = tmp_path / "out.csv"
    copied: list[int] = []

    def copy_over(done: int) -> None:
        if not copied:
            copied.append(done)
            put_over(colleague, project, "cp")

    with open_project(project, readonly=True) as store, pytest.raises(ProjectError) as refused:
        export_project(store, out, progress=copy_over)
    assert str(refused.value) == (
        f"{project}: the project file was replaced while it was read; run the command again"
    )
    assert copied and not out.exists()
    assert _sound(project) and _pairs(project) == COLLEAGUE_PAIRS
    hostile.held()


@pytest.mark.parametrize("how", ["cp", "mv"])
def test_a_file_put_over_the_project_while_its_answers_are_measured_is_left_as_put(
    tmp_path: Path, colleague: Path, how: str
) -> None:
    """`tiebreak index` measures a large import's answers for the figures a chunk a
    transaction, for seconds; a colleague's file copied or moved over the project
    meanwhile is refused in one line and left byte for byte as it was put there."""
    from desktop.services.importing import import_file
    from tests.bench.bench_import_export import generate

    project = new_project(tmp_path, "measured.tiebreak")
    generate(tmp_path / "pairs.jsonl", 6000)  # about 12 chunks, seconds of tokenizing
    with open_project(project) as store:
        import_file(store, tmp_path / "pairs.jsonl")
    theirs = colleague.read_bytes()
    indexer = subprocess.Popen(
        [sys.executable, "-m", "desktop", "index", str(project)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and indexer.poll() is None:
            conn = sqlite3.connect(f"file:{project}?mode=ro", uri=True)
            try:
                rows = conn.execute("SELECT count(*) FROM answer_measures").fetchone()[0]
            except sqlite3.Error:  # the first commits under way
                rows = 0
            finally:
                conn.close()
            if rows:
                break
            time.sleep(0.02)
        assert indexer.poll() is None, "the measuring ended before a file could be put over"
        put_over(colleague, project, how)
        _, err = indexer.communicate(timeout=120)
    finally:
        if indexer.poll() is None:
            indexer.kill()
    assert indexer.returncode == 1
    assert err.strip() == f"tiebreak: error: {project}: {REFUSED}"
    assert project.read_bytes() == theirs
    assert _pairs(project) == COLLEAGUE_PAIRS


@pytest.mark.parametrize("how", ["cp", "mv"])
def test_a_file_put_over_the_project_between_two_chunks_measured_is_left_as_put(
    tmp_path: Path, colleague: Path, how: str, hostile: Hostile
) -> None:
    """The same, without the race: the file is put over the project just before the
    measuring reads its first chunk (outside any transaction, where a copied file's pages
    read as damage). The one line is the replaced file's, not "damaged"."""
    from desktop.domain.errors import ProjectError
    from desktop.services.answer_measuring import measure_backlog
    from desktop.services.importing import import_file
    from tests.bench.bench_import_export import generate

    project = new_project(tmp_path, "measured.tiebreak")
    generate(tmp_path / "pairs.jsonl", 1000)
    with open_project(project) as store:
        import_file(store, tmp_path / "pairs.jsonl")
    theirs = colleague.read_bytes()
    with open_project(project) as store, pytest.raises(ProjectError) as refused:
        put_over(colleague, project, how)
        measure_backlog(store)
    assert str(refused.value) == f"{project}: {REFUSED}"
    assert project.read_bytes() == theirs and not beside(project)
    assert _pairs(project) == COLLEAGUE_PAIRS
    hostile.held()
