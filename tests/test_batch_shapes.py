"""Batches on the engines teams run: an export answered in vLLM's and Anthropic's result
shapes stores what a live run stores; partial batches store what is there and the next
export asks for the rest."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pytest import CaptureFixture

from desktop.adapters.profiles_file import save_profile
from desktop.services.judging.batch import BatchExport
from tests.batch_helpers import (
    anthropic_line,
    cli,
    judge_answer,
    judged_project,
    live_answer,
    read_jsonl,
    stored,
    target,
    vllm_line,
)
from tests.helpers import table_digest, write_jsonl
from tests.judging_helpers import generations, profile
from tests.openai_server import OpenAIServer

SHAPES = ["vllm", "anthropic"]


@pytest.fixture
def server():
    with OpenAIServer() as s:
        s.responder = live_answer
        yield s


@pytest.fixture
def live(tmp_path: Path, server: OpenAIServer) -> Path:
    path = judged_project(tmp_path, "live.tiebreak")
    assert cli("judge", path, *target(server)) == 0
    assert len(generations(server)) == 6  # 3 pairs, both orders
    return path


def export(path: Path, out: Path, server: OpenAIServer, shape: str) -> list[dict[str, Any]]:
    flag = "anthropic" if shape == "anthropic" else "openai"
    assert cli("batch", "export", path, out, *target(server), "--shape", flag) == 0
    return read_jsonl(out)


def exported(tmp_path: Path, server: OpenAIServer, shape: str) -> tuple[Path, list[dict[str, Any]]]:
    """A project like the live one, its requests exported in ``shape``."""
    path = judged_project(tmp_path, "batch.tiebreak")
    return path, export(path, tmp_path / "in.jsonl", server, shape)


def imported(path: Path, results: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """What `tiebreak batch import` says, line by line."""
    capsys.readouterr()
    assert cli("batch", "import", path, results) == 0
    return capsys.readouterr().out.splitlines()


def refused(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    """The one line a command that fails says."""
    capsys.readouterr()
    assert cli(*args) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tiebreak: error: "), err
    return err[0]


def answered(request: dict[str, Any]) -> dict[str, Any]:
    """The request answered by the judge the live run asked, in its service's shape."""
    made_id = request["custom_id"]
    if "params" in request:
        return anthropic_line(made_id, "succeeded", judge_answer(_last(request["params"])))
    return vllm_line(made_id, judge_answer(_last(request["body"])))


def _last(request: dict[str, Any]) -> str:
    return str(request["messages"][-1]["content"])


@pytest.mark.parametrize("shape", SHAPES)
def test_a_batch_stores_the_verdicts_a_live_run_does(
    tmp_path: Path, server: OpenAIServer, live: Path, shape: str, capsys: CaptureFixture[str]
) -> None:
    path, requests = exported(tmp_path, server, shape)
    write_jsonl(tmp_path / "out.jsonl", [answered(r) for r in requests])
    said = imported(path, tmp_path / "out.jsonl", capsys)
    assert said == ["6 results stored: 4 ok, 2 parse failures, 0 errors"]
    assert stored(path) == stored(live)
    verdicts = [(row[0], row[1], row[3]) for row in stored(path)]
    assert verdicts[:4] == [
        (1, "AB", {"overall": "A"}),
        (1, "BA", {"overall": "A"}),
        (2, "AB", {"overall": "A"}),
        (2, "BA", {"overall": "B"}),  # the judge's "A" in swapped order: a flip
    ]
    assert len(generations(server)) == 6  # the live run's; a batch calls nothing


def test_a_batch_submitted_to_openais_api_stores_the_verdicts_a_live_run_does(
    tmp_path: Path, server: OpenAIServer, live: Path, capsys: CaptureFixture[str]
) -> None:
    path = judged_project(tmp_path, "batch.tiebreak")
    capsys.readouterr()
    assert cli("batch", "submit", path, *target(server), "--poll", "0.01", "--yes") == 0
    said = capsys.readouterr().out.splitlines()
    assert said == ["6 results stored: 4 ok, 2 parse failures, 0 errors"]
    assert stored(path) == stored(live)


def test_an_anthropic_request_is_the_live_request_as_messages(
    tmp_path: Path, server: OpenAIServer, live: Path
) -> None:
    sent = [r.json for r in generations(server)]
    assert all(r.pop("logprobs") and r.pop("top_logprobs") for r in sent)  # Anthropic has none
    requests = exported(tmp_path, server, "anthropic")[1]
    assert len(requests) == 6
    for request in requests:
        assert re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", request["custom_id"])
        assert set(request) == {"custom_id", "params"}
        params = request["params"]
        system = [{"role": "system", "content": params.pop("system")}]
        as_chat = {**params, "messages": system + params["messages"]}
        assert as_chat in sent


