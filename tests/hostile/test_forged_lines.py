"""Someone else's text never starts a line of its own or turns around: a server's message,
a model name, a pair id or a file name holding CR, LF, other controls or a bidi override
(U+202E: "gnp.exe" shown as "exe.png") is shown with each of them escaped, on the
terminal, in the project's stored errors and in the window's labels."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.domain.results import Status
from desktop.services.importing import import_file
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, Run
from tests.judging_helpers import JUST_EVAL_ANSWER, MODEL, project
from tests.openai_server import MODELS_PATH, FaultRule, OpenAIServer, Reply
from tests.stats_helpers import add_rubric, judge

FORGED = "bad \u2026\r\nsecond line\u202egnp.exe\u2028\x85third\tcell"
SHOWN = "bad \u2026\\x0d\\x0asecond line\\u202egnp.exe\\u2028\\x85third\\x09cell"
# Whatever a terminal or a label acts on: C0 and C1 controls, DEL, bidi controls, the line
# and paragraph separators. Newline and tab are checked line by line instead.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                 "\u2028\u2029]")  # fmt: skip


def clean(run: Run) -> None:
    """No raw control in either stream, and no line that outside text started."""
    for stream in (run.stdout, run.stderr):
        assert not RAW.findall(stream), stream
        assert not any(line.startswith(("second line", "third")) for line in stream.split("\n"))


def stored_errors(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [e for (e,) in conn.execute("SELECT error FROM judge_results") if e]


def test_a_server_message_is_one_line_on_the_terminal_and_in_the_project(
    tmp_path: Path, hostile: Hostile
) -> None:
    path = project(tmp_path, n=2)
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as server:
        server.script([Reply.error(400, FORGED)])
        run = hostile.cli("judge", path, "--rubric", "just-eval", "--concurrency", "1",
                          "--base-url", server.base_url, "--model", MODEL)  # fmt: skip
    assert run.code == 1 and "Traceback" not in run.stderr
    clean(run)
    assert f"pair #1: request refused (400): {SHOWN}" in run.stderr
    errors = stored_errors(path)
    assert errors == [f"request refused (400): {SHOWN}"]
    assert not RAW.search(errors[0]) and "\n" not in errors[0]
    hostile.held()


def test_a_refusal_that_stops_the_job_is_one_line(tmp_path: Path, hostile: Hostile) -> None:
    path = project(tmp_path, n=1)
    with OpenAIServer() as server:
        server.add_rule(FaultRule(Reply.error(401, FORGED), every=1, paths=(MODELS_PATH,)))
        run = hostile.cli("judge", path, "--rubric", "just-eval", "--base-url", server.base_url,
                          "--model", MODEL)  # fmt: skip
    hostile.refused(run, says=f"refused the API key (401): {SHOWN}")
    clean(run)


def test_a_model_name_is_one_line_in_profile_test(hostile: Hostile) -> None:
    from desktop.adapters.profiles_file import save_profile
    from desktop.domain.profiles import ModelProfile

    with OpenAIServer(answer="A", models=(f"m{FORGED}", MODEL)) as server:
        save_profile(ModelProfile(name="p", model=MODEL, base_url=server.base_url,
                                  needs_key=False))  # fmt: skip
        run = hostile.main("profile", "test", "p")
    hostile.succeeded(run)
    clean(run)
    assert f"models: m{SHOWN}, {MODEL}" in run.stdout
    assert len(run.stdout.strip().splitlines()) == 1


def test_a_batch_error_is_stored_and_shown_as_one_line(tmp_path: Path, hostile: Hostile) -> None:
    path = project(tmp_path, n=2)
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as server:
        server.script([Reply.error(400, FORGED)])
        run = hostile.cli("batch", "submit", path, "--rubric", "just-eval", "--base-url",
                          server.base_url, "--model", MODEL, "--poll", "0.05")  # fmt: skip
    hostile.succeeded(run)
    clean(run)
    assert "2 results stored: 1 ok, 0 parse failures, 1 errors" in run.stdout
    assert stored_errors(path) == [f"batch: {SHOWN}"]


@pytest.fixture
def forged_project(tmp_path: Path) -> Path:
    """A pair whose id and category hold a forged line and a bidi override, and an answer
    in error whose text came raw from a server (as a Tiebreak before this check kept it)."""
    path = new_project(tmp_path)
    rows = [
        {"id": f"p1{FORGED}", "category": f"math{FORGED}", "instruction": "i",
         "output_1": "a", "output_2": "b"},
        {"id": "p2", "category": "math", "instruction": "j", "output_1": "c", "output_2": "d"},
    ]  # fmt: skip
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(store, "r", ("overall",))
        judge(store, 1, model=f"judge{FORGED}", overall="A")
        judge(store, 2, model=f"judge{FORGED}", status=Status.ERROR)
        store.conn.execute("UPDATE judge_results SET error = ? WHERE pair_id = 2", (FORGED,))
        store.conn.commit()
    return path


def test_pair_ids_categories_and_models_are_one_line_each(
    forged_project: Path, hostile: Hostile
) -> None:
    run = hostile.cli("override", forged_project, f"p1{FORGED}", "overall", "B", "--rubric", "r")
    hostile.succeeded(run)
    clean(run)
    assert f"p1{SHOWN}: overall = B" in run.stdout
    for words in (("stats", "--rubric", "r"), ("judges",), ("queue", "--rubric", "r")):
        run = hostile.cli(words[0], forged_project, *words[1:])
        hostile.succeeded(run)
        clean(run)
        assert words[0] == "queue" or f"judge{SHOWN}" in run.stdout, run.stdout


def test_json_output_escapes_them_the_json_way(forged_project: Path, hostile: Hostile) -> None:
    run = hostile.cli("stats", forged_project, "--rubric", "r", "--json")
    hostile.succeeded(run)
    clean(run)
    assert json.loads(run.stdout)["rubrics"][0]["judge_model"] == f"judge{FORGED}"


def test_a_file_name_in_the_error_line_is_one_line(tmp_path: Path, hostile: Hostile) -> None:
    missing = tmp_path / f"x{FORGED}.tiebreak"
    run = hostile.cli("stats", missing)
    hostile.refused(run, says=f"x{SHOWN}.tiebreak: no such project")
    clean(run)


def test_the_window_shows_them_escaped(qtbot, forged_project: Path, hostile: Hostile) -> None:
    from PySide6.QtWidgets import QLabel

    from desktop.services.app_settings import AppSettings
    from desktop.services.session import ReviewSession
    from desktop.ui.main_window import MainWindow

    settings = AppSettings(reviewer="ada")
    session = ReviewSession.open(forged_project, settings)
    session.choose_rubric("r")
    window = MainWindow(session, settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.pairs.table.selectRow(1)  # pair 2: its stored error
    qtbot.waitUntil(lambda: "error" in window.display.verdicts.judge_info.text(), timeout=5000)
    info = window.display.verdicts.judge_info.text()
    assert f"judge: judge{SHOWN} — AB: error — {SHOWN}" == info
    for label in window.findChildren(QLabel):
        assert not RAW.search(label.text()) and "\n" not in label.text(), label.text()
    model = window.pairs.model
    shown = {model.data(model.index(r, c)) for r in range(model.rowCount()) for c in (1, 2)}
    assert {f"p1{SHOWN}", f"math{SHOWN}"} <= shown
    judges = window.choices.judge_box
    assert judges.itemText(0).startswith(f"judge{SHOWN}")
    window.context.runner.shutdown()
    hostile.held()


def test_a_refusal_in_the_window_is_one_line_in_its_message_box(
    qtbot, tmp_path: Path, hostile: Hostile
) -> None:
    from desktop.domain.profiles import ModelProfile
    from tests.gui_helpers import judged_message_box

    with OpenAIServer() as server:
        server.script([Reply.error(401, FORGED)] * 3)
        profile = ModelProfile(name="p", model=MODEL, base_url=server.base_url, needs_key=False)
        text = judged_message_box(qtbot, project(tmp_path, n=1), profile, lambda box: box.text())
    assert f"refused the API key (401): {SHOWN}" in text
    assert not RAW.search(text) and "\n" not in text, text
    hostile.held()
