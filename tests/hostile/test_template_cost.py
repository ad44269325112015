"""A rubric template that spins or fills memory: `rubric add` refuses it on a sample pair,
`judge` stops it within its budget, and Ctrl+C ends a job within a second in every phase,
with one line and nothing half-written."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from desktop.domain.render import RENDER_SECONDS
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, fingerprint
from tests.judging_helpers import MODEL
from tests.openai_server import MODELS_PATH, OpenAIServer, Reply

NESTED = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
BOMBS = {
    "nested loops": NESTED,
    "a loop emitting text": "{% for i in range(100000) %}{{ response_a }}{% endfor %}",
    "text built in a macro": (
        "{% macro m() %}{% for i in range(100000) %}{% for j in range(100000) %}x"
        "{% endfor %}{% endfor %}{% endmacro %}{% set y = m() %}"
    ),
    "a join that multiplies text": "{{ range(100000)|join(response_a) }}",
    "a replace that multiplies text": "{{ response_a|replace('', response_a) }}",
    "a width of a billion": "{{ 'x'.center(1000000000) }}",
}


def rubric_file(folder: Path, name: str, body: str) -> Path:
    path = folder / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ntitle = "{name}"\ndescription = "hostile"\n'
        'dimensions = ["overall"]\n\n[answer]\nkind = "single"\n\n'
        f"[[messages]]\nrole = \"user\"\ncontent = '''\n{body}"
        " Which is better? {{ response_a }} or {{ response_b }}'''\n",
        encoding="utf-8",
    )
    return path


def pairs_project(folder: Path, n: int = 3, instruction: str = "question") -> Path:
    """An empty project, and ``folder/pairs.jsonl`` for the case to import through the CLI."""
    path = new_project(folder)
    rows = [
        {"id": f"p{i}", "instruction": f"{instruction} {i}", "output_1": "a", "output_2": "b"}
        for i in range(n)
    ]
    write_jsonl(folder / "pairs.jsonl", rows)
    return path


@pytest.mark.parametrize("what", list(BOMBS))
def test_rubric_add_refuses_a_template_past_its_budget(
    tmp_path: Path, hostile: Hostile, what: str
) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    start = time.monotonic()
    run = hostile.cli("rubric", "add", project, rubric_file(tmp_path, "bomb", BOMBS[what]))
    took = time.monotonic() - start
    hostile.refused(run, says=("bomb: message 1", "rubric not added"), project=project,
                    before=before)  # fmt: skip
    assert took < RENDER_SECONDS + 10, f"took {took:.1f} s"  # start-up included


def _added(tmp_path: Path, hostile: Hostile, body: str, n: int = 3) -> Path:
    """A project whose pairs make ``body`` spin (their instruction says "slow"), with the
    rubric added: a sample pair does not say it, so `rubric add` takes it."""
    project = pairs_project(tmp_path, n, instruction="slow question")
    hostile.succeeded(hostile.cli("import", project, tmp_path / "pairs.jsonl"))
    rubric = rubric_file(tmp_path, "sly", "{% if 'slow' in instruction %}" + body + "{% endif %}")
    hostile.succeeded(hostile.cli("rubric", "add", project, rubric))
    return project


def test_judge_stops_a_template_that_spins_on_real_pairs(tmp_path: Path, hostile: Hostile) -> None:
    project = _added(tmp_path, hostile, NESTED)
    before = fingerprint(project)
    with OpenAIServer() as server:
        start = time.monotonic()
        run = hostile.cli(
            "judge", project, "--rubric", "sly", "--base-url", server.base_url, "--model", MODEL
        )
        took = time.monotonic() - start
        asked = [r for r in server.requests if r.path != MODELS_PATH]
    hostile.refused(run, says="takes longer than 1 s to render", project=project, before=before)
    assert asked == [] and took < RENDER_SECONDS + 10


def _interrupted(hostile: Hostile, proc, project: Path, before: str) -> float:
    """Ctrl+C now: the job ends within a second, exit 1, one line, nothing half-written."""
    proc.send_signal(signal.SIGINT)
    start = time.monotonic()
    run = hostile.finished(proc, timeout=30)
    took = time.monotonic() - start
    assert run.code == 1, run
    assert "Traceback" not in run.stderr
    assert len(run.lines) == 1 and "cancelled" in run.lines[0], run.stderr
    assert fingerprint(project) == before
    hostile.held()
    return took


SPINS = {
    "nested loops": NESTED,
    # Integers as big as the budget allows, multiplied again and again: each step short.
    "big integers multiplied": (
        "{% for i in range(100000) %}{% for j in range(100000) %}"
        "{% if (2 ** 32000 + i) * (2 ** 32000 + j) > 0 %}{% endif %}{% endfor %}{% endfor %}"
    ),
}


@pytest.mark.parametrize("what", list(SPINS))
def test_ctrl_c_ends_a_job_while_a_prompt_renders(
    tmp_path: Path, hostile: Hostile, what: str
) -> None:
    project = _added(tmp_path, hostile, SPINS[what])
    before = fingerprint(project)
    with OpenAIServer() as server:
        proc = hostile.spawn(
            "judge", project, "--rubric", "sly", "--base-url", server.base_url, "--model", MODEL
        )
        try:
            server.wait_for_requests(1, timeout=60)  # the preflight: rendering starts next
            time.sleep(0.2)
            took = _interrupted(hostile, proc, project, before)
        finally:
            proc.kill() if proc.poll() is None else None
    assert took < 1.0, f"Ctrl+C took {took:.2f} s"  # the budget alone would take 1 s


def test_ctrl_c_ends_a_job_waiting_on_a_hung_server(tmp_path: Path, hostile: Hostile) -> None:
    project = pairs_project(tmp_path)
    hostile.succeeded(hostile.cli("import", project, tmp_path / "pairs.jsonl"))
    with OpenAIServer() as server:
        words = ("judge", project, "--rubric", "just-eval", "--base-url", server.base_url)
        hostile.succeeded(hostile.cli(*words, "--model", MODEL, "--limit", "1"))
        before = fingerprint(project)
        server.script([Reply.hang()] * 5)
        count = len(server.requests)
        proc = hostile.spawn(*words, "--model", MODEL)
        try:
            server.wait_for_requests(count + 2, timeout=60)  # the preflight, a hung request
            time.sleep(0.2)
            took = _interrupted(hostile, proc, project, before)
        finally:
            proc.kill() if proc.poll() is None else None
    assert took < 1.0, f"Ctrl+C took {took:.2f} s"
