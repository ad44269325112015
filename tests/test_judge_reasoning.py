"""The judge's reasoning under the verdict table (E folds it) and the rubric's guidance
beside the pair (C): what the reviewer reads, from real answers of the test server and a
real AlpacaEval-style import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.adapters.store import open_project
from desktop.domain.judge_reasoning import reasoning
from desktop.services.app_settings import AppSettings, load_settings
from desktop.services.importing import import_file
from desktop.services.session import ReviewSession
from desktop.ui.main_window import MainWindow
from tests.gui_helpers import press
from tests.helpers import new_project
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
CTRL = Qt.KeyboardModifier.ControlModifier

JUDGMENT = (
    "Assistant A gives 2, which is right; Assistant B says 3, which is wrong. "
    "<b>not bold</b> [[A]]\r\nA, B, tie, A"
)


def test_reasoning_is_read_from_each_kind_of_answer() -> None:
    fenced = '```json\n{"rationale": "B is clearer.", "choices": {"clarity": "B"}}\n```'
    assert reasoning(fenced) == "B is clearer."
    assert reasoning('{"reason": "A is closer to the text.", "choice": "A"}') == (
        "A is closer to the text."
    )
    alpaca = {"concise_explanation": "m explains the steps.", "ordered_models": []}
    assert reasoning(json.dumps(alpaca)) == "m explains the steps."
    mt_bench = "Assistant A is more detailed and correct, so it wins.\n\n[[A]]"
    assert reasoning(mt_bench) == mt_bench
    logprobs = {"finish_reason": "length", "message": {"content": "M"}, "text": "M"}
    for verdict_only in ("A", "A, B, tie, A", "[[B]]", "Final answer: tie", "", None):
        assert reasoning(verdict_only) is None
    assert reasoning(json.dumps(logprobs)) is None
    assert reasoning('{"choice": "A"}') is None
    reply = {"message": {"content": "Output (a) answers the question and output (b) does not."}}
    assert reasoning(json.dumps(reply)).startswith("Output (a) answers")


def _pairs(path: Path, tmp_path: Path) -> None:
    rows = [
        {
            "id": f"p{i}",
            "instruction": f"Question {i}: what is {i} + {i}?",
            "response_a": f"It is {2 * i}.",
            "response_b": f"Probably {2 * i + 1}.",
            "reference": f"{2 * i}",
        }
        for i in (1, 2)
    ]
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    with open_project(path) as store:
        import_file(store, data)


def _window(qtbot, path: Path, server: OpenAIServer | None, rubric: str) -> MainWindow:
    from desktop.adapters.profiles_file import save_profile
    from desktop.domain.profiles import ModelProfile

    profile = "local"
    if server is not None:
        save_profile(ModelProfile(name="t", model="t", base_url=server.base_url, needs_key=False))
        profile = "t"
    settings = AppSettings(reviewer="ada", profile=profile)
    session = ReviewSession.open(path, settings)
    session.choose_rubric(rubric)
    win = MainWindow(session, settings)
    qtbot.addWidget(win)
    win.resize(1400, 900)
    win.show()
    win.activateWindow()
    qtbot.waitExposed(win)
    qtbot.waitUntil(win.isActiveWindow)
    win.pairs.focus()
    return win


def test_the_judges_reasoning_shows_under_its_verdicts_as_plain_text(qtbot, tmp_path: Path) -> None:
    path = new_project(tmp_path)
    _pairs(path, tmp_path)
    with OpenAIServer(answer=JUDGMENT) as server:
        win = _window(qtbot, path, server, "href-four")
        panel = win.display.reasoning
        assert not panel.isVisible()  # not judged: nothing to show
        press(qtbot, win, Qt.Key.Key_J, CTRL)
        qtbot.waitUntil(lambda: not win.judging.running, timeout=20_000)
        qtbot.waitUntil(panel.isVisible)
        shown = panel.shown_text()
        assert shown == JUDGMENT.replace("\r\n", "\n")  # the tags as the characters they are
        assert panel.text.document().toHtml().count("<b>") == 0  # never read as HTML
        # under the verdict table, above the note line
        table_bottom = win.display.verdicts.judge_info.mapTo(
            win, win.display.verdicts.rect().topLeft()
        )
        assert panel.mapTo(win, panel.rect().topLeft()).y() > table_bottom.y()
        win.grab().save(str(tmp_path / "reasoning.png"))
        press(qtbot, win, Qt.Key.Key_E)  # folded
        assert panel.shown_text() == "" and panel.isVisible()
        assert "(E shows it)" in panel.header.text()
        assert not load_settings().reasoning_unfolded
        press(qtbot, win, Qt.Key.Key_E)
        assert panel.shown_text() == shown
        panel.header.click()  # the header folds it too
        assert panel.shown_text() == "" and not win.shortcuts["toggle_reasoning"].isChecked()
        panel.header.click()

        # both orders: each said, the swapped one with what its A and B are
        press(qtbot, win, Qt.Key.Key_W, CTRL)
        press(qtbot, win, Qt.Key.Key_J, CTRL)
        qtbot.waitUntil(lambda: not win.judging.running, timeout=20_000)
        qtbot.waitUntil(lambda: "swapped" in panel.shown_text())
        both = panel.shown_text()
        assert both.startswith("asked as A, B:\nAssistant A gives 2")
        assert 'asked with A and B swapped (its "A" is Response B' in both

        # blind mode: the reasoning names the verdict, so it waits for the reviewer's
        press(qtbot, win, Qt.Key.Key_J)  # the second pair, judged in neither order yet
        press(qtbot, win, Qt.Key.Key_B, CTRL)
        press(qtbot, win, Qt.Key.Key_J, CTRL)  # (both orders still: Ctrl+W stays on)
        qtbot.waitUntil(lambda: not win.judging.running, timeout=20_000)
        qtbot.waitUntil(panel.isVisible)
        assert panel.shown_text() == ""
        assert "hidden in blind mode" in panel.header.text()
        for key in (Qt.Key.Key_A, Qt.Key.Key_B, Qt.Key.Key_T):
            press(qtbot, win, key)
        assert panel.shown_text() == ""  # overall is still hidden
        press(qtbot, win, Qt.Key.Key_A)
        assert panel.shown_text().startswith("asked as A, B:\nAssistant A gives 2")
        win.context.runner.shutdown()


def test_alpaca_evals_concise_explanation_shows_with_its_verdict(qtbot, tmp_path: Path):
    record = {
        "instruction": "Name a prime.",
        "output_1": "7",
        "generator_1": "gpt4_1106_preview",
        "output_2": "9",
        "generator_2": "claude-2.1",
        "annotator": "alpaca_eval_cot_gpt4_turbo_fn",
        "preference": 1.0,
        "raw_completion": {
            "concise_explanation": "Model M names 7, a prime; model m names 9, which is not.",
            "ordered_models": [{"model": "M", "rank": 1}, {"model": "m", "rank": 2}],
        },
    }
    data = tmp_path / "annotations.json"
    data.write_text(json.dumps([record]), encoding="utf-8")
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, data)
    win = _window(qtbot, path, None, "alpaca-eval")
    qtbot.waitUntil(lambda: win.display.reasoning.shown_text() != "")  # after the first frame
    assert win.display.reasoning.shown_text() == (
        "Model M names 7, a prime; model m names 9, which is not."
    )
    assert win.display.pair_view.response_b.generator.text() == "model: claude-2.1"
    win.context.runner.shutdown()


def test_c_shows_the_rubrics_guidance_beside_the_pair(qtbot, tmp_path: Path) -> None:
    path = new_project(tmp_path)
    _pairs(path, tmp_path)
    win = _window(qtbot, path, None, "href-four")
    press(qtbot, win, Qt.Key.Key_C)
    dock = win.guidance.dock
    assert dock is not None and dock.isVisible()
    assert win.statusBar().currentMessage() == "the rubric's guidance beside the pair (C hides it)"
    text = win.guidance.text.toPlainText()
    assert text.startswith("HREF four dimensions (href-four)\n\nHREF-style judge")
    assert "precision:\n1. Precision: Which response follows the instruction more precisely" in (
        text
    )
    assert "overall:\nFinally, decide which response is Overall better" in text
    assert "Here are two examples" not in text  # the few-shot block is not guidance
    win.grab().save(str(tmp_path / "guidance.png"))
    win.choices.rubric_box.setCurrentText("just-eval")  # the rubric chosen: its guidance
    qtbot.waitUntil(lambda: "just-eval" in win.guidance.text.toPlainText())
    assert "helpfulness:\n- Helpfulness: Evaluate the response" in win.guidance.text.toPlainText()
    press(qtbot, win, Qt.Key.Key_C)
    assert not dock.isVisible()
    win.context.runner.shutdown()
