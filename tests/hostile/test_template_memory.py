"""A rubric template that builds something huge in one step of Python's C code (a big
integer, a repeated list, a format, a value shared a billion times over, a value nested
deeper than Python's C code recurses): `rubric add` refuses it in one line, within a time
bound and with its peak memory measured (the worker process that renders it included); on
real pairs the job stops with one line (Ctrl+C during big-integer work:
test_template_cost.py). Once, squaring an integer in a loop ran past 60 s, and summing
lists, concatenating in a namespace, %-formatting and tojson reached 1.3-4.8 GB."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.helpers import new_project
from tests.hostile.conftest import REPO, Hostile, Run, fingerprint
from tests.hostile.test_template_cost import pairs_project, rubric_file
from tests.judging_helpers import MODEL
from tests.openai_server import OpenAIServer
from tests.peak_memory import launcher, read_report

DAG = (  # two lists, each shared twice inside the next, 40 times: 2**40 leaves each
    "{% set ns = namespace(l=[1], m=[1]) %}{% for i in range(40) %}"
    "{% set ns.l = [ns.l, ns.l] %}{% set ns.m = [ns.m, ns.m] %}{% endfor %}"
)
DEEP = (  # a tuple inside a tuple, 20,000 deep: Python hashes it recursively in C
    "{% set ns = namespace(t=()) %}{% for i in range(200) %}{% for j in range(100) %}"
    "{% set ns.t = (ns.t,) %}{% endfor %}{% endfor %}"
)
# What the worker rendering a template says when it ends it (desktop/services/render_worker.py):
SLOW = "takes longer than 1 s to render"  # past the deadline, or its CPU time
MEMORY = "needs more than 256 MB of memory to render"  # past its address space
EITHER = " to render for "  # whichever comes first, on a machine busy or not
BOMBS = {
    "squaring an integer in a loop": (
        "{% set ns = namespace(x=3) %}{% for i in range(40) %}{% set ns.x = ns.x * ns.x %}"
        "{% endfor %}{{ ns.x % 10 }}",
        EITHER,
    ),
    "a power": ("{{ (3 ** 100000000) % 10 }}", SLOW),
    "summing lists": ("{{ ([[0] * 1000] * 100000)|sum(start=[])|length }}", EITHER),
    "a namespace list doubled": (
        "{% set ns = namespace(l=[0]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}"
        "{% endfor %}{{ ns.l|length }}",
        MEMORY,
    ),
    "a namespace text doubled": (
        "{% set ns = namespace(s='x') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
        "{% endfor %}{{ ns.s|length }}",
        MEMORY,
    ),
    "%-formatting to 4 GB": (
        "{% set s = 'x' * 800000 %}{{ (('%s' * 5000) % ((s,) * 5000))|length }}",
        MEMORY,
    ),
    "tojson with a wide indent": (
        "{% set ns = namespace(l=[1]) %}{% for i in range(90) %}{% set ns.l = [ns.l] %}"
        "{% endfor %}{{ ns.l|tojson(indent=100000) }}",
        MEMORY,
    ),
    "printing a shared list": (DAG + "{{ ns.l }}", SLOW),
    "comparing shared lists": (DAG + "{{ ns.l == ns.m }}", SLOW),
    "hashing a deep tuple": (DEEP + "{{ {ns.t: 1} }}", "maximum recursion depth"),
    "a table that multiplies text": (
        "{{ ('x' * 800000).translate({120: 'y' * 800000})|length }}",
        MEMORY,
    ),
    "an indent of every line": ("{{ ('x\\n' * 100000)|indent(100000)|length }}", MEMORY),
    "a width taken from a value": ("{{ '{:{}}'.format('x', 10 ** 9)|length }}", MEMORY),
    "a batch padded to a billion": ("{{ [1]|batch(10 ** 9, 'x')|list|length }}", MEMORY),
    "bytes of a billion": ("{{ (1).to_bytes(10 ** 9, 'big')|length }}", MEMORY),
    "lorem ipsum": ("{{ lipsum(100000, max=100000)|length }}", SLOW),
    "text kept in a list": (
        "{% set l = [] %}{% for i in range(100000) %}"
        "{% set _ = l.append('x' * 100000 ~ i) %}{% endfor %}{{ l|length }}",
        EITHER,
    ),
}
_ADDRESS_SPACE = 3 * 2**30  # a bomb the budget missed fails with MemoryError, not the machine


def run_measured(*args: str | os.PathLike[str], timeout: float = 60) -> tuple[Run, float, int]:
    """The real command, as a user runs it: its outcome, wall time and its own peak
    resident memory in bytes (tests/peak_memory.py: not this process's)."""
    env = {k: v for k, v in os.environ.items() if k != "TIEBREAK_DEBUG"}
    fd, report_name = tempfile.mkstemp(prefix="peak-")
    os.close(fd)
    report = Path(report_name)
    command = [sys.executable, "-m", "desktop", *map(str, args)]
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            [*launcher(report, address_space=_ADDRESS_SPACE), *command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env=env,
            start_new_session=True,  # so a timeout ends the command, not only the launcher
        )
        killer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
        killer.start()
        try:
            out, err = proc.communicate()
        finally:
            killer.cancel()
        took = time.monotonic() - start
        assert took < timeout, f"killed after {timeout} s"
        peak = read_report(report).peak_bytes
    finally:
        report.unlink(missing_ok=True)
    text = {k: v.decode("utf-8", "replace") for k, v in (("out", out), ("err", err))}
    return Run(proc.returncode, text["out"], text["err"]), took, peak


@pytest.mark.parametrize("what", list(BOMBS))
def test_rubric_add_refuses_a_template_that_builds_too_much(
    tmp_path: Path, hostile: Hostile, what: str
) -> None:
    body, says = BOMBS[what]
    project = new_project(tmp_path)
    before = fingerprint(project)
    run, took, peak = run_measured("rubric", "add", project, rubric_file(tmp_path, "bomb", body))
    hostile.refused(run, says=("bomb: message 1", says, "rubric not added"), project=project,
                    before=before)  # fmt: skip
    assert took < 10, f"took {took:.1f} s"  # start-up included
    assert peak < 300 * 2**20, f"peak memory {peak / 2**20:.0f} MB"


def _sly(tmp_path: Path, hostile: Hostile, setup: str, body: str) -> Path:
    """A project whose pairs say "slow", with a rubric that runs ``body`` only on such
    pairs (the sample pair `rubric add` tries does not), after ``setup``."""
    project = pairs_project(tmp_path, instruction="slow question")
    hostile.succeeded(hostile.cli("import", project, tmp_path / "pairs.jsonl"))
    template = setup + "{% if 'slow' in instruction %}" + body + "{% endif %}"
    hostile.succeeded(hostile.cli("rubric", "add", project, rubric_file(tmp_path, "sly", template)))
    return project


def _judge(project: Path, server: OpenAIServer) -> tuple[str, ...]:
    return ("judge", project, "--rubric", "sly", "--base-url", server.base_url, "--model", MODEL)


def test_a_job_stops_at_a_template_too_big_for_a_real_pair(
    tmp_path: Path, hostile: Hostile
) -> None:
    """On real pairs the template squares an integer in a loop: the job stops at the first
    pair that fails (renders run side by side: any of them) with one line, before any
    request is sent. Before, one multiplication ran for
    tens of seconds, Ctrl+C ignored."""
    project = _sly(
        tmp_path, hostile, "{% set ns = namespace(x=3) %}",
        "{% for i in range(60) %}{% set ns.x = ns.x * ns.x %}{% endfor %}",
    )  # fmt: skip
    before = fingerprint(project)
    with OpenAIServer() as server:
        start = time.monotonic()
        run = hostile.cli(*_judge(project, server), timeout=60)
        took = time.monotonic() - start
        asked = [r for r in server.requests if r.path.endswith("/completions")]
    hostile.refused(run, says=("judging stopped: sly: message 1", " to render for pair p"),
                    project=project, before=before)  # fmt: skip
    assert asked == [] and took < 10, f"took {took:.1f} s"
