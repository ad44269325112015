"""D marks the words that differ between Response A and B, in rendered markdown and in
raw text, and the status bar says what it switched; M hides the models that wrote them
(as blind mode does). Driven by real keys in Ada's window."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.adapters.store import open_project
from desktop.services.app_settings import load_settings
from desktop.services.importing import import_file
from desktop.ui.main_window import MainWindow
from desktop.ui.response_view import ResponseView
from tests.gui_helpers import open_window, press
from tests.helpers import new_project, write_jsonl
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
CTRL = Qt.KeyboardModifier.ControlModifier

PAIRS = [
    {
        "id": "bill",
        "instruction": "Add up the bill.",
        "response_a": "The **total** is €48.55, paid by card.\n\n- bread 😀 and milk\n- tea",
        "response_b": "The **total** is €48.45, paid by card.\n\n- bread 😀 and honey\n- tea",
        "model_a": "gpt-4-turbo",
        "model_b": "claude-2.1",
    },
    {
        "id": "same",
        "instruction": "Say hello.",
        "response_a": "Hello there!",
        "response_b": "Hello there!",
        "model_a": "gpt-4-turbo",
        "model_b": "claude-2.1",
    },
]


@pytest.fixture(name="win")
def win_fixture(qtbot, tmp_path: Path, server: OpenAIServer):
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", PAIRS))
    win = open_window(qtbot, path, server)
    yield win
    win.context.runner.shutdown()


def marks(view: ResponseView) -> list[str]:
    """The text under each mark on the view, in order."""
    return view.marked()


def amber_pixels(view: ResponseView) -> int:
    image = view.viewport().grab().toImage()
    return sum(
        1
        for y in range(0, image.height(), 2)
        for x in range(0, image.width(), 2)
        if image.pixelColor(x, y).getRgb()[:3] == (255, 205, 80)
    )


def test_d_marks_the_words_that_differ_in_markdown_and_raw_text(
    qtbot, win: MainWindow, tmp_path: Path
) -> None:
    a, b = win.display.pair_view.response_a.view, win.display.pair_view.response_b.view
    assert marks(a) == [] and amber_pixels(a) == 0
    press(qtbot, win, Qt.Key.Key_D)
    assert marks(a) == ["48.55", "milk"]
    assert marks(b) == ["48.45", "honey"]
    assert amber_pixels(a) > 50 and amber_pixels(b) > 50
    assert win.statusBar().currentMessage() == (
        "differences between A and B marked: 2 in A, 2 in B (D hides them)"
    )
    win.grab().save(str(tmp_path / "differences.png"))
    press(qtbot, win, Qt.Key.Key_R)  # raw text: the same words, among the markup shown
    assert "**total**" in a.toPlainText()
    assert marks(a) == ["48.55", "milk"] and marks(b) == ["48.45", "honey"]
    press(qtbot, win, Qt.Key.Key_R)
    assert a.toPlainText().startswith("The total is")
    press(qtbot, win, Qt.Key.Key_J)  # the next pair: the same text on both sides
    assert marks(a) == [] and marks(b) == []
    press(qtbot, win, Qt.Key.Key_K)
    assert marks(a) == ["48.55", "milk"]
    assert load_settings().differences  # D stays on in the next window
    press(qtbot, win, Qt.Key.Key_D)
    assert marks(a) == [] and marks(b) == [] and amber_pixels(a) == 0
    assert win.statusBar().currentMessage() == (
        "differences between A and B: not marked (D marks them)"
    )


def test_the_marks_leave_the_text_and_a_copy_of_it_as_they_were(qtbot, win: MainWindow):
    """The marks are formats over the text: the text and a copy are unchanged, and D off
    gives every word its own format back (bold stays bold, the rest plain)."""
    a = win.display.pair_view.response_a.view
    before = (a.toPlainText(), a.toHtml())
    press(qtbot, win, Qt.Key.Key_D)
    assert a.toPlainText() == before[0] and a.toHtml() != before[1]
    a.selectAll()
    assert a.createMimeDataFromSelection().text().startswith("The total is €48.55, paid")
    press(qtbot, win, Qt.Key.Key_D)
    assert (a.toPlainText(), a.toHtml()) == before
    press(qtbot, win, Qt.Key.Key_R)  # raw text, one format throughout: the same
    raw = a.toHtml()
    press(qtbot, win, Qt.Key.Key_D)
    press(qtbot, win, Qt.Key.Key_D)
    assert a.toHtml() == raw


def test_m_hides_the_models_that_wrote_a_and_b_and_blind_mode_does_too(
    qtbot, win: MainWindow, tmp_path: Path
) -> None:
    view = win.display.pair_view
    label_a, label_b = view.response_a.generator, view.response_b.generator
    assert label_a.isVisible() and label_a.text() == "model: gpt-4-turbo"
    assert label_b.text() == "model: claude-2.1"
    # the label sits above the response
    assert (
        label_a.mapTo(view, label_a.rect().topLeft()).y()
        < view.response_a.view.mapTo(view, view.response_a.view.rect().topLeft()).y()
    )
    press(qtbot, win, Qt.Key.Key_M)
    assert label_a.text() == "model: hidden (M shows it)"
    assert "claude" not in label_b.text()
    assert win.statusBar().currentMessage() == "model names of A and B hidden (M shows them)"
    press(qtbot, win, Qt.Key.Key_J)  # hidden on the next pair too
    assert label_b.text() == "model: hidden (M shows it)"
    assert load_settings().hide_generators
    win.grab().save(str(tmp_path / "generators-hidden.png"))
    press(qtbot, win, Qt.Key.Key_M)
    assert label_b.text() == "model: claude-2.1"
    press(qtbot, win, Qt.Key.Key_B, CTRL)  # blind mode hides them too
    assert label_a.text() == "model: hidden (blind mode)"
    press(qtbot, win, Qt.Key.Key_M)
    press(qtbot, win, Qt.Key.Key_M)
    assert win.statusBar().currentMessage() == (
        "model names of A and B stay hidden in blind mode (Ctrl+B)"
    )
    assert label_a.text() == "model: hidden (blind mode)"
    press(qtbot, win, Qt.Key.Key_B, CTRL)
    assert label_a.text() == "model: gpt-4-turbo"


def test_search_marks_and_difference_marks_show_together(qtbot, win: MainWindow) -> None:
    """A search while D is on keeps the differences marked, and D off keeps the search's;
    the search's mark lands on its word after an emoji (two places to Qt, one to Python)."""
    a = win.display.pair_view.response_a.view
    press(qtbot, win, Qt.Key.Key_D)
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(win.pairs.search, "milk")
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: sorted(marks(a)) == ["48.55", "milk", "milk"], timeout=3000)
    win.pairs.focus()  # keys back to the list
    press(qtbot, win, Qt.Key.Key_D)
    qtbot.waitUntil(lambda: marks(a) == ["milk"], timeout=3000)
