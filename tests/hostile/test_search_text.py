"""Any text in the search box is a search, never an error: a NUL (pasted, as a copy of a
shown ␀ gives it) and a lone surrogate (half of a UTF-16 pair, which no stored text can
hold) are searched like any other character, in the window's search box and through the
list's search the window pages with, with no traceback and no "unexpected" message.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from desktop.adapters.store import open_project
from desktop.services.importing import import_file
from desktop.services.pair_list import list_rows
from desktop.ui.main_window import MainWindow
from tests.gui_helpers import open_window
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile

# Pieces with and without a NUL, of one, two, three and more characters: the scan's texts
# and the index's alike.
NUL_TEXTS = ["\x00", "a\x00", "\x00\x00\x00", "ab\x00cd", "plain\x00", "\x00" * 40 + "xyz"]
SURROGATE_TEXTS = ["\ud800", "x\udfff", "abc\ud83d", "\udc00\udc00\udc00 text"]


@pytest.fixture(name="project")
def project_fixture(tmp_path: Path) -> Path:
    rows = [
        {"id": "p1", "instruction": "plain question", "response_a": "abc", "response_b": "d"},
        {"id": "p2", "instruction": "q", "response_a": "a\x00b", "response_b": "x"},
    ]
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    return path


@pytest.mark.parametrize("text", NUL_TEXTS + SURROGATE_TEXTS)
def test_the_list_search_takes_any_text(project: Path, hostile: Hostile, text: str) -> None:
    with open_project(project, readonly=True) as store:
        for after in (0, 1):
            rows = list_rows(store, "pair-v2", None, search=text, after_id=after)
            assert all(row.id > after for row in rows)
    if "\x00" not in text:  # a lone surrogate is in no stored text
        assert rows == []
    hostile.held()


def _paste_search(qtbot, win: MainWindow, text: str) -> None:
    """The text pasted into the search box (Ctrl+V, as a copy from the pair gives it),
    then Enter."""
    QGuiApplication.clipboard().setText(text)
    qtbot.keyClick(win.pairs.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert win.pairs.search.text() == text
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_Return)


@pytest.mark.usefixtures("qapp")
def test_the_window_searches_a_pasted_nul(
    qtbot, project: Path, server, hostile: Hostile, capfd: pytest.CaptureFixture[str]
) -> None:
    win = open_window(qtbot, project, server)
    try:
        for text in NUL_TEXTS:
            _paste_search(qtbot, win, text)
            qtbot.wait(50)
            message = win.statusBar().currentMessage()
            assert "unexpected" not in message and "error" not in message.lower(), message
            assert win.pairs.model.rowCount() <= 2
        qtbot.keyClick(win.pairs.search, Qt.Key.Key_Escape)
        qtbot.keyClick(win.pairs.table, Qt.Key.Key_J)  # the window still answers
    finally:
        win.context.runner.shutdown()
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err
    hostile.held()