@pytest.mark.parametrize("shape", ["openai", "anthropic"])
def test_a_partial_batch_stores_what_is_there_and_the_next_export_asks_the_rest(
    tmp_path: Path, server: OpenAIServer, live: Path, shape: str, capsys: CaptureFixture[str]
) -> None:
    path, requests = exported(tmp_path, server, shape)
    ids = [r["custom_id"] for r in requests]
    if shape == "anthropic":
        partial = [
            answered(requests[0]),
            anthropic_line(ids[1], "errored"),
            anthropic_line(ids[2], "expired"),
            anthropic_line(ids[3], "canceled"),
        ]
        error = "batch: Overloaded"
    else:
        never_run = "This request could not be executed before the completion window expired."
        partial = [
            answered(requests[0]),
            {
                "id": "batch_req_2",
                "custom_id": ids[1],
                "response": {
                    "status_code": 500,
                    "request_id": "req_2",
                    "body": {"error": {"message": "The server had an error", "code": None}},
                },
                "error": None,
            },
            {
                "id": "batch_req_3",
                "custom_id": ids[2],
                "response": None,
                "error": {"code": "batch_expired", "message": never_run},
            },
            {
                "id": "batch_req_4",
                "custom_id": ids[3],
                "response": None,
                "error": {"code": "batch_cancelled", "message": "The batch was cancelled."},
            },
        ]
        error = "batch: The server had an error"
    write_jsonl(tmp_path / "part.jsonl", partial)  # lines 5 and 6 never came
    assert imported(path, tmp_path / "part.jsonl", capsys) == [
        "2 results stored: 1 ok, 0 parse failures, 1 errors",
        "4 requests not answered (1 expired, 1 canceled, 2 not in the file):"
        " the next batch export asks for them",
    ]
    rows = stored(path)
    assert [(r[0], r[1], r[2], r[8]) for r in rows] == [
        (1, "AB", "ok", None),
        (1, "BA", "error", error),
    ]
    rest = export(path, tmp_path / "rest.jsonl", server, shape)
    assert [r["custom_id"] for r in rest] == ids[1:]
    write_jsonl(tmp_path / "rest-out.jsonl", [answered(r) for r in rest])
    assert imported(path, tmp_path / "rest-out.jsonl", capsys) == [
        "5 results stored: 3 ok, 2 parse failures, 0 errors"
    ]
    assert stored(path) == stored(live)
    assert export(path, tmp_path / "none.jsonl", server, shape) == []


def _bad_anthropic(made_id: str) -> dict[str, str]:
    ok = anthropic_line(made_id, "succeeded", "A")
    message = ok["result"]["message"]
    return {
        "result not an object": json.dumps({**ok, "result": "succeeded"}),
        "unknown result type": json.dumps({**ok, "result": {"type": "done"}}),
        "no message": json.dumps({**ok, "result": {"type": "succeeded"}}),
        "content not a list": json.dumps(
            {**ok, "result": {"type": "succeeded", "message": {**message, "content": "A"}}}
        ),
        "custom_id not text": json.dumps({**ok, "custom_id": 7}),
        "foreign custom_id": json.dumps({**ok, "custom_id": "tb_x_1"}),
    }


@pytest.mark.parametrize("case", list(_bad_anthropic("tb_x_1_AB")))
def test_a_malformed_anthropic_line_is_one_error_naming_file_and_line(
    tmp_path: Path, server: OpenAIServer, case: str, capsys: CaptureFixture[str]
) -> None:
    path, requests = exported(tmp_path, server, "anthropic")
    good = json.dumps(answered(requests[0]))
    bad_file = tmp_path / "out.jsonl"
    bad_file.write_text(good + "\n" + _bad_anthropic(requests[0]["custom_id"])[case] + "\n")
    before = table_digest(path)
    assert f"{bad_file} line 2" in refused(capsys, "batch", "import", path, bad_file)
    assert table_digest(path) == before


@pytest.mark.parametrize(
    ("changes", "rubric", "said"),
    [
        ({"api_mode": "completions"}, "href-overall", "Anthropic's batches take chat requests"),
        ({"structured": "json_schema"}, "just-eval", "cannot carry a response_format"),
        ({"temperature": 1.5}, "href-overall", "a temperature from 0 to 1, not 1.5"),
    ],
)
def test_an_anthropic_export_refuses_what_messages_cannot_carry(
    tmp_path: Path,
    server: OpenAIServer,
    changes: dict[str, Any],
    rubric: str,
    said: str,
    capsys: CaptureFixture[str],
) -> None:
    path = judged_project(tmp_path, "batch.tiebreak")
    save_profile(profile(server, name="remote", **changes))
    before = table_digest(path)
    out = tmp_path / "in.jsonl"
    args = ["--rubric", rubric, "--profile", "remote", "--shape", "anthropic"]
    assert said in refused(capsys, "batch", "export", path, out, *args)
    assert not out.exists()
    assert table_digest(path) == before


@pytest.mark.parametrize(
    ("shape", "requests", "size", "said"),
    [
        ("anthropic", 100_000, 256 << 20, None),
        ("anthropic", 100_001, 1000, "this file holds 100,001 requests, 1 MB"),
        ("anthropic", 70_000, (256 << 20) + 1, "this file holds 70,000 requests, 257 MB"),
        ("openai", 50_001, 1000, "OpenAI's Batch API takes at most 50,000 requests and 200 MB"),
    ],
)
def test_a_file_past_what_its_service_takes_says_so(
    shape: str, requests: int, size: int, said: str | None
) -> None:
    note = BatchExport(requests, 0, "t", "/v1/messages", shape, size).too_large()
    assert note == said if said is None else note is not None and said in note
    assert note is None or "--where 'id <= N' exports a part" in note


def test_an_export_within_the_limits_says_nothing_more(
    tmp_path: Path, server: OpenAIServer, capsys: CaptureFixture[str]
) -> None:
    path = judged_project(tmp_path, "batch.tiebreak")
    capsys.readouterr()
    export(path, tmp_path / "in.jsonl", server, "anthropic")
    said = capsys.readouterr()
    assert said.out.splitlines() == [
        f"{tmp_path / 'in.jsonl'}: 6 requests for /v1/messages (0 already judged)"
    ]
    assert said.err == ""
