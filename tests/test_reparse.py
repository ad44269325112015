"""Parse failures become verdicts after a rubric fix, from the stored text, with no model call."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from desktop.adapters.rubric_files import dump_rubric
from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.domain.rubric import AnswerFormat, AnswerKind
from desktop.services.judging.reparse import reparse
from tests.judging_helpers import generations, make_job, project, results, rubric
from tests.openai_server import OpenAIServer, Reply

# The rubric names the wrong JSON key: the judge answers {"winner": ...}, it looks for "choice".
BROKEN = rubric("t-fix", AnswerKind.JSON_CHOICE, ("overall",), choice_key="choice")
FIXED = dataclasses.replace(
    BROKEN, answer=AnswerFormat(AnswerKind.JSON_CHOICE, choice_key="winner")
)
ANSWERS = [
    '{"winner": "B"}',  # pair 1, AB
    '{"winner": "B"}',  # pair 1, BA: the pair's A
    '{"winner": "Tie"}',  # pair 2, AB
    "no idea",  # pair 2, BA: no fix makes this an answer
    Reply.error(400),  # pair 3, AB: an error has no text to parse
    '{"choice": "A"}',  # pair 3, BA: fine already
]


@pytest.fixture
def judged(tmp_path: Path) -> tuple[Path, OpenAIServer]:
    path = project(tmp_path, 3)
    with OpenAIServer() as server:
        server.script(ANSWERS)
        with open_project(path) as store:
            make_job(store, server, BROKEN, options={"swap": True}).run()
            statuses = [r["status"] for r in results(store)]
        assert statuses == ["parse-failure"] * 4 + ["error", "ok"]
        server.clear()
        yield path, server


def test_reparse_turns_fixed_failures_into_verdicts_without_calling_the_model(
    judged: tuple[Path, OpenAIServer],
) -> None:
    path, server = judged
    with open_project(path) as store:
        before = {(r["pair_id"], r["ord"]): r for r in results(store)}
        report = reparse(store, FIXED)
        after = {(r["pair_id"], r["ord"]): r for r in results(store)}
    assert (report.examined, report.now_ok, report.still_failing) == (4, 3, 1)
    assert server.requests == []
    assert after[1, "AB"]["status"] == "ok" and after[1, "AB"]["verdicts"] == {"overall": "B"}
    assert after[1, "BA"]["verdicts"] == {"overall": "A"}  # mapped back from the swapped order
    assert after[2, "AB"]["verdicts"] == {"overall": "tie"} and after[2, "AB"]["error"] is None
    assert after[2, "BA"]["status"] == "parse-failure"
    assert after[2, "BA"]["raw_completion"] == "no idea"
    assert after[3, "AB"] == before[3, "AB"]  # the error is left for the next run to ask
    assert after[3, "BA"] == before[3, "BA"]  # an answer that was fine is not touched
    for key, row in after.items():
        assert row["raw_completion"] == before[key]["raw_completion"]


def test_reparse_all_reads_ok_answers_again_too(judged: tuple[Path, OpenAIServer]) -> None:
    path, server = judged
    with open_project(path) as store:
        report = reparse(store, FIXED, everything=True)
        rows = {(r["pair_id"], r["ord"]): r for r in results(store)}
    assert (report.examined, report.now_ok) == (5, 3)
    assert rows[3, "BA"]["status"] == "parse-failure"  # {"choice": ...} is wrong for FIXED
    assert rows[3, "BA"]["verdicts"] is None
    assert server.requests == []


def test_reparse_command_uses_the_fixed_rubric_added_to_the_project(
    tmp_path: Path, judged: tuple[Path, OpenAIServer], capsys: pytest.CaptureFixture[str]
) -> None:
    path, server = judged
    fixed_file = tmp_path / "t-fix.toml"
    fixed_file.write_text(dump_rubric(FIXED), encoding="utf-8")
    assert main(["rubric", "add", str(path), str(fixed_file)]) == 0
    capsys.readouterr()
    assert main(["reparse", str(path), "--rubric", "t-fix"]) == 0
    assert "4 answers parsed again: 3 ok, 1 still failing" in capsys.readouterr().out
    assert main(["reparse", str(path), "--rubric", "t-fix"]) == 0  # idempotent
    assert "1 answers parsed again: 0 ok, 1 still failing" in capsys.readouterr().out
    assert main(["reparse", str(path), "--rubric", "no-such-rubric"]) == 1
    with open_project(path) as store:
        assert [r["status"] for r in results(store)].count("ok") == 4
    assert generations(server) == [] and server.requests == []
