"""What the window's tests share: a project of six pairs, the test server answering for
the judge, Ada's window on them, and the keys she presses. The fixtures reach every test by
name (``pytest_plugins`` in conftest.py); the helpers are imported."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import TypeVar

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QTextEdit, QWidget

from desktop.adapters.profiles_file import save_profile
from desktop.adapters.store import open_project
from desktop.adapters.store.pair_reader import PairQuery, read_pair
from desktop.domain.pair_view import PairView
from desktop.domain.profiles import ModelProfile
from desktop.domain.verdicts import Verdict
from desktop.services.app_settings import AppSettings
from desktop.services.importing import import_file
from desktop.services.session import ReviewSession
from desktop.ui.layout_queue import layout_queue
from desktop.ui.main_window import MainWindow
from tests.helpers import new_project, write_jsonl
from tests.openai_server import OpenAIServer

T = TypeVar("T")


def _pairs(n: int) -> list[dict[str, str]]:
    return [
        {
            "id": f"p{i}",
            "instruction": f"Question {i}: what is {i} + {i}?",
            "response_a": f"It is {2 * i}.",
            "response_b": f"Probably {2 * i + 1}.",
            "reference": f"{2 * i}",
            "category": "math" if i % 2 else "facts",
        }
        for i in range(1, n + 1)
    ]


@pytest.fixture(name="project")
def project_fixture(tmp_path: Path) -> Path:
    """Six pairs (math and facts) with references, imported into a new project."""
    path = new_project(tmp_path)
    data = write_jsonl(tmp_path / "pairs.jsonl", _pairs(6))
    with open_project(path) as store:
        import_file(store, data)
    return path


@pytest.fixture(name="server")
def server_fixture():
    """The test server, answering every judge request with "A, B, tie, A"."""
    with OpenAIServer(answer="A, B, tie, A") as srv:
        yield srv


def open_window(qtbot, project: Path, server: OpenAIServer) -> MainWindow:
    """Ada's window on the project, judged by the test server, keys on the pair list, its
    first pair laid out (a long text is laid out in a later turn than the one that shows
    it: desktop/ui/layout_queue.py)."""
    save_profile(
        ModelProfile(name="test", model="test-model", base_url=server.base_url, needs_key=False)
    )
    settings = AppSettings(reviewer="ada", profile="test")
    session = ReviewSession.open(project, settings)
    session.choose_rubric("href-four")
    win = MainWindow(session, settings)
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    qtbot.waitExposed(win)
    qtbot.waitUntil(win.isActiveWindow)  # window shortcuts act only on the active window
    qtbot.waitUntil(layout_queue().idle)
    win.pairs.focus()
    return win


@pytest.fixture(name="window")
def window_fixture(qtbot, project: Path, server: OpenAIServer):
    """Ada's window, shut down with its background work after the test."""
    win = open_window(qtbot, project, server)
    yield win
    win.context.runner.shutdown()


def press(qtbot, win: MainWindow, key: Qt.Key, mod=Qt.KeyboardModifier.NoModifier) -> None:
    """The key, and what it shows laid out (a long text's layout takes later turns of the
    event loop: desktop/ui/layout_queue.py)."""
    focus = QApplication.focusWidget() or win.pairs.table
    qtbot.keyClick(focus, key, mod)
    qtbot.waitUntil(layout_queue().idle)


def my_verdict(session: ReviewSession, dimension: str) -> Verdict | None:
    """The reviewer's current verdict on the pair shown, as the project holds it after a
    key: another reviewer's is never taken for it."""
    if session.current is None or session.current.id is None:
        return None
    query = PairQuery(session.rubric_name, columns=("id",))
    record = read_pair(session.store, query, session.current.id)
    if record is None:
        return None
    return PairView(record, reviewer=session.reviewer()).my_verdicts().get(dimension)


def judged_message_box(
    qtbot, project: Path, profile: ModelProfile, look: Callable[[QMessageBox], T]
) -> T:
    """Ada's window on ``project``, asking ``profile``: Ctrl+J's job on the first pair, and
    what ``look`` saw of the message box it ended with (then closed)."""
    seen: list[T] = []

    def look_at_the_box() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(50, look_at_the_box)
            return
        seen.append(look(box))
        box.close()

    save_profile(profile)
    settings = AppSettings(reviewer="ada", profile=profile.name)
    window = MainWindow(ReviewSession.open(project, settings), settings)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    QTimer.singleShot(50, look_at_the_box)
    window.judging.judge_pair()
    qtbot.waitUntil(lambda: bool(seen) and not window.judging.running, timeout=30_000)
    window.context.runner.shutdown()
    return seen[0]


def judge_all(qtbot, win: MainWindow) -> None:
    """Ctrl+Shift+J, then wait for the job to end."""
    press(
        qtbot,
        win,
        Qt.Key.Key_J,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    qtbot.waitUntil(lambda: not win.judging.running, timeout=20_000)


def drawn_fonts(view: QTextEdit, lines: int | None = None) -> set[tuple[str, int, float]]:
    """The fonts a text view draws its characters in (family, weight, pixel size), as laid
    out for the screen: on all its lines, or its first ``lines`` (the glyph runs of every
    line of 16,000 characters of mixed scripts leave Qt work that held the window's next
    step 60 to 90 ms more, so a test that times that step reads a few lines only)."""
    document = view.document()
    document.documentLayout().documentSize()  # laid out, all of it
    fonts = set()
    left = -1 if lines is None else lines
    block = document.begin()
    while block.isValid() and left:
        layout = block.layout()
        for line in range(layout.lineCount()):
            for run in layout.lineAt(line).glyphRuns():
                font = run.rawFont()
                fonts.add((font.familyName(), font.weight(), font.pixelSize()))
            left -= 1
            if not left:
                break
        block = block.next()
    return fonts


def completions(server: OpenAIServer) -> list:
    return [r for r in server.requests if r.path.endswith("/chat/completions")]


def human_rows(path: Path) -> list[tuple]:
    # Closed when read (sqlite3's own context manager only commits): an open handle would
    # be another program holding the file, which the hostile tests' moves look for.
    with closing(sqlite3.connect(path)) as conn:
        return conn.execute(
            "SELECT p.external_id, h.dimension, h.verdict, h.reviewer FROM human_verdicts h"
            " JOIN pairs p ON p.id = h.pair_id ORDER BY h.id"
        ).fetchall()


def save_render(widget: QWidget, name: str) -> None:
    """A render of ``widget`` to look at, in $TIEBREAK_TEST_RENDERS where that is set (a
    test writes nothing outside its own folders otherwise)."""
    folder = os.environ.get("TIEBREAK_TEST_RENDERS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        widget.grab().save(str(Path(folder) / name))
