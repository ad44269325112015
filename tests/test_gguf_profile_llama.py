"""A GGUF file of the user's own judges through the same launcher as the built-in model:
the real llama.cpp server, started on a free loopback port when the first pair is judged,
the model without extra buffer types, its chat template from the file, a crash named after
the file and the server started again once. The file is the bundled model at another path
(a second real GGUF file). CPU-heavy: two short jobs."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from desktop.adapters.gguf_server import stop_all
from desktop.adapters.llama_launch import LOADED_LINE
from desktop.adapters.profiles_file import get_profile
from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.resources import resources_dir
from desktop.services.endpoints import model_server
from desktop.services.importing import import_file
from desktop.services.judging import JobOptions
from desktop.services.judging.setup import judge_job
from tests.gguf_files import copy_of_bundled
from tests.local_server_helpers import require_llama

pytestmark = pytest.mark.llama


def verdict_rows(path: Path) -> list[tuple[int, str, str, str]]:
    with open_project(path, readonly=True) as store:
        return store.conn.execute(
            "SELECT pair_id, ord, status, judge_model FROM judge_results ORDER BY id"
        ).fetchall()


def test_a_gguf_profile_judges_and_survives_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_llama()
    copy = copy_of_bundled(tmp_path / "models" / "my-judge.gguf", link=True)
    project = tmp_path / "demo.tiebreak"
    with open_project(project, create=True) as store:
        import_file(store, resources_dir() / "demo_pairs.jsonl")
    try:
        assert main(["profile", "add", "mine", "--gguf", str(copy), "--n-ctx", "4096"]) == 0
        args = ["judge", str(project), "--rubric", "href-overall", "--profile", "mine"]
        assert main([*args, "--limit", "2"]) == 0
        out = capsys.readouterr().out
        # the bundled weights, wherever they are, are the built-in judge (issue 30 item 10)
        assert "2 ok, 0 parse failures, 0 errors" in out and "(model SmolLM2-135M-Instruct)" in out
        assert [r[2:] for r in verdict_rows(project)] == [("ok", "SmolLM2-135M-Instruct")] * 2

        profile = get_profile("mine")
        server = model_server(profile)
        assert server.alive() and LOADED_LINE in server.log_text()
        assert server.base_url and server.base_url.startswith("http://127.0.0.1:")
        argv = server.command(1234, False)
        assert argv[argv.index("--model") + 1] == str(copy)
        assert argv[argv.index("--n_ctx") + 1] == "4096"
        assert "--chat_format" not in argv  # llama.cpp reads the file's own template

        # Killed in the middle of a job: named after the file, started again once.
        first_pid, starts = server.pid, server.starts
        done: list[object] = []
        with open_project(project) as store:
            job = judge_job(store, "href-overall", profile, JobOptions(pair_ids=[3, 4, 5]))
            worker = threading.Thread(target=lambda: done.append(job.run()))
            worker.start()
            deadline = time.monotonic() + 120
            while len(verdict_rows(project)) < 3 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert first_pid is not None
            os.kill(first_pid, signal.SIGKILL)
            worker.join(timeout=300)
        summary = done[0]
        assert summary.stopped is None, summary  # type: ignore[attr-defined]
        (report,) = summary.restarts  # type: ignore[attr-defined]
        assert str(report).startswith(
            "the model server for my-judge.gguf crashed (signal 9, SIGKILL);"
        )
        assert server.starts == starts + 1
        statuses = {pair: status for pair, _, status, _ in verdict_rows(project)}
        assert statuses == {1: "ok", 2: "ok", 3: "ok", 4: "ok", 5: "ok"}
    finally:
        stop_all()
    assert not server.alive()


def test_a_gguf_profile_s_answers_are_constrained_like_the_built_in_s(tmp_path: Path) -> None:
    """The same request shapes: JSON by a schema (json_object, llama.cpp's), one verdict
    by a grammar, with logprobs."""
    require_llama()
    copy = copy_of_bundled(tmp_path / "second.gguf", link=True)
    assert main(["profile", "add", "second", "--gguf", str(copy)]) == 0
    project = tmp_path / "demo.tiebreak"
    with open_project(project, create=True) as store:
        import_file(store, resources_dir() / "demo_pairs.jsonl")
    try:
        profile = get_profile("second")
        with open_project(project) as store:
            for rubric in ("text-grounded", "href-overall"):
                job = judge_job(store, rubric, profile, JobOptions(pair_ids=[1]))
                if rubric == "text-grounded":
                    assert job.response_format and job.response_format["type"] == "json_object"
                else:
                    assert job.grammar is not None and job.logprobs
                summary = job.run()
                assert summary.progress.ok == 1, summary
            rows = store.conn.execute(
                "SELECT rubric_name, raw_completion, confidence FROM judge_results"
            ).fetchall()
    finally:
        stop_all()
    answers = {rubric: (raw, confidence) for rubric, raw, confidence in rows}
    assert json.loads(answers["text-grounded"][0])["choice"] in ("A", "B", "Tie")
    assert answers["href-overall"][0] in ("A", "B", "tie", "Tie")
    assert 0 < json.loads(answers["href-overall"][1])["overall"] <= 1
