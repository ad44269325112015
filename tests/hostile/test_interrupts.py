"""An absurd count is a usage error at once, and whatever runs long ends on Ctrl+C within
a second: one line, no traceback, nothing half-written (issue 29, item 11)."""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, fingerprint

ABSURD = [
    (("stats", "{p}", "--ratings"), "--rounds", "100000000"),
    (("judge", "{p}", "--rubric", "pair-v2"), "--samples", "1000000000"),
    (("judge", "{p}", "--rubric", "pair-v2"), "--concurrency", "1000000000"),
    (("batch", "submit", "{p}", "--rubric", "pair-v2"), "--poll", "1e300"),
    (
        ("profile", "add", "x", "--base-url", "http://h/v1", "--model", "m"),
        "--timeout",
        "1e300",
    ),
    (("profile", "add", "x", "--gguf", "{p}"), "--n-ctx", "99999999999"),
    (("profile", "add", "x", "--gguf", "{p}"), "--threads", "99999999"),
]


@pytest.mark.parametrize(("words", "option", "value"), ABSURD, ids=[c[1] for c in ABSURD])
def test_an_absurd_count_is_refused_at_once(
    tmp_path: Path, hostile: Hostile, words: tuple[str, ...], option: str, value: str
) -> None:
    project = _judged(tmp_path, 40)
    before = fingerprint(project)
    args = [w.replace("{p}", str(project)) for w in words]
    started = time.monotonic()
    run = hostile.cli(*args, option, value, cwd=tmp_path, timeout=30)
    assert time.monotonic() - started < 10
    hostile.refused(run, code=2, says=(f"argument {option}:",), project=project, before=before)


def test_ctrl_c_ends_a_long_bootstrap_within_a_second(tmp_path: Path, hostile: Hostile) -> None:
    project = _judged(tmp_path, 400, generators=12)
    proc = hostile.spawn("stats", project, "--ratings", "--rounds", "100000", cwd=tmp_path)
    time.sleep(4)  # the verdicts read, the bootstrap running
    assert proc.poll() is None, "the bootstrap ended before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    asked = time.monotonic()
    run = hostile.finished(proc, timeout=30)
    assert time.monotonic() - asked < 1.0
    hostile.refused(run, says="interrupted")


def test_ctrl_c_inside_a_long_write_is_an_interrupt(tmp_path: Path, hostile: Hostile) -> None:
    """Ctrl+C while SQLite runs one long statement lands in the held-file watchdog (the
    only Python code running), which sqlite3 would turn into "interrupted", an
    OperationalError the command line printed as unexpected."""
    project = new_project(tmp_path)
    before = fingerprint(project)
    timer = threading.Timer(0.5, signal.raise_signal, [signal.SIGINT])
    with open_project(project) as store:
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt), store.transaction() as conn:
                conn.execute(
                    "CREATE TABLE t AS WITH RECURSIVE n(i) AS"
                    " (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT i FROM n"
                )
        except sqlite3.Error as exc:
            pytest.fail(f"Ctrl+C became {type(exc).__name__}: {exc}")
        finally:
            timer.cancel()
    assert fingerprint(project) == before
    hostile.held()


def _judged(tmp_path: Path, n: int, generators: int = 4) -> Path:
    """A project of ``n`` pairs with an annotator's verdicts between ``generators``."""
    project = new_project(tmp_path)
    rows = [
        {
            "instruction": f"question {i}",
            "output_1": f"a{i}",
            "output_2": f"b{i}",
            "generator_1": f"g{i % generators}",
            "generator_2": f"g{(i * 7 + 1) % generators}",
            "preference": (1, 1.5, 2)[i % 3],
        }
        for i in range(n)
    ]
    data = write_jsonl(tmp_path / "a.jsonl", rows)
    assert Hostile("setup").cli("import", project, data).code == 0
    return project
