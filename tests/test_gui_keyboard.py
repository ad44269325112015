"""Keyboard without traps (issue 22, item 10): no field or list keeps the keys, Space
scrolls the responses, Ctrl+G goes to a pair, each switch says what it switched, the text's
size follows Ctrl+plus and Ctrl+minus, and F1 and README say how A, B, T and Down move.
Keys pressed in the real window; what the reviewer sees checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from desktop.adapters.store import open_project
from desktop.services.app_settings import load_settings
from desktop.services.importing import import_file
from desktop.services.session import ReviewSession
from desktop.ui import dialogs, font_size
from desktop.ui.main_window import MainWindow
from desktop.ui.shortcuts import HELP_NOTES, SHORTCUTS
from tests.gui_helpers import completions, human_rows, open_window, press
from tests.helpers import new_project, write_jsonl
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier
ALT = Qt.KeyboardModifier.AltModifier
README = Path(__file__).resolve().parent.parent / "README.md"


def focused(win: MainWindow) -> object:
    return QApplication.focusWidget()


def said(win: MainWindow) -> str:
    return win.statusBar().currentMessage()


# ---- the search box ------------------------------------------------------------------
def test_enter_in_the_search_box_shows_the_first_match_and_gives_the_keys_back(
    qtbot, window: MainWindow, project: Path
) -> None:
    press(qtbot, window, Qt.Key.Key_Slash)
    qtbot.keyClicks(window.pairs.search, "Question")
    press(qtbot, window, Qt.Key.Key_Return)
    assert focused(window) is window.pairs.table
    assert window.session.current.external_id == "p1"  # the first match
    press(qtbot, window, Qt.Key.Key_J)  # a key of the list again: the next match
    assert window.session.current.external_id == "p2"
    press(qtbot, window, Qt.Key.Key_A)
    assert human_rows(project) == [("p2", "precision", "A", "ada")]


def test_escape_leaves_the_search_box(qtbot, window: MainWindow) -> None:
    press(qtbot, window, Qt.Key.Key_F, CTRL)
    assert focused(window) is window.pairs.search
    press(qtbot, window, Qt.Key.Key_Escape)
    assert focused(window) is window.pairs.table
    press(qtbot, window, Qt.Key.Key_J)
    assert window.session.current.external_id == "p2"
    assert window.pairs.search.text() == ""  # nothing typed by J


# ---- the lists beside the search -----------------------------------------------------
@pytest.mark.parametrize("box", ["filter", "category", "generator"])
def test_a_filter_list_never_keeps_f_q_u_j(qtbot, window: MainWindow, box, monkeypatch) -> None:
    warned: list[str] = []
    monkeypatch.setattr(dialogs, "warn", lambda parent, message: warned.append(message))
    picker = getattr(window.pairs, box)
    picker.setFocus()  # as a click on it leaves it: its list closed, the box focused
    press(qtbot, window, Qt.Key.Key_J)
    assert window.session.current.external_id == "p2"
    press(qtbot, window, Qt.Key.Key_U)
    assert window.session.current.external_id == "p3"
    press(qtbot, window, Qt.Key.Key_F)
    assert said(window) == "no further pair of that kind"
    press(qtbot, window, Qt.Key.Key_Q)  # the queue, nothing judged yet: the pairs to review
    qtbot.waitUntil(lambda: window.queue._task is None, timeout=5000)
    assert warned == []
    assert picker.currentIndex() == 0  # none of them chose an entry of the box
    # Its list opened and an entry chosen (Alt+Down, Down, Enter), or left with Escape:
    # the keys are the pair list's again.
    for keys in ((Qt.Key.Key_Down, Qt.Key.Key_Return), (Qt.Key.Key_Escape,)):
        picker.setFocus()
        qtbot.keyClick(picker, Qt.Key.Key_Down, ALT)
        popup = picker.view()
        qtbot.waitUntil(popup.isVisible)
        for key in keys:
            qtbot.keyClick(popup, key)
        qtbot.waitUntil(lambda: focused(window) is window.pairs.table)
    assert picker.currentIndex() == min(1, picker.count() - 1)
    row = window.pairs.table.currentIndex().row()
    press(qtbot, window, Qt.Key.Key_J)  # a key of the list: on to its next row
    assert window.session.current.id == window.pairs.model.row_at(row + 1).id


# ---- scrolling ------------------------------------------------------------------------
@pytest.fixture(name="long_window")
def long_window_fixture(qtbot, tmp_path: Path, server: OpenAIServer):
    path = new_project(tmp_path)
    lines = "\n\n".join(f"line {i} of the answer" for i in range(300))
    rows = [{"id": "m1", "instruction": "q", "response_a": lines, "response_b": lines + " end",
             "reference": "r"}]  # fmt: skip
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    win = open_window(qtbot, path, server)
    yield win
    win.context.runner.shutdown()


def bars(win: MainWindow) -> tuple[int, int]:
    view = win.display.pair_view
    return (
        view.response_a.view.verticalScrollBar().value(),
        view.response_b.view.verticalScrollBar().value(),
    )


def test_space_and_shift_space_scroll_the_responses(qtbot, long_window: MainWindow) -> None:
    win = long_window
    view = win.display.pair_view
    pages = tuple(
        v.verticalScrollBar().pageStep() for v in (view.response_a.view, view.response_b.view)
    )
    press(qtbot, win, Qt.Key.Key_Space)
    assert bars(win) == pages  # A and B, a page each
    press(qtbot, win, Qt.Key.Key_Space)
    press(qtbot, win, Qt.Key.Key_Space, SHIFT)
    assert bars(win) == pages
    assert focused(win) is win.pairs.table  # the keys stay on the list


def test_page_down_and_up_scroll_the_response_clicked_in(qtbot, long_window: MainWindow):
    win = long_window
    a = win.display.pair_view.response_a.view
    qtbot.mouseClick(a.viewport(), Qt.MouseButton.LeftButton)
    assert focused(win) is a
    press(qtbot, win, Qt.Key.Key_PageDown)
    press(qtbot, win, Qt.Key.Key_PageDown)
    down = bars(win)
    assert down[0] > 0 and down[1] == 0  # that one only: not linked
    press(qtbot, win, Qt.Key.Key_PageUp)
    assert 0 < bars(win)[0] < down[0]
    press(qtbot, win, Qt.Key.Key_Space)  # Space too, in the response clicked in
    assert bars(win)[0] > 0 and bars(win)[1] == 0
    press(qtbot, win, Qt.Key.Key_J, CTRL)  # and the window's keys still act (Ctrl+J)
    qtbot.waitUntil(lambda: not win.judging.running, timeout=10_000)
    assert win.display.verdicts.shown("precision").judge == "A"


# ---- going to a pair -------------------------------------------------------------------
def test_ctrl_g_goes_to_a_pair_by_its_number_or_its_id(qtbot, window: MainWindow) -> None:
    press(qtbot, window, Qt.Key.Key_G, CTRL)
    assert focused(window) is window.pairs.goto and window.pairs.goto.isVisible()
    qtbot.keyClicks(window.pairs.goto, "4")
    press(qtbot, window, Qt.Key.Key_Return)
    assert window.session.current.external_id == "p4"
    assert focused(window) is window.pairs.table and not window.pairs.goto.isVisible()
    press(qtbot, window, Qt.Key.Key_G, CTRL)
    qtbot.keyClicks(window.pairs.goto, "p6")
    press(qtbot, window, Qt.Key.Key_Return)
    assert window.session.current.external_id == "p6"
    # A pair the search leaves out: shown in the whole list, and said so.
    press(qtbot, window, Qt.Key.Key_Slash)
    qtbot.keyClicks(window.pairs.search, "Probably 3")
    press(qtbot, window, Qt.Key.Key_Return)
    assert window.pairs.model.rowCount() == 1
    press(qtbot, window, Qt.Key.Key_G, CTRL)
    qtbot.keyClicks(window.pairs.goto, "#2")
    press(qtbot, window, Qt.Key.Key_Return)
    assert window.session.current.external_id == "p2"
    assert window.pairs.model.rowCount() == 6 and window.pairs.search.text() == ""
    assert said(window) == "pair #2: search and filters cleared to show it"


def test_ctrl_g_with_a_name_of_no_pair_says_so_in_one_line(qtbot, window: MainWindow) -> None:
    press(qtbot, window, Qt.Key.Key_G, CTRL)
    qtbot.keyClicks(window.pairs.goto, "zz9")
    press(qtbot, window, Qt.Key.Key_Return)
    assert said(window) == "go to pair: no pair is #zz9 or has the id 'zz9'"
    assert window.session.current.external_id == "p1"
    assert focused(window) is window.pairs.goto  # to type it again
    press(qtbot, window, Qt.Key.Key_Escape)
    assert focused(window) is window.pairs.table and not window.pairs.goto.isVisible()


# ---- what the keys say ---------------------------------------------------------------
def test_f1_and_readme_say_how_a_b_t_and_down_move(qtbot, window, monkeypatch) -> None:
    shown: list[str] = []
    monkeypatch.setattr(dialogs, "inform", lambda parent, title, text: shown.append(text))
    press(qtbot, window, Qt.Key.Key_F1)
    assert "A, B, T and X move to the next dimension; Down on the last one wraps" in shown[0]
    readme = " ".join(README.read_text(encoding="utf-8").split())
    assert " ".join(HELP_NOTES.split()) in readme  # README says what F1 says
    press(qtbot, window, Qt.Key.Key_T)  # precision: tie, and on to correctness
    assert window.display.verdicts.focused_dimension == "correctness"
    for _ in range(3):
        press(qtbot, window, Qt.Key.Key_Down)
    assert window.display.verdicts.focused_dimension == "precision"  # wrapped


def test_ctrl_b_l_r_and_d_say_what_they_switched(qtbot, window: MainWindow) -> None:
    lines = []
    for key, mod in ((Qt.Key.Key_B, CTRL), (Qt.Key.Key_L, None), (Qt.Key.Key_R, None),
                     (Qt.Key.Key_D, None)):  # fmt: skip
        for _ in range(2):  # on, then off
            press(qtbot, window, key, mod or Qt.KeyboardModifier.NoModifier)
            lines.append(said(window))
    assert lines == [
        "blind mode on: a judge verdict you have not seen stays hidden until you give yours,"
        " and the models' names with it (Ctrl+B shows them)",
        "blind mode off: the judge's verdicts are shown (Ctrl+B hides those you have not seen)",
        "A and B scroll together (L lets each scroll on its own)",
        "A and B scroll each on its own (L links them)",
        "raw text: the responses as written, in a plain monospace font (R shows markdown)",
        "markdown: the responses laid out (R shows them as raw text)",
        "differences between A and B marked: 1 in A, 1 in B (D hides them)",
        "differences between A and B: not marked (D marks them)",
    ]


def test_ctrl_w_is_a_switch_for_the_next_ctrl_j_and_says_so_everywhere(
    qtbot, window: MainWindow, server: OpenAIServer
) -> None:
    action = window.shortcuts["toggle_swap"]
    label = "Both orders on or off for the next Ctrl+J and Ctrl+Shift+J (position-bias check)"
    assert action.text() == label and action.isCheckable()
    assert f"| Ctrl+W | {label} | Judge |" in README.read_text(encoding="utf-8")
    press(qtbot, window, Qt.Key.Key_W, CTRL)
    assert action.isChecked()
    assert said(window) == (
        "both orders: on — the next Ctrl+J and Ctrl+Shift+J ask the judge with A and B"
        " swapped too (position-bias check)"
    )
    assert completions(server) == []  # a switch: nothing judged yet
    press(qtbot, window, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    assert len(completions(server)) == 2  # A/B, then B/A
    press(qtbot, window, Qt.Key.Key_W, CTRL)
    assert said(window) == "both orders: off — the next Ctrl+J and Ctrl+Shift+J ask in one order"
    press(qtbot, window, Qt.Key.Key_J)
    press(qtbot, window, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    assert len(completions(server)) == 3


# ---- the text's size -------------------------------------------------------------------
def test_ctrl_plus_minus_and_zero_size_the_text_and_the_size_is_kept(
    qtbot, project: Path, server: OpenAIServer
) -> None:
    system = font_size.system_size()
    win = open_window(qtbot, project, server)
    a = win.display.pair_view.response_a.view
    try:
        press(qtbot, win, Qt.Key.Key_Plus, CTRL)
        press(qtbot, win, Qt.Key.Key_Equal, CTRL)  # the same key, unshifted
        assert round(QGuiApplication.font().pointSizeF()) == system + 2
        assert load_settings().font_size == system + 2
        assert said(win) == f"text at {system + 2} pt (Ctrl+0: the system's {system} pt)"
        qtbot.waitUntil(lambda: round(a.document().defaultFont().pointSizeF()) == system + 2)
        assert round(win.pairs.table.font().pointSizeF()) == system + 2
        press(qtbot, win, Qt.Key.Key_R)  # raw text grows as much
        fixed = font_size.fixed_font().pointSizeF()
        qtbot.waitUntil(lambda: a.document().defaultFont().pointSizeF() == fixed)
        press(qtbot, win, Qt.Key.Key_R)
        press(qtbot, win, Qt.Key.Key_Minus, CTRL)
        assert round(QGuiApplication.font().pointSizeF()) == system + 1
        win.close()
        settings = load_settings()  # the next start, as `tiebreak` reads its settings
        assert settings.font_size == system + 1
        again = MainWindow(ReviewSession.open(project, settings), settings)
        qtbot.addWidget(again)
        again.show()
        again.activateWindow()
        qtbot.waitUntil(again.isActiveWindow)
        again.pairs.focus()
        assert round(QGuiApplication.font().pointSizeF()) == system + 1
        press(qtbot, again, Qt.Key.Key_0, CTRL)
        assert QGuiApplication.font() == font_size.system_font()
        assert load_settings().font_size == 0
        assert said(again) == f"text at the system's size, {system} pt"
        again.close()
    finally:
        font_size.apply(0)


def test_every_new_key_is_in_the_table(qtbot) -> None:
    names = {s.name for s in SHORTCUTS}
    assert {"scroll_down", "scroll_up", "go_to_pair", "font_larger", "font_smaller"} <= names
    assert "font_reset" in names
