"""The review window driven with the keyboard alone, against a real project file and the
project's own OpenAI-compatible test server."""

from __future__ import annotations

import csv
import json
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.domain.verdicts import Verdict
from desktop.services.app_settings import AppSettings, load_settings
from desktop.services.importing import import_file
from desktop.services.overrides import override
from desktop.services.review_edits import ReviewState
from desktop.services.session import ReviewSession
from desktop.ui.file_actions import export_work
from desktop.ui.main_window import MainWindow
from desktop.ui.pair_list import HEADERS
from desktop.ui.verdict_panel import ShownRow, VerdictButton
from tests.gui_helpers import completions, human_rows, judge_all, my_verdict, open_window, press
from tests.helpers import new_project, write_jsonl
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
HREF_DIMS = ("precision", "correctness", "format", "overall")


def shown(win: MainWindow, dimension: str) -> ShownRow:
    """What the verdict panel shows on ``dimension``'s row."""
    return win.display.verdicts.shown(dimension)


def test_keyboard_navigation_and_verdicts(qtbot, window: MainWindow, project: Path) -> None:
    assert window.session.current.external_id == "p1"
    press(qtbot, window, Qt.Key.Key_J)
    press(qtbot, window, Qt.Key.Key_J)
    assert window.session.current.external_id == "p3"
    press(qtbot, window, Qt.Key.Key_K)
    assert window.session.current.external_id == "p2"
    # A on the first dimension, then focus moves down; B on the second.
    press(qtbot, window, Qt.Key.Key_A)
    press(qtbot, window, Qt.Key.Key_B)
    assert human_rows(project) == [
        ("p2", "precision", "A", "ada"),
        ("p2", "correctness", "B", "ada"),
    ]
    assert window.display.verdicts.focused_dimension == "format"
    press(qtbot, window, Qt.Key.Key_Up)
    assert window.display.verdicts.focused_dimension == "correctness"
    press(qtbot, window, Qt.Key.Key_T)
    assert my_verdict(window.session, "correctness").value == "tie"
    # Undo twice brings back B and then nothing on correctness; redo restores the tie.
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert my_verdict(window.session, "correctness").value == "B"
    press(qtbot, window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert my_verdict(window.session, "correctness") is None
    press(qtbot, window, Qt.Key.Key_Y, Qt.KeyboardModifier.ControlModifier)
    assert my_verdict(window.session, "correctness").value == "B"
    # History is append-only: the undo wrote a withdrawal, never deleted a row.
    assert len(human_rows(project)) == 6
    # U goes to the next pair without a verdict of the reviewer's.
    press(qtbot, window, Qt.Key.Key_U)
    assert window.session.current.external_id == "p3"


def test_status_bar_counts_follow_a_withdrawal(qtbot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: "0 reviewed · 6 left" in window.counts.text(), timeout=5000)
    window.statusBar().showMessage("judged 6 ok")  # a passing message hides neither
    assert window.counts.isVisible() and window.project_label.isVisible()
    press(qtbot, window, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: "1 reviewed · 5 left" in window.counts.text(), timeout=5000)
    press(qtbot, window, Qt.Key.Key_Up)  # back to the dimension just decided
    press(qtbot, window, Qt.Key.Key_Backspace)
    assert my_verdict(window.session, "precision") is None
    qtbot.waitUntil(lambda: "0 reviewed · 6 left" in window.counts.text(), timeout=5000)


def test_judge_accept_and_export(qtbot, window: MainWindow, server: OpenAIServer, tmp_path):
    press(qtbot, window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    assert len(completions(server)) == 1
    # The window shows the judge's verdicts for the pair it judged.
    assert shown(window, "precision").judge == "A"
    assert shown(window, "format").judge == "tie"
    # Enter accepts the judge's verdicts as the reviewer's and moves on.
    press(qtbot, window, Qt.Key.Key_Return)
    assert window.session.current.external_id == "p2"
    # Judge everything left, from the keyboard.
    judge_all(qtbot, window)
    assert len(completions(server)) == 6  # p1 was cached, never asked twice
    qtbot.waitUntil(lambda: "6 judged" in window.counts.text(), timeout=5000)
    out = tmp_path / "out.csv"
    result = {}
    window.context.runner.start(
        export_work(window.session, out), on_done=lambda r: result.update(r=r)
    )
    qtbot.waitUntil(lambda: "r" in result, timeout=10_000)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["external_id"] for r in rows] == [f"p{i}" for i in range(1, 7)]
    first = rows[0]
    assert first["judge_status"] == "ok"
    assert first["precision_model"] == "A" and first["precision_human"] == "A"
    assert first["correctness_final"] == "B"
    assert rows[1]["precision_human"] == ""
    assert rows[1]["overall_final"] == "A"


def test_position_is_remembered(qtbot, window: MainWindow, project: Path) -> None:
    for _ in range(3):
        press(qtbot, window, Qt.Key.Key_J)
    assert window.session.current.external_id == "p4"
    window.close()
    settings = AppSettings(reviewer="ada", profile="test")
    again = MainWindow(ReviewSession.open(project, settings), settings)
    qtbot.addWidget(again)
    assert again.session.current.external_id == "p4"
    again.close()


def test_an_open_agreement_dock_opens_again(qtbot, window: MainWindow, project: Path) -> None:
    press(qtbot, window, Qt.Key.Key_S)
    assert window.agreement.is_open()
    window.close()
    settings = AppSettings(reviewer="ada", profile="test")
    again = MainWindow(ReviewSession.open(project, settings), settings)
    qtbot.addWidget(again)
    assert not again.agreement.is_open()  # not before the first paint
    again.show()
    qtbot.waitUntil(again.agreement.is_open)
    assert again.shortcuts["toggle_stats"].isChecked()
    press(qtbot, again, Qt.Key.Key_S)  # closed this time: stays closed next time
    assert not again.agreement.is_open()
    again.close()
    third = MainWindow(ReviewSession.open(project, settings), settings)
    qtbot.addWidget(third)
    third.show()
    qtbot.waitExposed(third)
    qtbot.wait(50)
    assert not third.agreement.is_open()
    third.close()


def test_model_choice_is_remembered(qtbot, window: MainWindow) -> None:
    assert load_settings().profile != "local"
    window.choices.profile_box.setCurrentText("local")
    assert window.session.profile.name == "local"
    assert load_settings().profile == "local"


def test_search_and_filter(qtbot, window: MainWindow) -> None:
    qtbot.keyClicks(window.pairs.search, "Probably 9")
    qtbot.waitUntil(lambda: window.pairs.model.rowCount() == 1, timeout=3000)
    assert window.session.current.external_id == "p4"
    window.pairs.search.clear()
    qtbot.waitUntil(lambda: window.pairs.model.rowCount() == 6, timeout=3000)
    window.pairs.filter.setCurrentText("reviewed")
    assert window.pairs.model.rowCount() == 0


def test_error_is_one_message_not_a_crash(qtbot, window: MainWindow, tmp_path, monkeypatch):
    import desktop.ui.dialogs as dialogs

    warnings: list[str] = []
    monkeypatch.setattr(dialogs, "warn", lambda parent, message: warnings.append(message))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"instruction": "x", "response_a": "y"}\nnot json\n', encoding="utf-8")
    window.files.import_file(bad)
    qtbot.waitUntil(lambda: bool(warnings), timeout=5000)
    assert len(warnings) == 1 and "bad.jsonl" in warnings[0] and "Traceback" not in warnings[0]
    assert window.pairs.model.rowCount() == 6


