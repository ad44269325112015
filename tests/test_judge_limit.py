"""`judge --limit N` counts the pairs the job has answered, across a cancel and a re-run:
a run cancelled after some pairs and started again with the same limit ends at N pairs."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from desktop.adapters.store import open_project
from tests.helpers import tiebreak
from tests.judging_helpers import JUST_EVAL_ANSWER, MODEL, generations, project
from tests.openai_server import OpenAIServer, Reply

FAST = 10  # the server answers this many requests at once, then hangs


def answered(path: Path) -> int:
    with open_project(path, readonly=True) as store:
        return store.conn.execute(
            "SELECT count(DISTINCT pair_id) FROM judge_results WHERE status != 'error'"
        ).fetchone()[0]


def test_a_cancelled_limited_job_run_again_ends_at_its_limit(tmp_path: Path) -> None:
    path = project(tmp_path, 60)
    lock, seen = threading.Lock(), [0]

    def first_fast(data: dict) -> object:
        with lock:
            seen[0] += 1
            return JUST_EVAL_ANSWER if seen[0] <= FAST else Reply.hang()

    args = ["judge", str(path), "--rubric", "just-eval", "--one-order", "--limit", "25"]
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as server:
        args += ["--base-url", server.base_url, "--model", MODEL, "--concurrency", "2"]
        server.responder = first_fast
        proc = subprocess.Popen(
            [sys.executable, "-m", "desktop", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while len(generations(server)) < FAST + 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # the answers given are stored
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 1, err
        assert answered(path) == FAST
        server.responder = None
        again = tiebreak(*args)
        assert again.returncode == 0, again.stderr
        assert answered(path) == 25
        assert len(generations(server)) == FAST + 2 + 15
