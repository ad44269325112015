"""A server whose reply inflates to a gigabyte (a gzip bomb, a deflate one, an endless plain
body, with a Content-Length or in chunks without one): `tiebreak judge` reads it only up to
the cap, says so in one line, leaves that pair in error and judges the others; its peak
memory stays within the cap of a run that got an ordinary answer, measured in the same
test. `tiebreak batch submit` streams a batch's output to disk under a cap of its own."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.adapters.reply_cap import REPLY_CAP
from tests.hostile.conftest import Hostile, Run, fingerprint
from tests.judging_helpers import JUST_EVAL_ANSWER, MODEL, project
from tests.openai_server import (
    FILE_CONTENT_PATH,
    FaultRule,
    OpenAIServer,
    Reply,
    can_encode,
    encoded,
)
from tests.peak_memory import launcher, read_report

try:  # the openai package's HTTP stack
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

GIB = 1 << 30
# What a reply past the cap may add to a run's peak beyond the cap itself: httpx's pieces
# of 1 MiB, the interpreter's arenas.
SLACK = 48 << 20
CAP_LINE = f"is larger than {REPLY_CAP >> 20} MiB once decoded"


def measured(tmp_path: Path, *args: str | os.PathLike[str]) -> tuple[Run, int]:
    """The real `tiebreak` command's outcome, and its own peak resident memory in bytes."""
    report = tmp_path / f"peak-{len(list(tmp_path.glob('peak-*')))}"
    env = {k: v for k, v in os.environ.items() if k != "TIEBREAK_DEBUG"}
    proc = subprocess.run(
        [*launcher(report), sys.executable, "-m", "desktop", *map(str, args)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr), read_report(report).peak_bytes


def stored(path: Path) -> list[tuple[int, str, str | None, int]]:
    """(pair, status, error, length of the answer kept) of every result in the project."""
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT pair_id, status, error, length(raw_completion) FROM judge_results"
            " ORDER BY pair_id"
        ).fetchall()
    return [(p, s, e, n or 0) for p, s, e, n in rows]


def _decodes(encoding: str) -> bool:
    """Whether httpx inflates this coding here (br and zstd need packages of their own)."""
    sent = httpx.Response(200, headers={"content-encoding": encoding},
                          content=encoded(b"probe", encoding))  # fmt: skip
    return sent.read() == b"probe"


BOMBS = [
    pytest.param("gzip", False, id="gzip-content-length"),
    pytest.param("gzip", True, id="gzip-chunked"),
    pytest.param("deflate", True, id="deflate-chunked"),
    pytest.param("br", True, id="brotli-chunked"),
    pytest.param("zstd", True, id="zstd-chunked"),
    pytest.param(None, False, id="plain-content-length"),
    pytest.param(None, True, id="plain-chunked"),
]


@pytest.mark.parametrize(("encoding", "chunked"), BOMBS)
def test_a_reply_that_inflates_to_a_gigabyte_is_cut_at_the_cap(
    tmp_path: Path, hostile: Hostile, encoding: str | None, chunked: bool
) -> None:
    if encoding is not None and not (can_encode(encoding) and _decodes(encoding)):
        pytest.skip(f"httpx decodes {encoding} only with its package, not installed here")
    path = project(tmp_path, n=2)
    judge = ("judge", path, "--rubric", "just-eval", "--concurrency", "1", "--model", MODEL)
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as server:
        reference, reference_peak = measured(tmp_path, *judge, "--base-url", server.base_url)
        hostile.succeeded(reference)  # the same command, answered: the peak to compare
        server.script([Reply.bomb(GIB, encoding=encoding, chunked=chunked), JUST_EVAL_ANSWER])
        run, peak = measured(tmp_path, *judge, "--base-url", server.base_url, "--redo")
    assert run.code == 1 and "Traceback" not in run.stderr, run.stderr
    said = [line.strip() for line in run.lines if CAP_LINE in line]
    assert said == [f"pair #1: the answer from {server.base_url} {CAP_LINE} (a judge's"
                    " answer is a few KB); not read further"], run.stderr  # fmt: skip
    assert run.lines[-1] == "tiebreak: 1 left in error; the same command asks for them again"
    assert "1 ok, 0 parse failures, 1 errors" in run.stdout
    results = stored(path)[-2:]  # the pair in error with the one line; the other judged
    assert [(p, s) for p, s, _, _ in results] == [(1, "error"), (2, "ok")]
    assert CAP_LINE in (results[0][2] or "") and results[0][3] == 0
    assert peak < reference_peak + REPLY_CAP + SLACK, (peak >> 20, reference_peak >> 20)
    hostile.held()


def test_an_error_status_with_a_bomb_body_is_cut_too(tmp_path: Path, hostile: Hostile) -> None:
    path = project(tmp_path, n=1)
    with OpenAIServer() as server:
        server.script([Reply.bomb(GIB, status=400)])
        run, _ = measured(
            tmp_path, "judge", path, "--rubric", "just-eval",
            "--base-url", server.base_url, "--model", MODEL,
        )  # fmt: skip
    assert run.code == 1 and any(CAP_LINE in line for line in run.lines), run.stderr
    assert [s for _, s, _, _ in stored(path)] == ["error"]
    hostile.held()


def test_a_batch_output_that_inflates_to_a_gigabyte_stores_nothing(
    tmp_path: Path, hostile: Hostile
) -> None:
    path = project(tmp_path, n=3)
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as server:
        submit = ("batch", "submit", path, "--rubric", "just-eval", "--base-url",
                  server.base_url, "--model", MODEL, "--poll", "0.05")  # fmt: skip
        reference, reference_peak = measured(tmp_path, *submit)
        hostile.succeeded(reference)  # the whole batch, downloaded and stored
        assert "3 results stored: 3 ok" in reference.stdout
        before = fingerprint(path)
        bomb = Reply.bomb(GIB, chunked=True)
        server.add_rule(FaultRule(bomb, every=1, paths=(FILE_CONTENT_PATH,)))
        run, peak = measured(tmp_path, *submit, "--redo")
    hostile.refused(
        Run(run.code, run.stdout, "\n".join(run.lines[-1:])),  # after the progress lines
        says=(f"at {server.base_url}: its output is larger than", "nothing stored"),
        project=path,
        before=before,
    )
    assert "Traceback" not in run.stderr
    assert peak < reference_peak + SLACK, (peak >> 20, reference_peak >> 20)
