"""The window's search and the list around it, driven by keys and clicks: what a search
finds is marked in the pair, the list filters by category and by model, and a click on a
column's title sorts the whole list by it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from desktop.adapters.store import open_project
from desktop.services.importing import import_file
from desktop.ui.main_window import MainWindow
from tests.gui_helpers import open_window
from tests.helpers import new_project, write_jsonl

MODELS = ("llama", "qwen", "mistral")


@pytest.fixture(name="shelf")
def shelf_fixture(tmp_path: Path) -> Path:
    """Seven pairs: food 1, 4, 7; travel 3, 6; no category 2, 5; llama wrote A or B of
    2, 3, 5, 6; "café" in pairs 3 and 5, "Café Anglais" in pair 5."""
    rows = [
        {
            "id": f"x{7 - i}",
            "instruction": f"Question {i}: plan a trip",
            "response_a": f"Answer {i} from A. "
            + ("Try the café on the corner." if i in (3, 5) else ""),
            "response_b": f"Answer {i} from B. "
            + ("Café Anglais, then the café again." if i == 5 else ""),
            "category": ["travel", "food", None][i % 3],
            "model_a": MODELS[i % 3],
            "model_b": MODELS[(i + 1) % 3],
        }
        for i in range(1, 8)
    ]
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    return path


@pytest.fixture(name="win")
def win_fixture(qtbot, shelf: Path, server):
    win = open_window(qtbot, shelf, server)
    yield win
    win.context.runner.shutdown()


def _listed(win: MainWindow) -> list[int]:
    model = win.pairs.model
    return [model.row_at(i).id for i in range(model.rowCount())]


def _marked(win: MainWindow, pane: str) -> list[str]:
    view = getattr(win.display.pair_view, pane).view
    return view.marked("search")


def _search(qtbot, win: MainWindow, text: str) -> None:
    QTest.keyClick(win.pairs.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_Backspace)
    for char in text:  # QTest types ASCII only: any other character is a key event with it
        if char.isascii():
            qtbot.keyClicks(win.pairs.search, char)
        else:
            QTest.sendKeyEvent(
                QTest.KeyAction.Click,
                win.pairs.search,
                Qt.Key.Key_unknown,
                char,
                Qt.KeyboardModifier.NoModifier,
            )
    assert win.pairs.search.text() == text
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_Return)


def test_a_search_marks_what_it_found_in_the_pair(qtbot, win: MainWindow, tmp_path: Path):
    _search(qtbot, win, "café")
    assert _listed(win) == [3, 5]
    assert win.display.pair_view.pair.id == 3
    assert _marked(win, "response_a") == ["café"]
    assert _marked(win, "response_b") == [] and _marked(win, "instruction") == []
    qtbot.keyClick(win.pairs.table, Qt.Key.Key_J)  # the next match: marked too
    assert win.display.pair_view.pair.id == 5
    assert _marked(win, "response_b") == ["Café", "café"]  # A to Z in either case
    _search(qtbot, win, "CAFÉ ANGLAIS")  # É is not é to the search (nor to SQLite's LIKE)
    assert _listed(win) == []
    _search(qtbot, win, "Café ANGLAIS")
    assert _listed(win) == [5] and _marked(win, "response_b") == ["Café Anglais"]
    _search(qtbot, win, "CAF")  # letters A to Z in either case
    assert _listed(win) == [3, 5] and _marked(win, "response_b") == []
    qtbot.keyClick(win.pairs.table, Qt.Key.Key_J)
    assert _marked(win, "response_b") == ["Caf", "caf"]
    qtbot.keyClick(win.pairs.table, Qt.Key.Key_R)  # raw text: marked as well
    assert _marked(win, "response_b") == ["Caf", "caf"]
    qtbot.keyClick(win.pairs.table, Qt.Key.Key_R)
    win.resize(1400, 800)
    shot = Path(os.environ.get("TIEBREAK_SHOTS", tmp_path)) / "search-marks.png"
    win.grab().save(str(shot))
    _search(qtbot, win, "")
    assert _listed(win) == list(range(1, 8)) and _marked(win, "response_b") == []


def test_one_or_two_characters_search_every_pair_and_say_so(qtbot, win: MainWindow) -> None:
    _search(qtbot, win, "x3")  # an external id; no three-character piece to look up
    assert _listed(win) == [4]
    assert "not in the search index" in win.statusBar().currentMessage()


def _choose(qtbot, box, steps: int) -> None:
    """Alt+Down opens the box's list (↑ and ↓ alone move between dimensions), the arrows
    move in it, Enter chooses."""
    box.setFocus()
    qtbot.keyClick(box, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    popup = box.view()
    qtbot.waitUntil(popup.isVisible)
    key = Qt.Key.Key_Down if steps > 0 else Qt.Key.Key_Up
    for _ in range(abs(steps)):
        qtbot.keyClick(popup, key)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not popup.isVisible())


def test_the_list_filters_by_category_and_by_model(qtbot, win: MainWindow) -> None:
    category, generator = win.pairs.category, win.pairs.generator
    assert [category.itemText(i) for i in range(category.count())] == [
        "all categories",
        "(no category)",
        "food",
        "travel",
    ]
    _choose(qtbot, category, 1)
    assert category.currentText() == "(no category)" and _listed(win) == [2, 5]
    _choose(qtbot, category, 1)
    assert category.currentText() == "food" and _listed(win) == [1, 4, 7]
    _choose(qtbot, category, 1)
    assert category.currentText() == "travel" and _listed(win) == [3, 6]
    models = [generator.itemText(i) for i in range(generator.count())]
    assert models == ["all models", "llama", "mistral", "qwen"]
    _choose(qtbot, generator, 1)  # llama (wrote A or B of both), in travel
    assert _listed(win) == [3, 6]
    _search(qtbot, win, "café")
    assert _listed(win) == [3]
    _choose(qtbot, category, -3)  # all categories: llama, café
    assert _listed(win) == [3, 5]
    _choose(qtbot, generator, 1)  # mistral, café
    assert _listed(win) == [5]


def _click_title(qtbot, win: MainWindow, column: int) -> None:
    header = win.pairs.table.horizontalHeader()
    x = header.sectionViewportPosition(column) + header.sectionSize(column) // 2
    QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, 5))


def test_a_click_on_a_title_sorts_the_whole_list(qtbot, win: MainWindow) -> None:
    _click_title(qtbot, win, 2)  # category: (none), food, travel; then by #
    assert _listed(win) == [2, 5, 1, 4, 7, 3, 6]
    _click_title(qtbot, win, 2)  # again: the other way
    assert _listed(win) == [6, 3, 7, 4, 1, 5, 2]
    _click_title(qtbot, win, 1)  # id: x0 … x6
    assert _listed(win) == [7, 6, 5, 4, 3, 2, 1]
    _click_title(qtbot, win, 3)  # status: not a sort, and said so
    assert _listed(win) == [7, 6, 5, 4, 3, 2, 1]
    assert "not sorted" in win.statusBar().currentMessage()
    _search(qtbot, win, "café")  # a search keeps the order chosen
    assert _listed(win) == [5, 3]
    _click_title(qtbot, win, 0)
    assert _listed(win) == [3, 5]
