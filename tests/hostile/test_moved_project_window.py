"""The window holding a project whose file is moved, deleted or replaced (issue 24, item
1): the window notices on its own, even while the reviewer does nothing, and says so once
in one line; it lets go of the file, so a colleague's file put in its place is left as it
was; a verdict given afterwards is refused and stays on screen, marked as not saved. And a
judging command writing the same project at the same time raises no false alarm."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.adapters.store import open_project
from desktop.services.importing import import_file
from desktop.ui import dialogs
from desktop.ui.main_window import MainWindow
from desktop.ui.verdict_panel import NOT_SAVED
from tests.gui_helpers import human_rows, open_window, press
from tests.held_projects import REFUSED, beside, colleague_project, put_over
from tests.helpers import write_jsonl
from tests.hostile.conftest import Hostile, fingerprint
from tests.openai_server import OpenAIServer

NOTICED_MS = 15_000  # it looks every second and at every change; room for a loaded machine


@pytest.fixture(scope="module")
def colleague_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return colleague_project(tmp_path_factory.mktemp("colleague"), 300)


@pytest.fixture
def colleague(colleague_source: Path, tmp_path: Path) -> Path:
    path = tmp_path / "colleague.tiebreak"
    shutil.copyfile(colleague_source, path)
    return path


@pytest.fixture
def warnings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    shown: list[str] = []
    monkeypatch.setattr(dialogs, "warn", lambda parent, message: shown.append(message))
    return shown


def _noticed(qtbot, window: MainWindow, project: Path, warnings: list[str]) -> str:  # type: ignore[no-untyped-def]
    """Wait, pressing nothing, for the window to say the file was moved or replaced: once
    in a box, and in the status bar by the file's name."""
    line = f"{project}: {REFUSED}"
    qtbot.waitUntil(lambda: warnings == [line], timeout=NOTICED_MS)
    assert window.project_label.text() == f"{project.name}: {REFUSED}"
    return line


def _refused_verdict(qtbot, window: MainWindow, warnings: list[str], line: str) -> None:  # type: ignore[no-untyped-def]
    """B on the focused dimension: refused (the box was shown once; the status bar still
    says why), and still on screen as the reviewer's, marked as not saved."""
    panel = window.display.verdicts
    dimension = panel.focused_dimension
    assert dimension is not None
    press(qtbot, window, Qt.Key.Key_B)
    shown = panel.shown(dimension)
    assert (shown.mine, shown.final) == ("B", NOT_SAVED)
    assert warnings == [line]
    assert window.project_label.text().endswith(REFUSED)


@pytest.mark.parametrize("how", ["mv away", "rm"])
def test_the_window_says_its_file_moved_and_keeps_the_unsaved_verdict(
    qtbot, window: MainWindow, project: Path, warnings: list[str], how: str, hostile: Hostile
) -> None:
    press(qtbot, window, Qt.Key.Key_A)  # precision = A on p1, saved
    saved = [("p1", "precision", "A", "ada")]
    assert human_rows(project) == saved
    # In the file itself before it goes (as below): a verdict still only in the log when the
    # file is removed is recovered to a file of its own, and said so (test_moved_writers.py).
    wal = Path(f"{project}-wal")
    qtbot.waitUntil(lambda: not wal.exists() or not wal.stat().st_size, timeout=NOTICED_MS)
    moved = project.with_name("moved.tiebreak")
    if how == "rm":
        project.unlink()
    else:
        os.rename(project, moved)
    line = _noticed(qtbot, window, project, warnings)
    assert beside(project) == []  # let go: nothing of it left by the old name
    _refused_verdict(qtbot, window, warnings, line)
    press(qtbot, window, Qt.Key.Key_J)  # the pair with the unsaved verdict stays shown
    assert window.session.current.external_id == "p1" and warnings == [line]
    assert window.display.verdicts.shown("correctness").final == NOT_SAVED
    window.grab().save(str(project.with_name("window.png")))
    window.close()
    if how == "mv away":
        assert beside(moved) == [] and human_rows(moved) == saved
    assert beside(project) == [] and not project.exists()
    hostile.held()


@pytest.mark.parametrize("how", ["mv", "cp"])
def test_a_colleagues_file_put_over_the_open_project_is_left_intact(
    qtbot,
    window: MainWindow,
    project: Path,
    colleague: Path,
    warnings: list[str],
    how: str,
    hostile: Hostile,
) -> None:
    press(qtbot, window, Qt.Key.Key_A)
    # The verdict copied from the log into the file itself before the colleague's lands:
    # on a loaded machine the copy can trail the key, and a file put over a verdict still
    # only in the log is the recovery case (test_moved_writers.py), not this one.
    wal = Path(f"{project}-wal")
    qtbot.waitUntil(
        lambda: len(human_rows(project)) == 1 and (not wal.exists() or not wal.stat().st_size),
        timeout=NOTICED_MS,
    )
    before = fingerprint(colleague)
    put_over(colleague, project, how)
    line = _noticed(qtbot, window, project, warnings)
    assert beside(project) == []
    run = hostile.cli("stats", project)
    hostile.succeeded(run)
    assert "300 pairs" in run.stdout
    _refused_verdict(qtbot, window, warnings, line)
    window.close()
    assert fingerprint(project) == before and beside(project) == []


def test_a_judging_command_and_the_window_write_at_once_without_alarm(
    qtbot,
    tmp_path: Path,
    project: Path,
    server: OpenAIServer,
    warnings: list[str],
    hostile: Hostile,
) -> None:
    """``tiebreak judge`` commits every answer while the reviewer gives verdicts in the
    window, for several of the window's checks: every verdict is saved, the job ends well,
    and nothing is taken for a replaced file."""
    rows = [
        {
            "id": f"q{i}",
            "instruction": f"more {i}",
            "response_a": "a",
            "response_b": "b",
            "reference": "a",
        }
        for i in range(150)
    ]
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "more.jsonl", rows))
    window = open_window(qtbot, project, server)
    try:
        with OpenAIServer(answer="A, B, tie, A", delay=0.02) as judge_server:
            job = hostile.spawn(
                "judge", project, "--rubric", "href-four", "--model", "other",
                "--base-url", judge_server.base_url, "--concurrency", "2",
            )  # fmt: skip
            given = 0
            while job.poll() is None or given < 6:
                press(qtbot, window, (Qt.Key.Key_A, Qt.Key.Key_B, Qt.Key.Key_T)[given % 3])
                given += 1
                if given % 4 == 0:
                    press(qtbot, window, Qt.Key.Key_J)
                qtbot.wait(150)  # the window checks its file while the job writes
            hostile.succeeded(hostile.finished(job))
        assert warnings == [] and window.context.lost is None
        with open_project(project, readonly=True) as store:  # closed before the window is
            saved = store.conn.execute("SELECT count(*) FROM human_verdicts").fetchone()[0]
        assert saved == given
        assert NOT_SAVED not in {
            window.display.verdicts.shown(d).final for d in window.session.dimensions
        }
    finally:
        window.context.runner.shutdown()
        window.close()
    assert beside(project) == []
