"""Two writers at once: real processes. The second waits its turn (up to the busy timeout,
5 s) instead of failing; one that would wait longer is refused with one line."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from desktop.adapters.store import open_project
from tests.bench.bench_import_export import generate
from tests.helpers import new_project, write_jsonl, write_lock_held
from tests.hostile.conftest import Hostile, Run, fingerprint

# Pairs of about 2 KB: an import that holds the write lock for a second or so. Since the
# search index (m005) an import takes about 3 times as long as it did (20,000 such pairs:
# 28 s against 8.8 s on a loaded 2-core machine), so 20,000 held it past the busy timeout.
BIG = 6_000


def _start_import(project: Path, data: Path) -> subprocess.Popen[str]:
    """An import, returned once it holds the write lock (inside its transaction)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop", "import", str(project), str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, f"the import ended before it was seen writing: {proc.stderr}"
        probe = sqlite3.connect(project, timeout=0, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc):
                return proc
            raise
        finally:
            probe.close()
        time.sleep(0.01)
    raise AssertionError("the import never took the write lock")


def _finish(proc: subprocess.Popen[str]) -> Run:
    out, err = proc.communicate(timeout=120)
    return Run(proc.returncode, out, err)


def _pairs(project: Path) -> int:
    with open_project(project, readonly=True) as store:
        return store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0]


def test_two_imports_at_once_both_land(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    generate(tmp_path / "big.jsonl", BIG)
    small = write_jsonl(
        tmp_path / "small.jsonl",
        [{"instruction": f"late {i}", "output_1": "a", "output_2": "b"} for i in range(5)],
    )
    first = _start_import(project, tmp_path / "big.jsonl")
    second = hostile.cli("import", project, small)  # while the first holds the write lock
    hostile.succeeded(second)
    assert "5 pairs added" in second.stdout
    hostile.succeeded(_finish(first))
    assert _pairs(project) == BIG + 5


def test_an_override_during_an_import_waits_its_turn(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    write_jsonl(
        tmp_path / "one.jsonl", [{"id": "x1", "instruction": "q", "output_1": "a", "output_2": "b"}]
    )
    hostile.succeeded(hostile.cli("import", project, tmp_path / "one.jsonl"))
    generate(tmp_path / "big.jsonl", BIG)
    first = _start_import(project, tmp_path / "big.jsonl")
    started = time.monotonic()
    run = hostile.cli("override", project, "x1", "overall", "B", "--rubric", "href-overall")
    hostile.succeeded(run)
    assert time.monotonic() - started < 30
    hostile.succeeded(_finish(first))
    with open_project(project, readonly=True) as store:
        assert store.conn.execute("SELECT verdict FROM human_verdicts").fetchall() == [("B",)]
    assert _pairs(project) == BIG + 1


def test_a_writer_that_holds_the_lock_too_long_is_refused(tmp_path: Path, hostile: Hostile) -> None:
    """Past the busy timeout the second writer gives up, in one line, changing nothing."""
    project = new_project(tmp_path)
    data = write_jsonl(
        tmp_path / "a.jsonl", [{"instruction": "q", "output_1": "a", "output_2": "b"}]
    )
    with write_lock_held(project):
        before = fingerprint(project)
        started = time.monotonic()
        run = hostile.cli("import", project, data)
        waited = time.monotonic() - started
        hostile.refused(run, says=(str(project), "locked"), project=project, before=before)
        assert waited >= 4.5, f"gave up after {waited:.2f} s, before the 5 s busy timeout"
    assert _pairs(project) == 0
