"""Killing `tiebreak judge` outright loses nothing it stored, and a resume asks only for the rest.

The judge runs as a real child process against the test server (in this process, so its
requests can be counted); it gets SIGKILL once some results are on disk, with requests in
flight and commits under way. The project must then pass SQLite's integrity check, keep
every result stored before the kill, and a second run must send exactly the requests whose
answers were not stored.
"""

from __future__ import annotations

import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import insert_rows
from desktop.domain.pairs import PairContent
from tests.helpers import pair_row
from tests.openai_server import GENERATION_PATHS, OpenAIServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")

PAIRS = 240
KILL_AFTER = 40  # results on disk before the kill
RUBRIC = "href-overall"
MARK = re.compile(r"KILLTEST-PAIR-(\d{4})")
ROW_COLUMNS = "pair_id, ord, status, verdicts, confidence, raw_completion, request_hash, created_at"


def make_project(path: Path, n: int) -> None:
    rows = [
        pair_row(
            PairContent(
                instruction=f"KILLTEST-PAIR-{i:04d}: which planet is largest?",
                response_a=f"Jupiter is the largest planet ({i}).",
                response_b=f"Saturn, I think ({i}).",
                reference="Jupiter.",
            )
        )
        for i in range(1, n + 1)
    ]
    with open_project(path, create=True) as store, store.transaction():
        insert_rows(store.conn, rows)


def stored_rows(path: Path) -> dict[tuple[int, str], tuple[Any, ...]]:
    """The judge results on disk, read through a read-only connection of our own."""
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)
    try:
        rows = conn.execute(f"SELECT {ROW_COLUMNS} FROM judge_results").fetchall()
    except sqlite3.OperationalError as exc:  # the table is not there yet
        if "no such table" in str(exc):
            return {}
        raise
    finally:
        conn.close()
    return {(r[0], r[1]): r for r in rows}


def judge_command(project: Path, base_url: str) -> list[str]:
    return [
        sys.executable, "-m", "desktop", "judge", str(project), "--yes", "--rubric", RUBRIC,
        "--base-url", base_url, "--model", "test-model", "--concurrency", "6",
    ]  # fmt: skip


def requested_pairs(server: OpenAIServer) -> list[int]:
    """The pair each generation request was for, from the marker in its instruction."""
    out = []
    for request in server.requests:
        if request.path not in GENERATION_PATHS:
            continue
        text = " ".join(m["content"] for m in request.messages)
        found = MARK.findall(text)
        assert len(found) == 1, f"request {request.index} names {found} pairs"
        out.append(int(found[0]))
    return out


def test_sigkill_mid_job_loses_nothing_and_resume_asks_only_for_the_rest(tmp_path: Path) -> None:
    project = tmp_path / "kill.tiebreak"
    make_project(project, PAIRS)
    with open_project(project, readonly=True) as store:
        pair_of_mark = {
            int(MARK.findall(instruction)[0]): pid
            for pid, instruction in store.conn.execute("SELECT id, instruction FROM pairs")
        }

    with OpenAIServer(delay=0.05) as server:
        proc = subprocess.Popen(
            judge_command(project, server.base_url),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            before: dict[tuple[int, str], tuple[Any, ...]] = {}
            while len(before) < KILL_AFTER:
                if proc.poll() is not None:
                    _, err = proc.communicate()
                    pytest.fail(f"judge ended before the kill (exit {proc.returncode}): {err}")
                assert time.monotonic() < deadline, f"only {len(before)} results after 60 s"
                time.sleep(0.02)
                before = stored_rows(project)
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.communicate()
        assert proc.returncode == -signal.SIGKILL
        asked_first = requested_pairs(server)
        assert len(asked_first) > len(before), "no request was in flight at the kill"

        # Reopen as the app does: the WAL is recovered, and nothing is damaged or lost.
        with open_project(project) as store:
            assert store.conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            assert store.conn.execute("PRAGMA foreign_key_check").fetchall() == []
        after = stored_rows(project)
        missing = {key: row for key, row in before.items() if after.get(key) != row}
        assert not missing, f"results stored before the kill changed or vanished: {missing}"
        assert len(after) < PAIRS, "the job finished before the kill; the test proved nothing"
        assert {row[2] for row in after.values()} == {"ok"}

        # Resume: exactly the pairs without a stored answer are asked for, once each.
        server.clear()
        done = subprocess.run(
            judge_command(project, server.base_url), capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
        assert f"{len(after):,} already judged" in done.stdout, done.stdout
        asked = [pair_of_mark[mark] for mark in requested_pairs(server)]
        stored_before_resume = {pid for pid, _ in after}
        assert len(asked) == len(set(asked)), "a pair was asked for twice"
        assert set(asked) == set(pair_of_mark.values()) - stored_before_resume

    final = stored_rows(project)
    assert len(final) == PAIRS
    assert {row[2] for row in final.values()} == {"ok"}
    assert all(final[key] == row for key, row in after.items()), "resume rewrote stored results"
