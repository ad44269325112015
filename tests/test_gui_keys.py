"""Every key in README's table of the window's keys does what the table says, pressed as a
reviewer presses it (tests/test_gui.py drives the main path: J, K, U, Q, the verdict keys,
Enter, undo, Ctrl+J, Ctrl+Shift+J, Ctrl+B, S, Ctrl+E; tests/test_judge_picker.py G)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase, QFontInfo
from PySide6.QtWidgets import QApplication

from desktop.adapters.store import open_project
from desktop.services.app_settings import load_settings
from desktop.services.importing import import_file
from desktop.ui import dialogs
from desktop.ui.main_window import MainWindow
from desktop.ui.shortcuts import SHORTCUTS
from tests.gui_helpers import (
    completions,
    drawn_fonts,
    human_rows,
    judge_all,
    my_verdict,
    open_window,
    press,
)
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def test_f_goes_to_the_next_flagged_pair(qtbot, window: MainWindow, server: OpenAIServer):
    def answer(request: dict) -> str:
        text = json.dumps(request["messages"])
        return "I cannot decide" if "Question 4:" in text else "A, B, tie, A"

    server.responder = answer
    judge_all(qtbot, window)
    press(qtbot, window, Qt.Key.Key_F)  # p4: the judge's answer could not be read
    assert window.session.current.external_id == "p4"
    press(qtbot, window, Qt.Key.Key_F)
    assert window.session.current.external_id == "p4"
    assert window.statusBar().currentMessage() == "no further pair of that kind"


def test_1_2_3_give_a_b_and_tie(qtbot, window: MainWindow, project: Path) -> None:
    for key in (Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3):
        press(qtbot, window, key)
    assert human_rows(project) == [
        ("p1", "precision", "A", "ada"),
        ("p1", "correctness", "B", "ada"),
        ("p1", "format", "tie", "ada"),
    ]
    press(qtbot, window, Qt.Key.Key_Z, CTRL)
    assert my_verdict(window.session, "format") is None
    press(qtbot, window, Qt.Key.Key_Z, CTRL | SHIFT)  # redo
    assert my_verdict(window.session, "format").value == "tie"
    press(qtbot, window, Qt.Key.Key_Up)  # the focus went on to overall: back to format
    press(qtbot, window, Qt.Key.Key_0)  # withdraw, as Backspace does
    assert my_verdict(window.session, "format") is None


def test_n_writes_a_note_on_the_pair(qtbot, window: MainWindow) -> None:
    press(qtbot, window, Qt.Key.Key_N)
    assert QApplication.focusWidget() is window.display.verdicts.note
    qtbot.keyClicks(window.display.verdicts.note, "B misreads the question")
    qtbot.keyClick(window.display.verdicts.note, Qt.Key.Key_Return)
    assert window.statusBar().currentMessage() == "note saved"
    assert QApplication.focusWidget() is window.pairs.table  # the keys act on pairs again
    assert window.session.verdict_views().notes == {"precision": "B misreads the question"}


def test_a_note_longer_than_the_field_is_shown_in_part_and_never_saved_cut(
    qtbot, project: Path, server: OpenAIServer
) -> None:
    """A note written on the command line can be longer than the field holds: Enter in the
    field must not save the part it shows in place of the whole."""
    note = "The reason, at length. " * 2_000  # 46,000 characters
    done = tiebreak("override", project, "p1", "precision", "A", "--rubric", "href-four",
                    "--reviewer", "ada", "--note", note)  # fmt: skip
    assert done.returncode == 0, done.stderr
    window = open_window(qtbot, project, server)
    field = window.display.verdicts.note
    press(qtbot, window, Qt.Key.Key_N)
    qtbot.keyClick(field, Qt.Key.Key_Return)
    assert window.session.verdict_views().notes == {"precision": note}
    assert note.startswith(field.text()) and field.isReadOnly()  # shown in part, kept whole
    assert "46,000 characters" in field.toolTip()
    window.context.runner.shutdown()


def test_ctrl_period_cancels_the_running_job(qtbot, window: MainWindow, server: OpenAIServer):
    server.delay = 0.3
    press(qtbot, window, Qt.Key.Key_J, CTRL | SHIFT)
    assert window.judging.running and window.judging.cancel_button.isVisible()
    press(qtbot, window, Qt.Key.Key_Period, CTRL)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    assert window.statusBar().currentMessage().startswith("cancelled; judged ")
    assert len(completions(server)) < 6
    assert not window.judging.cancel_button.isVisible()


def test_ctrl_w_judges_both_orders(qtbot, window: MainWindow, server: OpenAIServer) -> None:
    press(qtbot, window, Qt.Key.Key_W, CTRL)
    assert window.statusBar().currentMessage().startswith("both orders: on — the next Ctrl+J")
    press(qtbot, window, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    assert len(completions(server)) == 2  # A/B, then B/A
    assert window.display.verdicts.shown("precision").swap in ("ok", "flip")


@pytest.fixture
def long_pair(tmp_path: Path, server: OpenAIServer):
    """One pair with markdown and responses too long to show at once."""
    path = new_project(tmp_path)
    lines = "\n\n".join(f"**line {i}** of the answer" for i in range(200))
    rows = [{"id": "m1", "instruction": "q", "response_a": lines, "response_b": lines}]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    return path


def test_r_shows_raw_text_and_l_scrolls_a_and_b_together(qtbot, long_pair: Path, server):
    win = open_window(qtbot, long_pair, server)
    a = win.display.pair_view.response_a.view
    b = win.display.pair_view.response_b.view
    assert a.toPlainText().startswith("line 0 of the answer")
    press(qtbot, win, Qt.Key.Key_R)
    assert a.toPlainText().startswith("**line 0** of the answer")
    press(qtbot, win, Qt.Key.Key_R)
    assert a.toPlainText().startswith("line 0 of the answer")

    assert not load_settings().link_scrolling
    a.verticalScrollBar().setValue(a.verticalScrollBar().maximum() // 2)
    assert b.verticalScrollBar().value() == 0  # not linked: B stays
    press(qtbot, win, Qt.Key.Key_L)
    assert load_settings().link_scrolling  # kept for the next start
    a.verticalScrollBar().setValue(a.verticalScrollBar().maximum())
    assert b.verticalScrollBar().value() == b.verticalScrollBar().maximum() > 0
    win.context.runner.shutdown()


@pytest.fixture
def heading_pairs(tmp_path: Path) -> Path:
    """A pair whose texts open with markdown headings, then one without."""
    path = new_project(tmp_path)
    rows = [
        {"id": "h1", "instruction": "# Question\n\nWhich one?",
         "response_a": "# Big heading\n\nSome **bold** text", "response_b": "## Smaller\n\ntext"},
        {"id": "h2", "instruction": "plain question", "response_a": "plain answer",
         "response_b": "another plain answer"},
    ]  # fmt: skip
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    return path


def test_r_shows_raw_text_in_the_plain_monospace_font_after_a_heading(
    qtbot, heading_pairs: Path, server: OpenAIServer
) -> None:
    win = open_window(qtbot, heading_pairs, server)
    pair = win.display.pair_view
    views = [pair.instruction.view, pair.response_a.view, pair.response_b.view]
    mono = QFontInfo(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
    plain_mono = {(mono.family(), int(QFont.Weight.Normal), float(mono.pixelSize()))}
    assert all(max(w for _, w, _ in drawn_fonts(v)) == QFont.Weight.Bold for v in views)
    press(qtbot, win, Qt.Key.Key_R)  # raw: the heading's marks, in the plain font
    assert views[1].toPlainText().startswith("# Big heading")
    assert [drawn_fonts(v) for v in views] == [plain_mono] * 3
    press(qtbot, win, Qt.Key.Key_J)  # still raw, on the next pair
    assert views[1].toPlainText() == "plain answer"
    assert [drawn_fonts(v) for v in views] == [plain_mono] * 3
    press(qtbot, win, Qt.Key.Key_R)  # markdown again, then raw on the pair with headings
    press(qtbot, win, Qt.Key.Key_K)
    press(qtbot, win, Qt.Key.Key_R)
    assert [drawn_fonts(v) for v in views] == [plain_mono] * 3
    win.context.runner.shutdown()


def test_a_and_b_stay_at_equal_width_when_one_says_it_is_shown_in_parts(
    qtbot, tmp_path: Path, server: OpenAIServer
) -> None:
    path = new_project(tmp_path)
    long = "word " * 20_000  # plain text, in parts: the line above A says so
    rows = [{"id": "w1", "instruction": "q", "response_a": long, "response_b": "short"}]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    win = open_window(qtbot, path, server)
    pair = win.display.pair_view
    assert pair.response_a.notice.isVisible() and not pair.response_b.notice.isVisible()
    assert abs(pair.response_a.width() - pair.response_b.width()) <= 2
    win.context.runner.shutdown()


@pytest.mark.parametrize(("key", "mod"), [(Qt.Key.Key_F, CTRL), (Qt.Key.Key_Slash, None)])
def test_ctrl_f_and_slash_go_to_the_search_box(qtbot, window: MainWindow, key, mod) -> None:
    press(qtbot, window, key, mod or Qt.KeyboardModifier.NoModifier)
    assert QApplication.focusWidget() is window.pairs.search


def test_ctrl_i_imports_the_file_chosen(qtbot, window: MainWindow, tmp_path, monkeypatch):
    more = write_jsonl(
        tmp_path / "more.jsonl",
        [{"id": "n1", "instruction": "New question", "response_a": "x", "response_b": "y"}],
    )
    monkeypatch.setattr(dialogs, "open_file", lambda parent, title, filters: more)
    press(qtbot, window, Qt.Key.Key_I, CTRL)
    qtbot.waitUntil(lambda: window.pairs.model.rowCount() == 7, timeout=10_000)
    assert window.statusBar().currentMessage() == "imported 1 pairs (0 already there)"
    qtbot.waitUntil(lambda: " · 7 pairs · " in window.counts.text(), timeout=5000)


@pytest.mark.parametrize(("key", "mod"), [(Qt.Key.Key_F1, None), (Qt.Key.Key_Question, None)])
def test_f1_and_question_mark_list_every_shortcut(qtbot, window, monkeypatch, key, mod) -> None:
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(dialogs, "inform", lambda parent, title, text: shown.append((title, text)))
    press(qtbot, window, key, mod or Qt.KeyboardModifier.NoModifier)
    [(title, text)] = shown
    assert title == "Keyboard shortcuts"
    assert all(s.description in text for s in SHORTCUTS)
    assert "<b>Ctrl+Shift+Z</b> or <b>Ctrl+Y</b>" in text


def test_ctrl_o_opens_another_project_and_ctrl_q_quits(qtbot, window, tmp_path, monkeypatch):
    other = new_project(tmp_path, "other.tiebreak")
    monkeypatch.setattr(dialogs, "open_file", lambda parent, title, filters: other)
    press(qtbot, window, Qt.Key.Key_O, CTRL)
    assert window.windowTitle() == "other.tiebreak — Tiebreak"
    assert window.pairs.model.rowCount() == 0
    assert load_settings().recent[0] == str(other)
    press(qtbot, window, Qt.Key.Key_Q, CTRL)
    assert not window.isVisible()


def test_q_from_a_search_stays_on_the_queued_pair(qtbot, window: MainWindow, server):
    """Q clears the search to show the queued pair in the whole list; the search box's
    pending query must not then send the list back to its first row."""

    def answer(request: dict) -> str:
        text = json.dumps(request["messages"])
        return "I cannot decide" if "Question 4:" in text else "A, B, tie, A"

    server.responder = answer
    judge_all(qtbot, window)
    qtbot.keyClicks(window.pairs.search, "Question")
    qtbot.waitUntil(lambda: not window.pairs.search_timer.isActive())  # the search ran
    window.pairs.focus()
    press(qtbot, window, Qt.Key.Key_Q)
    qtbot.waitUntil(lambda: window.session.current.external_id == "p4", timeout=10_000)
    assert window.pairs.search.text() == ""
    qtbot.wait(400)  # longer than the search box waits for typing to pause
    assert window.session.current.external_id == "p4"


def test_enter_in_the_search_box_searches_and_accepts_nothing(
    qtbot, window: MainWindow, project: Path
) -> None:
    press(qtbot, window, Qt.Key.Key_J, CTRL)  # p1 judged: Enter on the list would accept it
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    press(qtbot, window, Qt.Key.Key_Slash)
    qtbot.keyClicks(window.pairs.search, "Probably 9")
    qtbot.keyClick(window.pairs.search, Qt.Key.Key_Return)  # at once, not after the pause
    assert human_rows(project) == []
    assert window.pairs.model.rowCount() == 1
    assert window.session.current.external_id == "p4"
