"""A judge job's answers are committed in groups (those that arrive in one turn of the
loop share a transaction), and none is counted or reported before it is in the file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from desktop.adapters.store import open_project
from desktop.services.judging.reports import JobProgress
from tests.judging_helpers import generations, make_job, project, results
from tests.openai_server import OpenAIServer


def answer_commits(statements: list[str]) -> list[int]:
    """Per committed transaction that wrote answers, how many it wrote (from the
    connection's own trace of the statements it ran; a statement's triggers are traced as
    the statement again, with its values, so a repeat straight after it is the same one)."""
    commits: list[int] = []
    inserts = 0
    for i, statement in enumerate(statements):
        if i and statement == statements[i - 1]:
            continue
        text = statement.strip().upper()
        if text.startswith("INSERT INTO JUDGE_RESULTS"):
            inserts += 1
        elif text == "COMMIT":
            if inserts:
                commits.append(inserts)
            inserts = 0
    return commits


def test_answers_that_arrive_together_share_a_commit_and_each_is_counted_after_it(
    tmp_path: Path,
) -> None:
    path = project(tmp_path, 48)
    reader = sqlite3.connect(path, isolation_level=None)  # another program, reading
    stored_when_told: list[tuple[int, int]] = []

    def progress(state: JobProgress) -> None:
        count = reader.execute("SELECT count(*) FROM judge_results").fetchone()[0]
        stored_when_told.append((state.done, count))

    statements: list[str] = []
    try:
        # 16 requests at a time, each answered after 0.2 s: they come back in bursts.
        with OpenAIServer(delay=0.2) as server, open_project(path) as store:
            store.conn.set_trace_callback(statements.append)
            summary = make_job(store, server, concurrency=16).run(progress=progress)
            store.conn.set_trace_callback(None)
            rows = results(store)
    finally:
        reader.close()
    assert summary.progress.done == summary.progress.ok == 48
    assert sorted(r["pair_id"] for r in rows) == list(range(1, 49))
    assert all(r["status"] == "ok" and r["verdicts"] == {"overall": "A"} for r in rows)
    # Every answer reported was already in the file, as another program reads it.
    assert [done for done, _ in stored_when_told] == list(range(1, 49))
    assert all(count >= done for done, count in stored_when_told)
    commits = answer_commits(statements)
    assert sum(commits) == 48
    assert len(commits) < 48 and max(commits) > 1  # grouped, not a transaction per answer


def test_one_answer_at_a_time_is_committed_alone(tmp_path: Path) -> None:
    path = project(tmp_path, 4)
    statements: list[str] = []
    with OpenAIServer() as server, open_project(path) as store:
        store.conn.set_trace_callback(statements.append)
        summary = make_job(store, server, concurrency=1).run()
        store.conn.set_trace_callback(None)
        rows = results(store)
    assert summary.progress.ok == 4 and len(rows) == 4
    assert answer_commits(statements) == [1, 1, 1, 1]


def test_pairs_are_read_a_few_at_a_time_and_each_request_holds_its_own(tmp_path: Path) -> None:
    path = project(tmp_path, 40)
    statements: list[str] = []
    with OpenAIServer() as server, open_project(path) as store:
        store.conn.set_trace_callback(statements.append)
        summary = make_job(store, server, concurrency=4, options={"swap": True}).run()
        store.conn.set_trace_callback(None)
        rows = results(store)
        sent = [r.json for r in generations(server)]
    assert summary.progress.ok == 80 and len(rows) == 80  # both orders of 40 pairs
    reads = [s for s in statements if " FROM pairs WHERE id" in s]
    assert len(reads) <= 4 and all(" IN (" in s for s in reads)  # 80 requests, 32 a read
    for body in sent:  # the prompt names its own pair's question and both its answers
        prompt = " ".join(m["content"] for m in body["messages"])
        number = prompt.split("question ", 1)[1].split()[0].strip(".,:")
        assert f"GOOD answer {number}" in prompt and f"bad {number}" in prompt
    asked = sorted(
        " ".join(m["content"] for m in b["messages"]).split("question ", 1)[1].split()[0]
        for b in sent
    )
    assert len(asked) == 80 and len(set(asked)) == 40