def test_typing_in_search_never_acts_on_verdicts(qtbot, window: MainWindow, project: Path):
    window.pairs.search.setFocus()
    qtbot.keyClicks(window.pairs.search, "abt")
    qtbot.keyClick(window.pairs.search, Qt.Key.Key_Return)
    assert window.pairs.search.text() == "abt"
    assert human_rows(project) == []


def test_closing_while_a_search_waits_to_run(qtbot, window: MainWindow) -> None:
    """The search runs once typing pauses; a window closed before then reads nothing more
    from its closed project (pytest-qt fails the test on any error in the event loop)."""
    qtbot.keyClicks(window.pairs.search, "Probably")
    window.close()
    qtbot.wait(400)
    assert not window.isVisible()


def test_judge_key_held_down_sends_one_request(qtbot, window: MainWindow, server: OpenAIServer):
    server.delay = 0.5
    for _ in range(5):
        press(qtbot, window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    assert window.judging.running
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    assert len(completions(server)) == 1
    assert all(not action.autoRepeat() for action in window.shortcuts.all())


def test_blind_mode_hides_the_judge_until_the_reviewer_decides(
    qtbot, window: MainWindow, server: OpenAIServer
):
    press(qtbot, window, Qt.Key.Key_B, Qt.KeyboardModifier.ControlModifier)
    press(qtbot, window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    assert shown(window, "precision").judge == "hidden"
    assert shown(window, "overall").final == "-"
    press(qtbot, window, Qt.Key.Key_B)  # the reviewer's verdict on precision
    assert shown(window, "precision").judge == "A"
    assert shown(window, "correctness").judge == "hidden"
    with sqlite3.connect(window.session.path) as conn:
        assert conn.execute("SELECT mode FROM human_verdicts").fetchall() == [("blind",)]


def test_a_second_reviewer_gives_their_own_verdicts(qtbot, project: Path, server: OpenAIServer):
    """Bob's verdicts (merged in) are never taken for Ada's: her buttons start empty, her
    verdict is recorded even where it equals his, and U and Enter go by hers."""
    with open_project(project) as store:
        for ref in ("p1", "p2"):
            override(
                store,
                find_pair(store, ref),
                rubric="href-four",
                dimensions=HREF_DIMS,
                dimension="overall",
                verdict=Verdict.B,
                reviewer="bob",
            )
    win = open_window(qtbot, project, server)
    assert shown(win, "overall").mine is None
    assert shown(win, "overall").final == "B (bob)"
    for _ in range(3):
        press(qtbot, win, Qt.Key.Key_Down)
    press(qtbot, win, Qt.Key.Key_B)  # the same verdict as bob's: still hers to give
    assert ("p1", "overall", "B", "ada") in human_rows(project)
    assert shown(win, "overall").final == "B (2 reviewers)"
    press(qtbot, win, Qt.Key.Key_U)  # bob reviewed p2, ada has not
    assert win.session.current.external_id == "p2"
    press(qtbot, win, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not win.judging.running, timeout=10_000)
    press(qtbot, win, Qt.Key.Key_Return)  # accept: all four become ada's, overall too
    ada = [r for r in human_rows(project) if r[0] == "p2" and r[3] == "ada"]
    assert [(r[1], r[2]) for r in ada] == [
        ("precision", "A"),
        ("correctness", "B"),
        ("format", "tie"),
        ("overall", "A"),
    ]
    win.context.runner.shutdown()


def test_review_queue_and_agreement_dock(qtbot, window: MainWindow, server: OpenAIServer):
    def answer(request: dict) -> str:
        text = json.dumps(request["messages"])
        return "I cannot decide" if "Question 4:" in text else "A, B, tie, A"

    server.responder = answer
    press(qtbot, window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    for key in (Qt.Key.Key_A, Qt.Key.Key_B, Qt.Key.Key_T, Qt.Key.Key_A):  # p1: as the judge
        press(qtbot, window, key)
    judge_all(qtbot, window)
    # Q goes first to the pair whose answer could not be read.
    press(qtbot, window, Qt.Key.Key_Q)
    qtbot.waitUntil(lambda: window.session.current.external_id == "p4", timeout=10_000)
    # p2 (unreviewed) comes later; p1 (reviewed, agrees) never.
    seen = []
    for _ in range(4):
        press(qtbot, window, Qt.Key.Key_Q)
        seen.append(window.session.current.external_id)
    assert "p1" not in seen and "p2" in seen
    # S shows the agreement figures: p1 reviewed, all four dimensions agree.
    press(qtbot, window, Qt.Key.Key_S)
    panel = window.agreement.panel
    qtbot.waitUntil(lambda: panel.table.rowCount() == 4, timeout=10_000)
    assert panel.table.item(0, 0).text() == "precision"
    assert panel.table.item(0, 1).text() == "1"
    assert panel.table.item(0, 2).text() == "100.0%"
    assert panel.matrix.item(0, 0).text() == "1"  # judge A, human A
    assert "gui 100.0% of 1" in panel.matrix_title.text()  # how the verdict was given
    # Per category: p1 is a math pair, no facts pair is reviewed yet.
    panel.section.setCurrentText("facts")
    assert panel.table.item(0, 1).text() == "0"
    panel.section.setCurrentText("math")
    assert panel.table.item(0, 1).text() == "1"
    panel.section.setCurrentText("all pairs")
    # An override that disagrees moves the figures.
    window.pairs.reload(keep=window.session.current.id)
    window.editing.apply_state(
        window.pairs.model.row_at(0).id, "precision", ReviewState(Verdict.B, mode="gui")
    )
    qtbot.waitUntil(lambda: panel.table.item(0, 2).text() == "0.0%", timeout=10_000)
    assert panel.matrix.item(0, 1).text() == "1"  # judge A, human B


def test_settings_test_connection_and_key_to_keyring(
    qtbot, window: MainWindow, server: OpenAIServer, memory_keyring
) -> None:
    from desktop.adapters.profiles_file import profiles_path
    from desktop.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(window, window.session)
    qtbot.addWidget(dialog)
    assert dialog.profile.currentText() == "test"
    dialog.test_button.click()  # off the GUI thread: the dialog answers meanwhile
    qtbot.waitUntil(lambda: "profile test:" in dialog.test_result.text(), timeout=20_000)
    assert "profile test: answers" in dialog.test_result.text()
    shown = dialog.test_result.text()
    assert "judged 16 demo pairs (href-overall, both orders): first " in shown
    assert "picks the better response in " in shown
    dialog.key.setText("sk-secret-123")
    dialog.reviewer.setText("grace")
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save).click()
    assert memory_keyring.get_password("tiebreak", "test") == "sk-secret-123"
    assert "sk-secret-123" not in profiles_path().read_text(encoding="utf-8")
    assert window.session.reviewer() == "grace"


def test_export_from_the_keyboard(qtbot, window: MainWindow, tmp_path, monkeypatch) -> None:
    import desktop.ui.dialogs as dialogs

    out = tmp_path / "labelled.csv"
    shown: list[tuple[str, ...]] = []

    def confirm(parent, columns, default):
        shown.append(columns)
        return out

    monkeypatch.setattr(dialogs, "confirm_export", confirm)
    press(qtbot, window, Qt.Key.Key_A)  # a verdict to export
    press(qtbot, window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(out.exists, timeout=10_000)
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert "precision_human" in shown[0]
    assert len(rows) == 6 and rows[0]["precision_human"] == "A"
    assert rows[0]["rubric"] == "href-four"


def test_export_says_how_many_cells_were_guarded(qtbot, window: MainWindow, tmp_path, monkeypatch):
    import desktop.ui.dialogs as dialogs

    out = tmp_path / "labelled.csv"
    warnings: list[str] = []
    monkeypatch.setattr(dialogs, "warn", lambda parent, message: warnings.append(message))
    monkeypatch.setattr(dialogs, "confirm_export", lambda parent, columns, default: out)
    press(qtbot, window, Qt.Key.Key_A)  # a verdict to export
    press(qtbot, window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: bool(warnings) or "guarded" in window.statusBar().currentMessage())
    assert warnings == []
    assert window.statusBar().currentMessage() == (
        f"exported 6 rows to {out}; 0 cells guarded against spreadsheet formulas"
    )


def test_export_from_the_window_never_writes_over_the_project(
    qtbot, window: MainWindow, project: Path, monkeypatch
) -> None:
    """The window's export goes through the same check as the command's."""
    import desktop.ui.dialogs as dialogs

    warnings: list[str] = []
    monkeypatch.setattr(dialogs, "warn", lambda parent, message: warnings.append(message))
    for count, target in enumerate((project, Path(f"{project}-wal")), start=1):
        monkeypatch.setattr(dialogs, "confirm_export", lambda *_, t=target: t)
        press(qtbot, window, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda n=count: len(warnings) == n)
    assert warnings == [
        f"{project}: is the project itself; choose another file to write",
        f"{project}-wal: is the project's write-ahead log ({project.name}-wal), part of the"
        " project; choose another file to write",
    ]
    with open_project(project, readonly=True) as store:
        assert store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0] == 6


def _unreadable_pair(path: Path, count: int) -> int:
    """The first pair whose row lies on the damaged pages."""
    from desktop.adapters.store.pairs import get_pair
    from desktop.domain.errors import ProjectError

    with open_project(path, readonly=True) as store:
        for pair_id in range(1, count + 1):
            try:
                get_pair(store, pair_id)
            except ProjectError:
                return pair_id
    raise AssertionError("no pair lies on the damaged pages")


def test_a_damaged_project_says_so_and_is_not_written(qtbot, tmp_path, server, monkeypatch):
    """The window checks the file off the GUI thread once it is up; a verdict is refused,
    and a read that meets the damage is the same one line, not a traceback."""
    from PySide6.QtCore import QTimer

    import desktop.ui.dialogs as dialogs

    path = new_project(tmp_path)
    rows = [
        {
            "id": f"d{i}",
            "instruction": f"q{i} " + "x" * 1000,
            "output_1": "a" * 1000,
            "output_2": "b" * 1000,
        }
        for i in range(400)
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "d.jsonl", rows))
    size = path.stat().st_size
    with path.open("r+b") as fh:  # garbage among the later pairs, past the first list page
        fh.seek(size * 2 // 3)
        fh.write(b"\xff" * 8192)
    before = path.read_bytes()
    warnings: list[str] = []
    monkeypatch.setattr(dialogs, "warn", lambda parent, message: warnings.append(message))
    settings = AppSettings(reviewer="ada", profile="test")
    win = MainWindow(ReviewSession.open(path, settings), settings)
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: len(warnings) == 1, timeout=10_000)
    damaged = f"{path}: the file is damaged ("
    assert warnings[0].startswith(damaged)
    win.pairs.focus()
    press(qtbot, win, Qt.Key.Key_A)
    qtbot.waitUntil(lambda: len(warnings) == 2)
    bad = _unreadable_pair(path, len(rows))
    QTimer.singleShot(0, lambda: win.display.show_pair(bad))  # a slot that reads the damage
    qtbot.waitUntil(lambda: len(warnings) == 3)
    assert all(w.startswith(damaged) and "\n" not in w for w in warnings)
    win.close()
    assert path.read_bytes() == before


def test_dropping_a_data_file_imports_it(qtbot, window: MainWindow, tmp_path) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDropEvent

    extra = write_jsonl(
        tmp_path / "more.jsonl",
        [{"instruction": "New question", "response_a": "x", "response_b": "y", "id": "n1"}],
    )
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(extra))])
    event = QDropEvent(
        QPointF(20, 20),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    qtbot.waitUntil(lambda: window.pairs.model.rowCount() == 7, timeout=10_000)
    assert window.pairs.model.row_at(6).external_id == "n1"


def test_the_window_is_laid_out_as_designed(window: MainWindow) -> None:
    """The list's columns and their tips, the panes' orientation, focus and shortcuts."""
    header = window.pairs.table.horizontalHeader()
    titles = [
        header.model().headerData(i, Qt.Orientation.Horizontal) for i in range(header.count())
    ]
    assert titles == list(HEADERS)
    model = window.pairs.model
    assert header.count() == model.columnCount()
    assert model.data(model.index(0, 1)) == "p1"
    assert "judged" in model.data(model.index(0, 3), Qt.ItemDataRole.ToolTipRole)
    assert model.data(QModelIndex()) is None

    view = window.display.pair_view
    assert view.vertical.orientation() == Qt.Orientation.Vertical
    assert window.splitter.orientation() == Qt.Orientation.Horizontal
    assert window.splitter.widget(1).orientation() == Qt.Orientation.Vertical
    assert view.empty.alignment() == Qt.AlignmentFlag.AlignCenter
    assert window.display.verdicts.judge_info.textInteractionFlags() == (
        Qt.TextInteractionFlag.TextSelectableByMouse
    )
    buttons = window.display.verdicts.findChildren(VerdictButton)
    assert buttons and all(b.focusPolicy() == Qt.FocusPolicy.NoFocus for b in buttons)
    assert {a.shortcutContext() for a in window.shortcuts.all()} == {
        Qt.ShortcutContext.WindowShortcut  # shortcuts act in the whole window, not a pane
    }
