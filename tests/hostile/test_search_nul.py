"""The search finds what the window shows, a NUL and the text after it included. SQLite's
``LIKE`` and FTS5's trigram tokenizer read text as C strings, stopping at its first NUL:
the text after one was never found, and a search for a NUL (read as an empty pattern)
matched every pair. Checked in the window's search box (the list and the marks) and
through the list's search the window pages with: typed or pasted, one or two characters
(a scan), three or more (the index), a text that spans a NUL, a search text too long for
``LIKE``'s pattern (over 50,000 bytes), and a project written before this release.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from sqlite_utils import Database

from desktop.adapters.store import open_project
from desktop.adapters.store.migrations import migrations
from desktop.adapters.store.schema import APPLICATION_ID
from desktop.services.importing import import_file
from desktop.services.pair_list import list_rows
from desktop.ui.main_window import MainWindow
from tests.gui_helpers import open_window
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile

LONG = "東京" * 10_000  # 20,000 characters, 60,000 bytes: more than LIKE's pattern takes
PAIRS = [
    {"id": "p1", "instruction": "q1", "response_a": "before\x00after words", "response_b": "b"},
    {"id": "p2", "instruction": "plain question", "response_a": "nothing", "response_b": "b"},
    {"id": "p3", "instruction": "q3", "response_a": "a", "response_b": "x\x00\x00y"},
    {"id": "p4", "instruction": "AFTER WORDS", "response_a": "a", "response_b": "b"},
    {"id": "p5", "instruction": "q5", "response_a": "\x00" + LONG, "response_b": LONG},
]
# What each text finds (pair ids), as the window shows the pairs: ASCII letters in either
# case, every other character, a NUL too, as written.
FOUND = {
    "after": [1, 4],
    "AFTER words": [1, 4],
    "ter wo": [1, 4],
    "af": [1, 4],
    "\x00": [1, 3, 5],
    "\x00\x00": [3],
    "e\x00a": [1],
    "x\x00\x00y": [3],
    "\x00\x00\x00": [],
    "\x00東京": [5],
    "q": [1, 2, 3, 5],
    LONG: [5],
    LONG + "!": [],
}


@pytest.fixture(name="project")
def project_fixture(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", PAIRS))
    return path


def _found(project: Path, text: str) -> list[int]:
    with open_project(project, readonly=True) as store:
        return [r.id for r in list_rows(store, "pair-v2", None, search=text)]


@pytest.mark.parametrize("text", sorted(FOUND), ids=lambda t: repr(t[:12]))
def test_the_list_search_finds_text_after_a_nul(project: Path, hostile: Hostile, text: str) -> None:
    assert _found(project, text) == FOUND[text]
    hostile.held()


def test_a_project_written_before_this_release_is_searched_alike(
    tmp_path: Path, hostile: Hostile
) -> None:
    """Its pairs were indexed as C strings: the schema step that comes with the fix finds
    the pairs that hold a NUL, once."""
    path = tmp_path / "older.tiebreak"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    migrations.apply(Database(conn), stop_before="m010_pairs_with_nul")
    for n, pair in enumerate(PAIRS, start=1):
        conn.execute(
            "INSERT INTO pairs (pair_key, external_id, instruction, response_a, response_b)"
            " VALUES (?, ?, ?, ?, ?)",
            [f"id:p{n}", pair["id"], pair["instruction"], pair["response_a"], pair["response_b"]],
        )
    conn.close()
    with open_project(path):  # brought up to date
        pass
    for text in ("after", "\x00", "e\x00a", "ter wo"):
        assert _found(path, text) == FOUND[text], text
    hostile.held()


def _paste_search(qtbot, win: MainWindow, text: str) -> None:
    QGuiApplication.clipboard().setText(text)
    qtbot.keyClick(win.pairs.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_V, Qt.KeyboardModifier.ControlModifier)
    assert win.pairs.search.text() == text
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_Return)


def _listed(win: MainWindow) -> list[int]:
    model = win.pairs.model
    return [model.row_at(i).id for i in range(model.rowCount())]


@pytest.mark.usefixtures("qapp")
def test_the_window_finds_and_marks_what_it_shows(qtbot, project: Path, server) -> None:
    win = open_window(qtbot, project, server)
    try:
        for text in ("after", "\x00", "e\x00a", "\x00\x00", "af", LONG):
            _paste_search(qtbot, win, text)
            qtbot.waitUntil(lambda text=text: _listed(win) == FOUND[text])
        _paste_search(qtbot, win, "after")
        qtbot.waitUntil(lambda: win.display.pair_view.pair.id == 1)
        view = win.display.pair_view.response_a.view
        qtbot.waitUntil(lambda: view.marked("search") == ["after"])
        _paste_search(qtbot, win, "e\x00a")  # the NUL marked as shown: � rendered, ␀ raw
        qtbot.waitUntil(lambda: view.marked("search") == ["e\ufffda"])
        qtbot.keyClick(win.pairs.table, Qt.Key.Key_R)
        qtbot.waitUntil(lambda: view.marked("search") == ["e\u2400a"])
        qtbot.keyClick(win.pairs.table, Qt.Key.Key_R)
    finally:
        win.context.runner.shutdown()
