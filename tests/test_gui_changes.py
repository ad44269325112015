"""A change reaches every part of the window that shows it, published once by whoever made
it (desktop/services/changes.py): a dock added to the table in desktop/ui/docks.py hears
them with no other edit, and for each kind of change, what the reviewer sees follows. The
real window, keys pressed, a real project file and the project's test server."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QSettings, Qt
from PySide6.QtWidgets import QApplication, QDockWidget

from desktop.adapters.profiles_file import save_profile
from desktop.domain.profiles import ModelProfile
from desktop.services.changes import Change
from desktop.ui import dialogs, docks
from desktop.ui.context import WindowContext
from desktop.ui.main_window import MainWindow
from desktop.ui.plain_text import PlainLabel
from desktop.ui.shortcuts import Shortcuts
from tests.gui_helpers import judge_all, open_window, press
from tests.helpers import new_project, write_jsonl
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
CTRL = Qt.KeyboardModifier.ControlModifier


class ChangesDock(QObject):
    """A dock as a newcomer writes one: it shows the last change to verdicts it heard, on
    which pairs, by whom. Nothing else in the window names it."""

    def __init__(self, context: WindowContext) -> None:
        super().__init__(context.window)
        self.context = context
        self.heard: list[Change] = []
        self.label = PlainLabel("nothing yet")
        self.dock = QDockWidget("Changes", context.window)
        self.dock.setObjectName("changes")
        self.dock.setWidget(self.label)
        context.changed.connect(self._changed)

    def bind(self, shortcuts: Shortcuts) -> None:
        pass  # no key of its own

    def is_open(self) -> bool:
        return self.dock.isVisible()

    def show(self, shown: bool) -> None:
        self.dock.setVisible(shown)

    def _changed(self, change: Change) -> None:
        self.heard.append(change)
        if change.verdicts and change.pairs:
            who = ", ".join(sorted(change.reviewers | change.judges))
            pairs = ", ".join(f"#{p}" for p in sorted(change.pairs))
            self.label.setText(f"verdicts of {who} on {pairs}")


def status_column(win: MainWindow) -> list[str]:
    """The list's status column, row by row, as shown."""
    model = win.pairs.model
    return [model.data(model.index(row, 3)) for row in range(model.rowCount())]


def test_a_dock_in_the_table_hears_the_verdict_a_key_wrote(
    qtbot, project: Path, server: OpenAIServer, monkeypatch
) -> None:
    monkeypatch.setattr(docks, "DOCKS", (*docks.DOCKS, ChangesDock))
    win = open_window(qtbot, project, server)
    mine = win.dock(ChangesDock)
    mine.show(True)
    assert any(change.project for change in mine.heard)  # the project the window opened on
    heard = len(mine.heard)
    press(qtbot, win, Qt.Key.Key_A)
    assert any(
        change.reviewers == {"ada"} and change.touches(1) and not change.judges
        for change in mine.heard[heard:]
    )  # ada's verdict on the pair shown, and nobody else's
    assert mine.label.text() == "verdicts of ada on #1"
    heard = len(mine.heard)
    press(qtbot, win, Qt.Key.Key_J, CTRL)  # a judge's answers, from a job
    qtbot.waitUntil(lambda: not win.judging.running, timeout=10_000)
    assert any("test-model" in change.judges for change in mine.heard[heard:])
    assert mine.label.text() == "verdicts of test-model on #1"
    assert not mine.heard[-1].more_coming  # the job's last word: work over every pair runs
    win.close()


