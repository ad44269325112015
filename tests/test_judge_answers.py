"""What the judge job asks and keeps: both orders, structured output, logprob confidence."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.store import open_project
from desktop.domain.verdicts import Verdict
from desktop.services.exporting import export_project
from desktop.services.pair_verdicts import pair_verdicts
from tests.judging_helpers import (
    COMMA,
    JSON_CHOICES,
    MODEL,
    SINGLE,
    generations,
    make_job,
    project,
    responses_in,
    results,
)
from tests.openai_server import OpenAIServer, Reply


@pytest.fixture
def server():
    with OpenAIServer() as s:
        yield s


def content_follower(request: dict[str, Any]) -> str:
    """Precision goes with the GOOD response wherever it stands; overall always says A
    (position bias)."""
    first, _ = responses_in(request)
    return f"{'A' if first.startswith('GOOD') else 'B'}, A"


def test_swap_judges_both_orders_and_flags_the_inconsistent_dimension(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 2)
    server.responder = content_follower
    with open_project(path) as store:
        summary = make_job(store, server, COMMA, options={"swap": True}).run()
        rows = results(store)
        views = pair_verdicts(store, 1, COMMA.name, MODEL, COMMA.dimensions).dimensions
        export_project(store, tmp_path / "out.csv", rubric=COMMA.name)
    sent = generations(server)
    assert summary.progress.ok == 4 and len(sent) == 4
    assert responses_in(sent[0].json) == ["GOOD answer 1", "bad 1"]
    assert responses_in(sent[1].json) == ["bad 1", "GOOD answer 1"]  # the swapped order
    assert [(r["pair_id"], r["ord"]) for r in rows] == [(1, "AB"), (1, "BA"), (2, "AB"), (2, "BA")]
    ab, ba = rows[0], rows[1]
    assert ab["verdicts"] == {"precision": "A", "overall": "A"}
    assert ba["raw_completion"] == "B, A"  # kept as received ...
    assert ba["verdicts"] == {"precision": "A", "overall": "B"}  # ... mapped back to the pair
    assert (views["precision"].judge, views["precision"].consistent) == (Verdict.A, True)
    assert (views["overall"].judge, views["overall"].consistent) == (Verdict.TIE, False)
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as fh:
        exported = list(csv.DictReader(fh))
    for row in exported:
        assert (row["precision_model"], row["precision_consistent"]) == ("A", "yes")
        assert (row["overall_model"], row["overall_consistent"]) == ("tie", "no")


def test_swap_after_a_plain_run_asks_only_the_swapped_order(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 3)
    with open_project(path) as store:
        make_job(store, server, COMMA).run()
        server.clear()
        server.responder = content_follower
        summary = make_job(store, server, COMMA, options={"swap": True}).run()
    assert summary.progress.skipped == 3
    assert [responses_in(r.json)[0] for r in generations(server)] == ["bad 1", "bad 2", "bad 3"]


SCHEMA = {
    "type": "object",
    "properties": {
        "rationale": {"type": "string"},
        "choices": {
            "type": "object",
            "properties": {
                "clarity": {"type": "string", "enum": ["A", "B", "tie"]},
                "depth": {"type": "string", "enum": ["A", "B", "tie"]},
            },
            "required": ["clarity", "depth"],
            "additionalProperties": False,
        },
    },
    "required": ["rationale", "choices"],
    "additionalProperties": False,
}


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (
            "json_schema",
            {
                "type": "json_schema",
                "json_schema": {"name": "t-json", "schema": SCHEMA, "strict": True},
            },
        ),
        ("json_object", {"type": "json_object", "schema": SCHEMA}),
        ("auto", {"type": "json_object", "schema": SCHEMA}),  # a loopback server: llama.cpp's
        ("off", None),
    ],
)
def test_structured_output_sends_the_shape_of_the_mode(
    tmp_path: Path, mode: str, expected: dict[str, Any] | None
) -> None:
    path = project(tmp_path, 1)
    answer = '```json\n{"rationale": "clear", "choices": {"clarity": "A", "depth": "tie"}}\n```'
    with OpenAIServer(answer=answer, reject_json_schema=mode != "json_schema") as server:
        with open_project(path) as store:
            make_job(store, server, JSON_CHOICES, structured=mode).run()
            rows = results(store)
        body = generations(server)[0].json
    assert body.get("response_format") == expected
    assert rows[0]["status"] == "ok"
    assert rows[0]["verdicts"] == {"clarity": "A", "depth": "tie"}


def test_structured_output_in_completions_mode(tmp_path: Path) -> None:
    path = project(tmp_path, 1)
    answer = '{"rationale": "r", "choices": {"clarity": "B", "depth": "A"}}'
    with OpenAIServer(answer=answer, reject_json_schema=True) as server:
        with open_project(path) as store:
            make_job(store, server, JSON_CHOICES, api_mode="completions").run()
            rows = results(store)
        sent = generations(server)
    assert len(sent) == 1 and sent[0].path == "/v1/completions"
    assert sent[0].json["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert rows[0]["verdicts"] == {"clarity": "B", "depth": "A"}


def test_structured_mode_is_part_of_the_cache_key(tmp_path: Path, server: OpenAIServer) -> None:
    path = project(tmp_path, 2)
    server.answer = '{"rationale": "r", "choices": {"clarity": "B", "depth": "B"}}'
    with open_project(path) as store:
        make_job(store, server, JSON_CHOICES, structured="json_object").run()
        make_job(store, server, JSON_CHOICES, structured="json_object").run()
        assert len(generations(server)) == 2
        make_job(store, server, JSON_CHOICES, structured="json_schema").run()
    assert len(generations(server)) == 4


def test_a_plain_answer_rubric_sends_no_response_format(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 1)
    with open_project(path) as store:
        make_job(store, server, SINGLE, structured="json_schema").run()
    assert "response_format" not in generations(server)[0].json


TOP = {"B": -0.1, "A": -2.5, "tie": -4.0}
P_B = math.exp(-0.1) / sum(math.exp(v) for v in TOP.values())


@pytest.mark.parametrize("api_mode", ["chat", "completions"])
def test_logprobs_of_a_one_token_answer_become_its_confidence(
    tmp_path: Path, server: OpenAIServer, api_mode: str
) -> None:
    path = project(tmp_path, 1)
    server.script([Reply(content="B", top_logprobs=TOP)] * 2)
    with open_project(path) as store:
        make_job(store, server, SINGLE, api_mode=api_mode, options={"swap": True}).run()
        rows = results(store)
        view = pair_verdicts(store, 1, SINGLE.name, MODEL, SINGLE.dimensions)
        view = view.dimensions["overall"]
    body = generations(server)[0].json
    if api_mode == "chat":
        assert (body["logprobs"], body["top_logprobs"]) == (True, 5)
    else:
        assert body["logprobs"] == 5 and "<|im_start|>user\n" in body["prompt"]
    assert rows[0]["verdicts"] == {"overall": "B"}
    assert rows[0]["confidence"]["overall"] == pytest.approx(P_B, abs=1e-5)
    # The swapped order said B too, which is the pair's A: the confidence goes with it.
    assert rows[1]["verdicts"] == {"overall": "A"}
    assert rows[1]["confidence"]["overall"] == pytest.approx(P_B, abs=1e-5)
    assert view.consistent is False and view.confidence is None  # disagreeing orders


def test_no_logprobs_asked_where_they_cannot_give_a_confidence(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 1)
    server.answer = "A, B"
    with open_project(path) as store:
        make_job(store, server, SINGLE, logprobs=False).run()
        make_job(store, server, COMMA).run()  # two verdicts: not a one-token answer
        rows = results(store)
    for request in generations(server):
        assert "logprobs" not in request.json and "top_logprobs" not in request.json
    assert [r["confidence"] for r in rows] == [None, None]
