"""The share of verdicts for output_1 is called a position bias only where the judge was
shown output_1 first: AlpacaEval's annotator shuffles the order before asking and maps the
answer back, so on its annotations the figure is the baseline's win rate, and `stats`
says "prefers output_1" and that the order seen is unknown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.cli.main import main
from tests.helpers import new_project, write_jsonl
from tests.judging_helpers import JUST_EVAL_ANSWER
from tests.openai_server import OpenAIServer

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
CLAUDE = SHARED / "alpaca_eval" / "claude-2.1__weighted_alpaca_eval_gpt4_turbo.annotations.json"


def stats(capsys: pytest.CaptureFixture[str], project: Path, rubric: str) -> tuple[str, Any]:
    capsys.readouterr()
    assert main(["stats", str(project), "--rubric", rubric]) == 0
    text = capsys.readouterr().out
    assert main(["stats", str(project), "--rubric", rubric, "--json"]) == 0
    (data,) = json.loads(capsys.readouterr().out)["rubrics"]
    return text, data


def bias_table(text: str) -> list[str]:
    """The bias table's lines: its heading sentence, the grid, and the note under it."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("the judges' biases"))
    return lines[start : start + 4]


def test_imported_alpaca_eval_annotations_prefer_output_1_not_a_position_bias(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not CLAUDE.exists():
        pytest.skip("../shared/data/alpaca_eval is not beside this checkout")
    project = new_project(tmp_path)
    assert main(["import", str(project), str(CLAUDE)]) == 0
    text, data = stats(capsys, project, "alpaca-eval")
    heading, columns, row, note = bias_table(text)
    assert "first shown" not in heading and "no position bias" not in heading
    assert columns.split()[-4:] == ["output_1", "verdicts", "order", "seen"]
    assert row.split()[-3:] == ["0.843", "805", "unknown"]  # the baseline wins 84%
    assert note.startswith("output_1: how often the judge prefers output_1")
    assert "not where the order is unknown" in note
    (judged,) = data["judge_biases"]
    for biases in (judged["biases"], data["overall"]["dimensions"][0]["biases"]):
        assert "prefer_first" not in biases
        assert biases["prefer_output_1"] == pytest.approx(0.8426649326, abs=1e-9)
        assert biases["order_seen"] == "unknown"


@pytest.mark.parametrize(("swap", "seen"), [(False, "A first"), (True, "both")])
def test_a_judge_tiebreak_asked_says_the_order_it_was_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], swap: bool, seen: str
) -> None:
    project = new_project(tmp_path)
    rows = [
        {"instruction": f"q{i}", "response_a": f"a{i}", "response_b": f"b{i}"} for i in range(4)
    ]
    assert main(["import", str(project), str(write_jsonl(tmp_path / "p.jsonl", rows))]) == 0
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as server:
        args = ["profile", "add", "t", "--base-url", server.base_url, "--model", "m"]
        assert main([*args, "--no-key", "--concurrency", "1"]) == 0
        judge = ["judge", str(project), "--rubric", "just-eval", "--profile", "t"]
        assert main([*judge, *(["--swap"] if swap else ["--one-order"])]) in (0, 1)
    capsys.readouterr()
    text, data = stats(capsys, project, "just-eval")
    judged = data["judge_biases"]
    assert len(judged) == 6  # just-eval's dimensions
    assert {j["biases"]["order_seen"] for j in judged} == {seen}
    assert bias_table(text)[2].rstrip().endswith(seen)