def test_a_verdict_written_shows_in_the_pair_its_row_the_counts_and_the_figures(
    qtbot, project: Path, server: OpenAIServer
) -> None:
    QSettings("tiebreak", "tiebreak").setValue("agreement_shown", False)  # S opens it here
    window = open_window(qtbot, project, server)
    press(qtbot, window, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    press(qtbot, window, Qt.Key.Key_S)
    panel = window.agreement.panel
    qtbot.waitUntil(lambda: panel.table.rowCount() == 4, timeout=10_000)
    assert panel.table.item(0, 1).text() == "0"
    press(qtbot, window, Qt.Key.Key_B)  # precision: B, against the judge's A
    assert window.display.verdicts.shown("precision").mine == "B"
    assert status_column(window)[0] == "J  H  !"
    qtbot.waitUntil(lambda: "1 reviewed · 5 left" in window.counts.text(), timeout=5000)
    qtbot.waitUntil(lambda: panel.table.item(0, 1).text() == "1", timeout=10_000)
    assert panel.table.item(0, 2).text() == "0.0%"
    window.close()


def test_a_job_s_answers_show_as_they_come_in_the_list_the_pair_and_the_counts(
    qtbot, window: MainWindow
) -> None:
    assert status_column(window) == [""] * 6
    judge_all(qtbot, window)
    assert status_column(window) == ["J"] * 6
    assert window.display.verdicts.shown("format").judge == "tie"
    qtbot.waitUntil(lambda: "6 judged" in window.counts.text(), timeout=5000)


def test_another_judge_shown_changes_the_list_the_pair_and_the_counts(
    qtbot, project: Path, server: OpenAIServer
) -> None:
    save_profile(
        ModelProfile(name="other", model="other-model", base_url=server.base_url, needs_key=False)
    )
    window = open_window(qtbot, project, server)
    judge_all(qtbot, window)  # test-model answers all six
    window.choices.profile_box.setCurrentText("other")
    press(qtbot, window, Qt.Key.Key_J)  # p2, then other-model answers it alone
    press(qtbot, window, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    assert status_column(window) == ["", "J", "", "", "", ""]  # other-model's verdicts
    qtbot.waitUntil(lambda: "verdicts of other-model" in window.counts.text(), timeout=5000)
    press(qtbot, window, Qt.Key.Key_K)
    assert window.display.verdicts.shown("precision").judge == "-"
    press(qtbot, window, Qt.Key.Key_G)  # the picker: test-model is below other-model
    popup = window.choices.judge_box.view()
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClick(popup, Qt.Key.Key_Down)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not popup.isVisible())
    assert status_column(window) == ["J"] * 6
    assert window.display.verdicts.shown("precision").judge == "A"  # the same pair, p1
    assert window.session.current.external_id == "p1"
    qtbot.waitUntil(lambda: "verdicts of test-model" in window.counts.text(), timeout=5000)
    assert "6 judged" in window.counts.text()
    window.close()


def test_another_rubric_changes_the_dimensions_the_guidance_and_the_counts(
    qtbot, window: MainWindow
) -> None:
    judge_all(qtbot, window)
    press(qtbot, window, Qt.Key.Key_C)  # the rubric's guidance beside the pair
    assert window.guidance.dock.windowTitle().startswith("Rubric: href-four")
    window.choices.rubric_box.setCurrentText("href-overall")
    assert window.display.verdicts.dimensions == ("overall",)
    assert window.guidance.dock.windowTitle().startswith("Rubric: href-overall")
    assert status_column(window) == [""] * 6  # nobody judged with href-overall
    qtbot.waitUntil(lambda: "0 judged" in window.counts.text(), timeout=5000)


def test_another_profile_is_named_under_the_verdicts(qtbot, window: MainWindow) -> None:
    """Nobody has judged with href-four yet: the verdicts shown are whom Ctrl+J asks."""
    assert "(Ctrl+J asks test: test-model)" in window.display.verdicts.judge_info.text()
    window.choices.profile_box.setCurrentText("local")
    assert "(Ctrl+J asks local: " in window.display.verdicts.judge_info.text()
    qtbot.waitUntil(lambda: "verdicts of SmolLM2" in window.counts.text(), timeout=5000)


def test_pairs_imported_reach_the_list_its_filters_and_the_counts(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch
) -> None:
    more = write_jsonl(
        tmp_path / "more.jsonl",
        [
            {
                "id": "n1",
                "instruction": "Q",
                "response_a": "x",
                "response_b": "y",
                "category": "code",
            }
        ],
    )
    monkeypatch.setattr(dialogs, "open_file", lambda parent, title, filters: more)
    press(qtbot, window, Qt.Key.Key_I, CTRL)
    qtbot.waitUntil(lambda: window.pairs.model.rowCount() == 7, timeout=10_000)
    box = window.pairs.category
    assert [box.itemText(i) for i in range(box.count())] == [
        "all categories",
        "code",
        "facts",
        "math",
    ]
    qtbot.waitUntil(lambda: " · 7 pairs · " in window.counts.text(), timeout=5000)


def test_another_project_opened_is_shown_whole_and_undo_stays_with_the_first(
    qtbot, window: MainWindow, project: Path, tmp_path: Path, monkeypatch
) -> None:
    press(qtbot, window, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    press(qtbot, window, Qt.Key.Key_Q)  # the first project's review queue, walked from p2
    qtbot.waitUntil(lambda: window.session.current.external_id != "p1", timeout=10_000)
    press(qtbot, window, Qt.Key.Key_A)  # a verdict on the first project, undoable there
    press(qtbot, window, Qt.Key.Key_C)
    other = new_project(tmp_path, "other.tiebreak")
    monkeypatch.setattr(dialogs, "open_file", lambda parent, title, filters: other)
    press(qtbot, window, Qt.Key.Key_O, CTRL)
    assert window.windowTitle() == "other.tiebreak — Tiebreak"
    assert window.pairs.model.rowCount() == 0
    assert QApplication.focusWidget() is window.pairs.table
    assert window.guidance.dock.windowTitle().startswith("Rubric: just-eval")  # its default
    assert window.display.verdicts.dimensions[:2] == ("engagement", "clarity")
    qtbot.waitUntil(lambda: " · 0 pairs · " in window.counts.text(), timeout=5000)
    assert not window.editing.undo_stack.canUndo()
    warned: list[str] = []
    monkeypatch.setattr(dialogs, "warn", lambda parent, message: warned.append(message))
    press(qtbot, window, Qt.Key.Key_Q)  # the new project's queue: nothing in it, no error
    qtbot.waitUntil(lambda: window.queue._task is None, timeout=5000)
    assert warned == []  # the first project's queue is not walked in the second


def test_a_new_project_is_made_and_opened_on_ctrl_n(
    qtbot, window: MainWindow, tmp_path: Path, monkeypatch
) -> None:
    fresh = tmp_path / "fresh"  # the dialog's name without the suffix: the window adds it
    monkeypatch.setattr(dialogs, "save_file", lambda parent, title, folder, filters: fresh)
    press(qtbot, window, Qt.Key.Key_N, CTRL)
    assert fresh.with_suffix(".tiebreak").is_file()
    assert window.windowTitle() == "fresh.tiebreak — Tiebreak"
    assert window.pairs.model.rowCount() == 0
    qtbot.waitUntil(lambda: " · 0 pairs · " in window.counts.text(), timeout=5000)
