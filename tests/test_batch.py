"""`tiebreak batch`: export the live job's requests, import OpenAI and vLLM batch outputs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.profiles_file import save_profile
from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.domain.pairs import PairContent
from tests.batch_helpers import chat_completion
from tests.helpers import new_project, table_digest, write_jsonl
from tests.judging_helpers import MODEL, add_pairs, generations, profile, results
from tests.openai_server import OpenAIServer


@pytest.fixture
def server():
    with OpenAIServer() as s:
        yield s


@pytest.fixture
def path(tmp_path: Path) -> Path:
    p = new_project(tmp_path)
    add_pairs(
        p,
        [
            PairContent(f"q{i} {{{{ x }}}}", f"GOOD {i}", f"bad {i}", reference="ref")
            for i in (1, 2)
        ],
    )
    return p


def cli(*args: str | Path) -> int:
    return main([str(a) for a in args])


def export(path: Path, out: Path, server: OpenAIServer, rubric: str, *extra: str) -> list[dict]:
    code = cli(
        "batch",
        "export",
        path,
        out,
        "--rubric",
        rubric,
        "--base-url",
        server.base_url,
        "--model",
        MODEL,
        *extra,
    )
    assert code == 0
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def judge(path: Path, server: OpenAIServer, rubric: str, *extra: str) -> int:
    return cli(
        "judge",
        path,
        "--rubric",
        rubric,
        "--base-url",
        server.base_url,
        "--model",
        MODEL,
        "--concurrency",
        "1",
        *extra,
    )


@pytest.mark.parametrize(
    ("rubric", "api_mode", "swap"),
    [
        ("href-overall", "chat", True),
        ("just-eval", "chat", False),
        ("just-eval", "completions", False),
    ],
)
def test_export_writes_the_requests_the_live_job_sends(
    tmp_path: Path, path: Path, server: OpenAIServer, rubric: str, api_mode: str, swap: bool
) -> None:
    save_profile(profile(server, name="remote", api_mode=api_mode))
    extra = ["--rubric", rubric, "--profile", "remote"] + (["--swap"] if swap else [])
    assert cli("batch", "export", path, tmp_path / "in.jsonl", *extra) == 0
    lines = [json.loads(x) for x in (tmp_path / "in.jsonl").read_text("utf-8").splitlines()]
    assert server.requests == []
    assert cli("judge", path, *extra) == 0
    orders = ("AB", "BA") if swap else ("AB",)
    ids = [line["custom_id"].split(":") for line in lines]
    assert [(i[0], i[2], i[3]) for i in ids] == [("tb", str(p), o) for p in (1, 2) for o in orders]
    assert len({i[1] for i in ids}) == 1
    url = "/v1/chat/completions" if api_mode == "chat" else "/v1/completions"
    assert all(line["method"] == "POST" and line["url"] == url for line in lines)
    sent = generations(server)
    assert [r.path for r in sent] == [url] * len(lines)
    assert [line["body"] for line in lines] == [r.json for r in sent]


def output_line(custom_id: str, content: str | None, *, vllm: bool = False) -> dict[str, Any]:
    prefix = "vllm-" if vllm else "batch_req_"
    if content is None and vllm:
        error = {
            "error": {
                "message": "prompt is too long",
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            }
        }
        response: Any = {"status_code": 400, "request_id": "vllm-batch-9", "body": None}
        return {"id": prefix + "9", "custom_id": custom_id, "response": response, "error": error}
    if content is None:
        error = {"code": "server_error", "message": "This request could not be executed."}
        return {"id": prefix + "9", "custom_id": custom_id, "response": None, "error": error}
    response = {
        "status_code": 200,
        "request_id": "req-1",
        "body": chat_completion(content, vllm=vllm),
    }
    return {"id": prefix + "1", "custom_id": custom_id, "response": response, "error": None}


@pytest.mark.parametrize("vllm", [False, True], ids=["openai", "vllm"])
def test_import_stores_results_under_the_live_key(
    tmp_path: Path,
    path: Path,
    server: OpenAIServer,
    vllm: bool,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = export(path, tmp_path / "in.jsonl", server, "href-overall", "--swap")
    answers = ["A", "B", "I am not sure", None]  # pair 1 AB, BA; pair 2 AB, BA
    outputs = [
        output_line(x["custom_id"], a, vllm=vllm) for x, a in zip(lines, answers, strict=True)
    ]
    write_jsonl(tmp_path / "out.jsonl", outputs[::-1])  # order does not matter
    capsys.readouterr()
    assert cli("batch", "import", path, tmp_path / "out.jsonl") == 0
    assert "4 results stored: 2 ok, 1 parse failures, 1 errors" in capsys.readouterr().out
    with open_project(path) as store:
        rows = results(store)
    assert [(r["pair_id"], r["ord"], r["status"]) for r in rows] == [
        (1, "AB", "ok"),
        (1, "BA", "ok"),
        (2, "AB", "parse-failure"),
        (2, "BA", "error"),
    ]
    assert rows[0]["verdicts"] == {"overall": "A"}
    assert rows[1]["verdicts"] == {"overall": "A"}  # B in swapped order is the pair's A
    assert rows[1]["raw_completion"] == "B" and rows[2]["raw_completion"] == "I am not sure"
    expected = "prompt is too long" if vllm else "This request could not be executed."
    assert rows[3]["error"] == f"batch: {expected}"
    assert {r["origin"] for r in rows} == {"batch"}
    assert judge(path, server, "href-overall", "--swap") == 0
    assert len(generations(server)) == 1  # only the failed line is asked again


def _bad_lines(custom_id: str) -> dict[str, str]:
    ok = output_line(custom_id, "A")
    return {
        "not JSON": '{"custom_id": "tb:',
        "no custom_id": json.dumps({"response": ok["response"]}),
        "foreign custom_id": json.dumps({**ok, "custom_id": "request-1"}),
        "unknown batch": json.dumps({**ok, "custom_id": "tb:000000000000:1:AB"}),
        "body not a completion": json.dumps(
            {**ok, "response": {"status_code": 200, "body": {"x": 1}}}
        ),
        "no choices": json.dumps(
            {
                **ok,
                "response": {"status_code": 200, "body": {**chat_completion("A"), "choices": []}},
            }
        ),
        "response not an object": json.dumps({**ok, "response": "oops"}),
        "pair not in project": json.dumps({**ok, "custom_id": custom_id.replace(":1:", ":99:")}),
    }


@pytest.mark.parametrize("case", list(_bad_lines("tb:x:1:AB")))
def test_a_malformed_line_is_one_error_naming_file_and_line(
    tmp_path: Path,
    path: Path,
    server: OpenAIServer,
    case: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = export(path, tmp_path / "in.jsonl", server, "href-overall")
    good = json.dumps(output_line(lines[0]["custom_id"], "A"))
    bad_file = tmp_path / "out.jsonl"
    bad_file.write_text(good + "\n" + _bad_lines(lines[0]["custom_id"])[case] + "\n")
    before = table_digest(path)
    capsys.readouterr()
    assert cli("batch", "import", path, bad_file) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tiebreak: error: "), err
    assert f"{bad_file} line 2" in err[0], err[0]
    assert "unexpected" not in err[0]
    assert table_digest(path) == before


def test_batch_commands_exit_codes(
    tmp_path: Path, path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli("batch", "import", path, tmp_path / "missing.jsonl") == 1
    assert (
        cli(
            "batch",
            "export",
            path,
            tmp_path / "no-dir" / "in.jsonl",
            "--rubric",
            "href-overall",
            "--base-url",
            server.base_url,
            "--model",
            MODEL,
        )
        == 1
    )
    assert (
        cli(
            "batch",
            "export",
            path,
            tmp_path / "in.jsonl",
            "--rubric",
            "no-such",
            "--base-url",
            server.base_url,
            "--model",
            MODEL,
        )
        == 1
    )
    lines = export(path, tmp_path / "in.jsonl", server, "href-overall")
    other = new_project(tmp_path, "other.tiebreak")
    add_pairs(other, [PairContent("q", "a", "b", reference="r")])
    write_jsonl(tmp_path / "out.jsonl", [output_line(lines[0]["custom_id"], "A")])
    assert cli("batch", "import", other, tmp_path / "out.jsonl") == 1
    assert "exported from another project" in capsys.readouterr().err
    assert cli("batch", "import", path, tmp_path / "out.jsonl") == 0
    assert server.requests == []  # export and import never call the model
