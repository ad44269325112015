"""The judge job against a real HTTP server: retries, fatal errors, deadlines, cancel, cache."""

from __future__ import annotations

import itertools
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.domain.errors import ProjectError
from tests.judging_helpers import (
    closed_port_url,
    generations,
    make_job,
    project,
    results,
)
from tests.openai_server import (
    CHAT_PATH,
    COMPLETIONS_PATH,
    MODELS_PATH,
    FaultRule,
    OpenAIServer,
    Reply,
)

ALL_PATHS = (MODELS_PATH, CHAT_PATH, COMPLETIONS_PATH)


@pytest.fixture
def server():
    with OpenAIServer() as s:
        yield s


def gaps(server: OpenAIServer) -> list[float]:
    times = [r.received_monotonic for r in generations(server)]
    return [b - a for a, b in itertools.pairwise(times)]


def test_every_pair_ends_ok_or_with_its_error(tmp_path: Path, server: OpenAIServer) -> None:
    path = project(tmp_path, 5)
    server.script(["A", "**B**", "I cannot decide.", Reply.error(400, "bad prompt"), "tie"])
    with open_project(path) as store:
        summary = make_job(store, server).run()
        rows = results(store)
    p = summary.progress
    assert (p.total, p.done, p.ok, p.parse_failures, p.errors) == (5, 5, 3, 1, 1)
    assert summary.stopped is None and not summary.cancelled
    assert [r["status"] for r in rows] == ["ok", "ok", "parse-failure", "error", "ok"]
    assert [r["verdicts"] for r in rows] == [
        {"overall": "A"},
        {"overall": "B"},
        None,
        None,
        {"overall": "tie"},
    ]
    assert rows[2]["raw_completion"] == "I cannot decide." and rows[2]["error"]
    assert "400" in rows[3]["error"] and "bad prompt" in rows[3]["error"]
    assert summary.errors == ("pair #4: " + rows[3]["error"],)
    assert all(r["request_hash"] for r in rows)


@pytest.mark.parametrize(
    "failure",
    [
        Reply.error(408),
        Reply.error(409),
        Reply.rate_limit(retry_after=None),
        Reply.error(500),
        Reply.error(502),
        Reply.error(503),
        Reply.drop(),
        Reply.drop(mid_headers=True),
    ],
    ids=["408", "409", "429", "500", "502", "503", "drop", "drop-mid-headers"],
)
def test_healing_failures_are_retried_with_backoff(
    tmp_path: Path, server: OpenAIServer, failure: Reply
) -> None:
    path = project(tmp_path, 1)
    server.fail_first(2, failure)
    with open_project(path) as store:
        summary = make_job(store, server, backoff=0.1, max_retries=3).run()
        rows = results(store)
    assert len(generations(server)) == 3
    assert summary.progress.ok == 1 and rows[0]["status"] == "ok"
    first, second = gaps(server)
    assert first >= 0.1 and second >= 0.2  # exponential: 0.1 s, then 0.2 s


@pytest.mark.parametrize(
    ("failure", "wait"),
    [
        (Reply.rate_limit(retry_after=0.6), 0.6),
        (Reply.error(503, headers={"retry-after-ms": "400"}), 0.4),
    ],
    ids=["retry-after", "retry-after-ms"],
)
def test_retry_after_is_honoured(
    tmp_path: Path, server: OpenAIServer, failure: Reply, wait: float
) -> None:
    path = project(tmp_path, 1)
    server.script([failure])
    with open_project(path) as store:
        summary = make_job(store, server, backoff=0.01).run()
    assert summary.progress.ok == 1 and len(generations(server)) == 2
    assert gaps(server)[0] >= wait


def test_unhealing_request_error_is_not_retried_and_the_job_goes_on(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 3)
    server.script([Reply.error(400, "context length exceeded")])
    with open_project(path) as store:
        summary = make_job(store, server, max_retries=4).run()
        rows = results(store)
    assert len(generations(server)) == 3  # one each: the 400 was not asked again
    assert [r["status"] for r in rows] == ["error", "ok", "ok"]
    assert summary.stopped is None


