"""examples/ray_batch.py: the Ray recipe's work per line, run without a cluster, answers a
Tiebreak batch file with a results file Tiebreak imports as a live run's answers."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.batch_helpers import cli, judged_project, live_answer, read_jsonl, stored, target
from tests.judging_helpers import closed_port_url, generations
from tests.openai_server import OpenAIServer, Reply

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "ray_batch.py"


@pytest.fixture(scope="module")
def recipe() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ray_batch", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ray_batch"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def server():
    with OpenAIServer() as s:
        s.responder = live_answer
        yield s


def test_the_recipe_answers_a_batch_as_a_live_run_would(
    tmp_path: Path, server: OpenAIServer, recipe: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    live = judged_project(tmp_path, "live.tiebreak")
    assert cli("judge", live, *target(server)) == 0
    path = judged_project(tmp_path, "batch.tiebreak")
    assert cli("batch", "export", path, tmp_path / "in.jsonl", *target(server)) == 0
    before = len(generations(server))
    written = recipe.run_local(
        tmp_path / "in.jsonl", tmp_path / "out.jsonl", recipe.http_post(server.base_url)
    )
    assert written == 6
    sent = generations(server)[before:]
    assert [r.json for r in sent] == [line["body"] for line in read_jsonl(tmp_path / "in.jsonl")]
    capsys.readouterr()
    assert cli("batch", "import", path, tmp_path / "out.jsonl") == 0
    assert capsys.readouterr().out.splitlines() == [
        "6 results stored: 4 ok, 2 parse failures, 0 errors"
    ]
    assert stored(path) == stored(live)


def test_a_refused_or_unreachable_request_is_an_error_line_asked_again(
    tmp_path: Path, server: OpenAIServer, recipe: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse_item1(request: dict[str, Any]) -> str | Reply:
        if "ITEM1:" in request["messages"][-1]["content"]:
            return Reply(status=400, error_message="prompt is too long")
        return live_answer(request)

    server.responder = refuse_item1
    path = judged_project(tmp_path, "batch.tiebreak")
    assert cli("batch", "export", path, tmp_path / "in.jsonl", *target(server)) == 0
    recipe.run_local(
        tmp_path / "in.jsonl", tmp_path / "out.jsonl", recipe.http_post(server.base_url)
    )
    lines = read_jsonl(tmp_path / "out.jsonl")
    assert [line["response"]["status_code"] for line in lines] == [200, 200, 400, 400, 200, 200]
    capsys.readouterr()
    assert cli("batch", "import", path, tmp_path / "out.jsonl") == 0
    assert "6 results stored: 2 ok, 2 parse failures, 2 errors" in capsys.readouterr().out
    assert [r[8] for r in stored(path)][2:4] == ["batch: prompt is too long"] * 2
    # nothing listens there: every line an error, none lost
    dead = recipe.http_post(closed_port_url(), attempts=1)
    assert cli("batch", "export", path, tmp_path / "again.jsonl", *target(server)) == 0
    assert recipe.run_local(tmp_path / "again.jsonl", tmp_path / "dead.jsonl", dead) == 2
    assert all(line["response"] is None for line in read_jsonl(tmp_path / "dead.jsonl"))
    assert cli("batch", "import", path, tmp_path / "dead.jsonl") == 0
    assert "2 results stored: 0 ok, 0 parse failures, 2 errors" in capsys.readouterr().out
    assert "Connection refused" in str(stored(path)[2][8])


def test_the_ray_run_says_how_to_go_on_without_ray(
    tmp_path: Path, server: OpenAIServer, recipe: ModuleType
) -> None:
    if importlib.util.find_spec("ray") is not None:
        pytest.skip("Ray is installed here")
    path = judged_project(tmp_path, "batch.tiebreak")
    assert cli("batch", "export", path, tmp_path / "in.jsonl", *target(server)) == 0
    args = [str(tmp_path / "in.jsonl"), str(tmp_path / "out.jsonl"), "--base-url", server.base_url]
    with pytest.raises(SystemExit, match=r"Ray is not installed .*--local runs"):
        recipe.main(args)
    assert not (tmp_path / "out.jsonl").exists()
    assert recipe.main([*args, "--local"]) == 0
    assert len(read_jsonl(tmp_path / "out.jsonl")) == 6
