"""A project file moved, deleted or replaced while a command or window has it open (issue
24, item 1). A connection holds the file it opened, not its name, and SQLite keeps the
``-wal`` and ``-shm`` beside the name: verdicts given after a move were acknowledged and
landed in the moved file or nowhere, and a colleague's file moved or copied over an open
project was destroyed by the next command that opened it (2.6 MB -> 70 KB, "the file is
damaged"). Now every write is refused in one line once the path no longer names the file,
the moved file keeps everything acknowledged before, a file put in its place is left
exactly as it was, and two Tiebreak programs writing the same project at once still both
work."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.services.importing import import_file
from tests.held_projects import (
    REFUSED,
    RUBRIC,
    HeldHere,
    HeldThere,
    beside,
    colleague_project,
    give_verdict,
    put_over,
)
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, fingerprint
from tests.openai_server import OpenAIServer

PAIRS = 200
COLLEAGUE_PAIRS = 3000  # the colleague's file of the report: about 13 MB with verdicts
HOLDERS = {"this process": HeldHere, "another process": HeldThere}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    rows = [
        {
            "id": f"x{i}",
            "instruction": f"question {i}",
            "output_1": "a",
            "output_2": "b",
            "reference": "a",
        }
        for i in range(PAIRS)
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    return path


@pytest.fixture(scope="module")
def colleague_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return colleague_project(tmp_path_factory.mktemp("colleague"), COLLEAGUE_PAIRS)


@pytest.fixture
def colleague(colleague_source: Path, tmp_path: Path) -> Path:
    path = tmp_path / "colleague.tiebreak"
    shutil.copyfile(colleague_source, path)
    return path


def verdicts(path: Path) -> list[tuple[str, str]]:
    with open_project(path, readonly=True) as store:
        return store.conn.execute(
            "SELECT p.external_id, h.verdict FROM human_verdicts h JOIN pairs p"
            " ON p.id = h.pair_id ORDER BY h.id"
        ).fetchall()


def results(path: Path) -> int:
    with open_project(path, readonly=True) as store:
        return store.conn.execute("SELECT count(*) FROM judge_results").fetchone()[0]


def fingerprint_from_outside(path: Path) -> str:
    """``fingerprint`` taken by another process: it copies the file, and this process must
    not open the file a store of it holds."""
    code = (
        "import sys; from pathlib import Path; from tests.hostile.conftest import fingerprint;"
        " print(fingerprint(Path(sys.argv[1])))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


@pytest.mark.parametrize("held", HOLDERS)
def test_a_verdict_after_the_file_is_moved_away_is_refused(
    project: Path, held: str, hostile: Hostile
) -> None:
    moved = project.with_name("moved.tiebreak")
    with HOLDERS[held](project) as holder:
        assert holder.verdict("x1", "A") == "ok"
        assert holder.verdict("x2", "B") == "ok"
        os.rename(project, moved)
        assert holder.verdict("x3", "A") == f"refused: {project}: {REFUSED}"
        assert holder.verdict("x4", "tie") == f"refused: {project}: {REFUSED}"
        # Let go at once: the moved file holds every acknowledged verdict, nothing is left
        # by the old name for a file put there later to meet.
        assert beside(project) == []
        assert verdicts(moved) == [("x1", "A"), ("x2", "B")]
    assert beside(moved) == [] and not project.exists()
    assert verdicts(moved) == [("x1", "A"), ("x2", "B")]
    hostile.held()


@pytest.mark.parametrize("held", HOLDERS)
def test_a_verdict_after_the_file_is_deleted_is_refused(
    project: Path, held: str, hostile: Hostile
) -> None:
    with HOLDERS[held](project) as holder:
        assert holder.verdict("x1", "A") == "ok"
        project.unlink()
        assert holder.verdict("x2", "B") == f"refused: {project}: {REFUSED}"
        assert beside(project) == []
    assert beside(project) == [] and not project.exists()
    hostile.held()


@pytest.mark.parametrize("then", ["a verdict, then close", "close"])
@pytest.mark.parametrize("how", ["mv", "cp"])
@pytest.mark.parametrize("held", HOLDERS)
def test_a_colleagues_file_put_over_an_open_project_is_left_intact(
    project: Path, colleague: Path, held: str, how: str, then: str, hostile: Hostile
) -> None:
    before = fingerprint(colleague)
    with HOLDERS[held](project) as holder:
        assert holder.verdict("x1", "A") == "ok"
        put_over(colleague, project, how)
        # Another command reads the colleague's file while the holder still has the old one.
        run = hostile.cli("stats", project)
        hostile.succeeded(run)
        assert f"{COLLEAGUE_PAIRS:,} pairs" in run.stdout
        assert fingerprint_from_outside(project) == before
        if then.startswith("a verdict"):
            assert holder.verdict("x2", "B") == f"refused: {project}: {REFUSED}"
            assert beside(project) == []
    assert beside(project) == []
    assert fingerprint(project) == before
    run = hostile.cli("stats", project)
    hostile.succeeded(run)
    assert f"{COLLEAGUE_PAIRS:,} pairs" in run.stdout
    assert fingerprint(project) == before and beside(project) == []


@pytest.mark.parametrize("held", HOLDERS)
def test_a_backup_copied_back_over_the_open_project_is_left_as_the_backup(
    project: Path, tmp_path: Path, held: str, hostile: Hostile
) -> None:
    """Restoring a backup of the project itself while it is open: the same kind of file,
    often the very same size, and the same inode. Nothing of the open session's log is
    copied into it."""
    backup = tmp_path / "backup.tiebreak"
    with HOLDERS[held](project) as holder:
        assert holder.verdict("x1", "A") == "ok"
        subprocess.run(["cp", str(project), str(backup)], check=True)
        before = fingerprint_from_outside(backup)
        for i in range(2, 6):
            assert holder.verdict(f"x{i}", "B") == "ok"
        put_over(backup, project, "cp")
        assert holder.verdict("x6", "tie") == f"refused: {project}: {REFUSED}"
        assert beside(project) == []
    assert fingerprint(project) == before and beside(project) == []
    assert verdicts(project) == [("x1", "A")]
    hostile.held()


def _start_judge(hostile: Hostile, project: Path, server: OpenAIServer, *more: str):  # type: ignore[no-untyped-def]
    return hostile.spawn("judge", project, "--rubric", RUBRIC, "--base-url", server.base_url, *more)


def _wait_for(condition, timeout: float = 60) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


@pytest.mark.parametrize("how", ["mv", "cp", "mv away"])
def test_a_judging_job_stops_when_its_file_is_replaced(
    project: Path, colleague: Path, how: str, hostile: Hostile
) -> None:
    before = fingerprint(colleague)
    moved = project.with_name("moved.tiebreak")
    with OpenAIServer(answer="A", delay=0.2) as server:
        job = _start_judge(hostile, project, server, "--model", "m", "--concurrency", "1")
        # The fourth request is sent once the third answer is committed.
        _wait_for(lambda: len(server.requests) >= 5 or job.poll() is not None)
        if how == "mv away":
            os.rename(project, moved)
        else:
            put_over(colleague, project, how)
        run = hostile.finished(job)
    hostile.refused(run, says=f"{project}: {REFUSED}")
    if how == "mv away":
        assert not project.exists() and beside(moved) == [] and beside(project) == []
        assert 3 <= results(moved) < PAIRS
    else:
        assert fingerprint(project) == before and beside(project) == []


def test_two_programs_writing_at_once_both_keep_working(project: Path, hostile: Hostile) -> None:
    """Two judging jobs (each committing every answer) and a reviewer's verdicts, all on
    the same project at once: nothing is taken for a replaced file."""
    with OpenAIServer(answer="A", delay=0.01) as server, HeldThere(project) as holder:
        jobs = [
            _start_judge(hostile, project, server, "--model", model, "--concurrency", "4")
            for model in ("m1", "m2")
        ]
        given = []
        while any(job.poll() is None for job in jobs):
            i = len(given) % PAIRS
            verdict = "AB"[len(given) % 2]
            assert holder.verdict(f"x{i}", verdict) == "ok"
            given.append((f"x{i}", verdict))
        for job in jobs:
            hostile.succeeded(hostile.finished(job))
    assert len(given) > 5
    assert verdicts(project) == given
    assert results(project) == 2 * PAIRS
    assert beside(project) == []


def test_a_read_in_the_same_process_keeps_the_holders_lock(project: Path, hostile: Hostile) -> None:
    """The window reads on connections of its own while its session holds the file. Reading
    the file's header there dropped the session's lock, so another program closing the
    project took itself for the last one and removed the -wal and -shm the session was still
    writing to: the session's later verdicts went to a log nobody else could see, and its
    close wrote them over what others had written since."""
    with HeldHere(project) as holder:
        assert holder.verdict("x1", "A") == "ok"
        open_project(project, readonly=True).close()  # the window's background read
        hostile.succeeded(hostile.cli("stats", project))  # another program reads, closes
        assert beside(project) == ["-wal", "-shm"]
        assert holder.verdict("x2", "B") == "ok"
        run = hostile.cli("override", project, "x3", "overall", "tie", "--rubric", RUBRIC)
        hostile.succeeded(run)
    assert verdicts(project) == [("x1", "A"), ("x2", "B"), ("x3", "tie")]
    assert beside(project) == []


def test_a_file_held_under_its_old_name_is_not_opened_under_the_new_one(
    project: Path, hostile: Hostile
) -> None:
    """Moved while held, the file is still written through its old name's -wal: a second
    log under the new name would have two programs each overwrite the other's pages."""
    moved = project.with_name("moved.tiebreak")
    with HeldThere(project) as holder:
        assert holder.verdict("x1", "A") == "ok"
        os.rename(project, moved)
        before = fingerprint_from_outside(moved)
        run = hostile.cli("override", moved, "x2", "overall", "B", "--rubric", RUBRIC)
        hostile.refused(run, says=(f"{moved}: ", "open under its old name"))
        run = hostile.cli("new", project)  # a new file by the old name meets the old log
        hostile.refused(run, says=(f"{project}: ", "belong to a file"))
        assert fingerprint_from_outside(moved) == before
    assert verdicts(moved) == [("x1", "A")]
    hostile.succeeded(hostile.cli("override", moved, "x2", "overall", "B", "--rubric", RUBRIC))
    assert verdicts(moved) == [("x1", "A"), ("x2", "B")]
    assert beside(moved) == [] and beside(project) == []


def test_a_store_refuses_without_acknowledging_in_its_own_process(project: Path) -> None:
    """The store itself (every write starts in its transaction): the refusal is a
    ProjectError with the one line, and no row of the refused write exists anywhere."""
    from desktop.domain.errors import ProjectError

    moved = project.with_name("moved.tiebreak")
    store = open_project(project)
    try:
        give_verdict(store, "x1", "A")
        os.rename(project, moved)
        with pytest.raises(ProjectError, match=f"^{project}: {REFUSED}$"):
            give_verdict(store, "x2", "B")
        with pytest.raises(ProjectError, match=f"^{project}: {REFUSED}$"):
            store.set_setting("position", "2")
    finally:
        store.close()
    with sqlite3.connect(moved) as conn:
        assert conn.execute("SELECT count(*) FROM human_verdicts").fetchone() == (1,)
        assert conn.execute("SELECT value FROM settings WHERE key='position'").fetchone() is None