@pytest.mark.parametrize(
    ("failure", "message"),
    [
        (Reply.error(401), "refused the API key (401)"),
        (Reply.error(403), "refused the API key (403)"),
        (Reply.error(404, "The model 'x' does not exist"), "check the base URL and model name"),
        (Reply.rate_limit(retry_after=0.1, insufficient_quota=True), "quota exhausted"),
    ],
    ids=["401", "403", "404", "insufficient-quota"],
)
def test_fatal_errors_are_not_retried_and_stop_the_job(
    tmp_path: Path, server: OpenAIServer, failure: Reply, message: str
) -> None:
    path = project(tmp_path, 4)
    server.fail_every(1, failure)
    with open_project(path) as store:
        summary = make_job(store, server, max_retries=4).run()
        rows = results(store)
    assert len(generations(server)) == 1
    assert summary.stopped is not None and message in summary.stopped
    assert rows == [] and summary.progress.errors == 0  # one message, not one per pair


def test_a_pair_is_marked_error_after_its_retries_and_the_job_goes_on(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 3)
    server.fail_first(3, Reply.error(500))
    with open_project(path) as store:
        summary = make_job(store, server, max_retries=2).run()
        rows = results(store)
    assert len(generations(server)) == 3 + 2
    assert [r["status"] for r in rows] == ["error", "ok", "ok"]
    assert "server error 500" in rows[0]["error"] and "after 3 attempts" in rows[0]["error"]
    assert summary.stopped is None and summary.progress.errors == 1


def test_a_refused_key_stops_before_any_pair(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project(tmp_path, 5)
    server.add_rule(FaultRule(Reply.error(401), every=1, paths=ALL_PATHS))
    with open_project(path) as store:
        summary = make_job(store, server, concurrency=4).run()
        assert results(store) == []
    assert len(server.requests) == 1 and server.requests[0].path == MODELS_PATH
    assert summary.stopped and "refused the API key (401)" in summary.stopped
    capsys.readouterr()
    code = main(
        ["judge", str(path), "--rubric", "just-eval", "--base-url", server.base_url, "--model", "m"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert len(err) == 1 and err[0].startswith("tiebreak: error: judging stopped:")
    assert "refused the API key" in err[0]


def test_an_unreachable_server_stops_before_any_pair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, url = project(tmp_path, 20), closed_port_url()
    with open_project(path) as store:
        started = time.perf_counter()
        summary = make_job(store, url, concurrency=4, max_retries=4).run()
        assert results(store) == []
    assert time.perf_counter() - started < 3
    assert summary.stopped and f"cannot reach {url}" in summary.stopped
    assert summary.progress.errors == 0
    capsys.readouterr()
    assert (
        main(["judge", str(path), "--rubric", "just-eval", "--base-url", url, "--model", "m"]) == 1
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        f"tiebreak: error: judging stopped: cannot reach {url}"
    )


def test_a_server_without_a_model_list_is_still_used(tmp_path: Path, server: OpenAIServer) -> None:
    path = project(tmp_path, 2)
    server.add_rule(FaultRule(Reply.error(404), every=1, paths=(MODELS_PATH,)))
    with open_project(path) as store:
        summary = make_job(store, server).run()
    assert summary.stopped is None and summary.progress.ok == 2


def test_a_server_that_dies_midway_stops_the_job(tmp_path: Path, server: OpenAIServer) -> None:
    path = project(tmp_path, 20)

    def die(_request: dict) -> Reply:
        threading.Thread(target=server.stop).start()
        return Reply.hang()

    server.script(["A", "B", die])
    with open_project(path) as store:
        summary = make_job(store, server, max_retries=1).run()
        rows = results(store)
    assert summary.stopped and "cannot reach" in summary.stopped
    assert [r["status"] for r in rows[:2]] == ["ok", "ok"]
    assert 1 <= summary.progress.errors <= 3 and len(rows) <= 5


def test_a_slow_drip_is_ended_by_the_overall_deadline(tmp_path: Path, server: OpenAIServer) -> None:
    path = project(tmp_path, 2)
    server.script([Reply.drip(interval=0.05, content="A")])
    with open_project(path) as store:
        started = time.perf_counter()
        make_job(store, server, timeout=0.5, max_retries=0).run()
        rows = results(store)
    assert time.perf_counter() - started < 2.5
    assert rows[0]["status"] == "error" and "within 0.5 s" in rows[0]["error"]
    assert rows[1]["status"] == "ok"


def test_a_garbage_body_is_retried_then_an_error(tmp_path: Path, server: OpenAIServer) -> None:
    path = project(tmp_path, 2)
    not_a_completion = Reply(body=b'{"choices": [{"message": "A"}]}')
    server.script(
        [Reply.garbage(), Reply.garbage(truncated=True), not_a_completion, Reply.garbage()]
    )
    with open_project(path) as store:
        make_job(store, server, max_retries=2).run()
        rows = results(store)
    assert len(generations(server)) == 3 + 2
    assert rows[0]["status"] == "error" and "unreadable answer" in rows[0]["error"]
    assert rows[1]["status"] == "ok"


def test_a_project_that_cannot_be_written_ends_the_job_with_that_error(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 6)
    other = sqlite3.connect(path, check_same_thread=False, isolation_level=None)

    def lock_the_file(_request: dict) -> str:
        other.execute("BEGIN IMMEDIATE")  # another program writing, for longer than we wait
        return "B"

    server.script(["A", lock_the_file])
    try:
        with open_project(path) as store:
            store.conn.execute("PRAGMA busy_timeout = 100")
            with pytest.raises(ProjectError, match="locked by another program"):
                make_job(store, server).run()
            other.execute("ROLLBACK")
            rows = results(store)
    finally:
        other.close()
    assert len(generations(server)) == 2  # the job ended there, it did not go on unsaved
    assert [(r["pair_id"], r["status"]) for r in rows] == [(1, "ok")]


def _cancel_when(event: threading.Event, cancel: threading.Event, stamp: list[float]) -> None:
    event.wait(10)
    stamp.append(time.perf_counter())
    cancel.set()


@pytest.mark.parametrize("where", ["answering", "hung-request", "retry-wait", "preflight"])
def test_cancel_from_another_thread_stops_within_a_second(
    tmp_path: Path, server: OpenAIServer, where: str
) -> None:
    path = project(tmp_path, 30)
    ready = threading.Event()
    if where == "answering":
        server.delay = 0.05
    elif where == "hung-request":
        server.fail_every(1, Reply.hang())
    elif where == "retry-wait":
        server.fail_every(1, Reply.rate_limit(retry_after=30))
    else:
        server.add_rule(FaultRule(Reply.hang(), every=1, paths=(MODELS_PATH,)))
    cancel = threading.Event()
    stamp: list[float] = []

    def progress(state) -> None:
        if state.done >= 4:
            ready.set()

    def when_in_flight() -> None:  # the models probe, then each worker's first request
        server.wait_for_requests({"hung-request": 2, "retry-wait": 3, "preflight": 1}[where])
        time.sleep(0.1)  # let the 429s arrive: the workers now wait out Retry-After
        ready.set()

    if where != "answering":
        threading.Thread(target=when_in_flight).start()
    threading.Thread(target=_cancel_when, args=(ready, cancel, stamp)).start()
    with open_project(path) as store:
        summary = make_job(store, server, concurrency=2, timeout=20).run(
            progress=progress, cancel=cancel
        )
        ended = time.perf_counter()
        rows = results(store)
    assert stamp and ended - stamp[0] < 1.0
    assert summary.cancelled and summary.stopped is None
    assert len(rows) == summary.progress.done < 30
    assert all(r["status"] == "ok" for r in rows)
    if where == "answering":
        assert len(rows) >= 4
        server.delay = 0
        server.clear()
        with open_project(path) as store:
            summary = make_job(store, server).run()
            assert len(results(store)) == 30
        assert len(generations(server)) == 30 - len(rows) == summary.progress.done


def test_a_second_run_sends_nothing_and_redo_asks_again(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 3)
    server.script(["A", Reply.error(400), "B"])
    with open_project(path) as store:
        make_job(store, server).run()
        server.clear()
        summary = make_job(store, server).run()  # only the error is asked again
        assert len(generations(server)) == 1 and summary.progress.skipped == 2
        server.clear()
        summary = make_job(store, server).run()
        assert server.requests == [] and summary.progress.skipped == 3
        server.clear()
        server.answer = "tie"
        summary = make_job(store, server, options={"redo": True}).run()
        rows = results(store)
    assert len(generations(server)) == 3 and summary.progress.skipped == 0
    assert [r["verdicts"]["overall"] for r in rows] == ["tie", "tie", "tie"]
    assert len(rows) == 3  # a redo replaces, never duplicates


def test_a_limit_counts_the_pairs_answered_across_runs(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 5)
    with open_project(path) as store:
        make_job(store, server, options={"limit": 2}).run()
        first = sorted(r["pair_id"] for r in results(store))
        again = make_job(store, server, options={"limit": 2}).run()  # 2 answered: done
        more = make_job(store, server, options={"limit": 4}).run()
        second = sorted(r["pair_id"] for r in results(store))
    assert len(first) == 2 and again.progress.total == 0 and len(second) == 4
    assert len(generations(server)) == 4 and more.progress.skipped == 2
