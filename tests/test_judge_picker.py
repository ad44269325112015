"""The judge picker: the window shows the verdicts of any judge with answers (an imported
annotator, a command-line run, a profile), chosen by keyboard, apart from the profile
that Ctrl+J asks. Real project files, the real CLI, the project's own test server."""

from __future__ import annotations

import csv
import json
import os
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication

from desktop.adapters.profiles_file import save_profile
from desktop.adapters.store import open_project
from desktop.domain.profiles import ModelProfile
from desktop.services import background
from desktop.services.app_settings import AppSettings
from desktop.services.importing import import_file
from desktop.services.session import ReviewSession
from desktop.ui.file_actions import export_work
from desktop.ui.main_window import MainWindow
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
N = 12


def _alpaca_rows() -> list[dict]:
    """An AlpacaEval annotation file: pair i has preference 1 + i/N (B from i = 7 on)."""
    return [
        {
            "instruction": f"Question {i}",
            "output_1": f"baseline {i}",
            "generator_1": "base",
            "output_2": f"model {i}",
            "generator_2": "gen",
            "annotator": "gpt4-annotator",
            "preference": 1 + i / N,
        }
        for i in range(1, N + 1)
    ]


def open_window(qtbot, project: Path, profile: str = "local") -> MainWindow:
    QSettings("tiebreak", "tiebreak").setValue("agreement_shown", False)  # S opens it here
    settings = AppSettings(reviewer="ada", profile=profile)
    win = MainWindow(ReviewSession.open(project, settings), settings)
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    qtbot.waitExposed(win)
    qtbot.waitUntil(win.isActiveWindow)
    win.pairs.focus()
    return win


def press(qtbot, key: Qt.Key, mod=Qt.KeyboardModifier.NoModifier) -> None:
    qtbot.keyClick(QApplication.focusWidget(), key, mod)


def pick_judge(qtbot, win: MainWindow, steps: int) -> None:
    """G opens the picker; Down ``steps`` times and Enter choose; the keys go back to the
    pair list."""
    press(qtbot, Qt.Key.Key_G)
    popup = win.choices.judge_box.view()
    qtbot.waitUntil(popup.isVisible)
    for _ in range(steps):
        qtbot.keyClick(popup, Qt.Key.Key_Down)
    qtbot.keyClick(popup, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not popup.isVisible())
    qtbot.waitUntil(lambda: QApplication.focusWidget() is win.pairs.table)


def shown_judge(win: MainWindow) -> str:
    """The judge's verdict on overall, as the verdict panel shows it."""
    return win.display.verdicts.shown("overall").judge


def judge_texts(win: MainWindow) -> list[str]:
    return [win.choices.judge_box.itemText(i) for i in range(win.choices.judge_box.count())]


def test_an_imported_annotator_shows_at_once(qtbot, tmp_path: Path) -> None:
    """The issue's first sight: imported verdicts, and the window said 0 judged."""
    project = new_project(tmp_path)
    data = tmp_path / "annotations.json"
    data.write_text(json.dumps(_alpaca_rows()), encoding="utf-8")
    with open_project(project) as store:
        import_file(store, data)
    win = open_window(qtbot, project)  # the local profile: it has answered nothing
    assert win.session.rubric_name == "alpaca-eval"
    qtbot.waitUntil(lambda: f"{N} pairs · {N} judged" in win.counts.text(), timeout=5000)
    qtbot.waitUntil(lambda: judge_texts(win) == [f"gpt4-annotator · {N}"], timeout=5000)
    assert win.choices.profile_box.currentText() == "local"  # still the one Ctrl+J would ask
    row = win.display.verdicts.shown("overall")
    assert (row.judge, row.conf) == ("A", f"{1 - 1 / N:.2f}")
    assert "gpt4-annotator — AB: ok" in win.display.verdicts.judge_info.text()
    assert all(win.pairs.model.row_at(i).judged for i in range(win.pairs.model.rowCount()))
    for _ in range(9):
        press(qtbot, Qt.Key.Key_J)
    row = win.display.verdicts.shown("overall")
    assert (row.judge, row.conf) == ("B", f"{10 / N:.2f}")
    press(qtbot, Qt.Key.Key_S)  # the dock states the generator's figures, AlpacaEval's way
    mean = sum(i / N for i in range(1, N + 1)) / N * 100
    qtbot.waitUntil(
        lambda: f"gen (B) wins {mean:.2f}%" in win.agreement.panel.matrix_title.text(), timeout=5000
    )
    assert "against base (A) by the judge" in win.agreement.panel.matrix_title.text()


@pytest.fixture
def two_judges(tmp_path: Path):
    """Six pairs judged on href-overall from the command line by "judge-one" (answers A),
    then pairs 1-3 by "judge-two" (answers B): judge-two has the latest answers."""
    project = new_project(tmp_path)
    rows = [
        {
            "id": f"p{i}",
            "instruction": f"q{i}",
            "response_a": f"a{i}",
            "response_b": f"b{i}",
            "reference": f"r{i}",
        }
        for i in range(1, 7)
    ]
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    with OpenAIServer(answer="A") as server:
        for model, limit, answer in (("judge-one", 6, "A"), ("judge-two", 3, "B")):
            server.answer = answer
            proc = tiebreak(
                "judge", project, "--rubric", "href-overall", "--base-url", server.base_url,
                "--model", model, "--limit", str(limit),
            )  # fmt: skip
            assert proc.returncode == 0, proc.stderr
        save_profile(
            ModelProfile(name="test", model="test-model", base_url=server.base_url, needs_key=False)
        )
        server.answer = "tie"
        yield project, server


def test_switching_judges_by_keyboard_updates_everything(qtbot, two_judges) -> None:
    project, server = two_judges
    win = open_window(qtbot, project, profile="test")
    qtbot.waitUntil(lambda: judge_texts(win) == ["judge-two · 3", "judge-one · 6"], timeout=5000)
    assert win.choices.judge_box.currentText() == "judge-two · 3"  # the most recent answers
    assert shown_judge(win) == "B"
    qtbot.waitUntil(lambda: "6 pairs · 3 judged" in win.counts.text(), timeout=5000)
    press(qtbot, Qt.Key.Key_S)  # the agreement dock
    qtbot.waitUntil(lambda: "judge judge-two" in win.agreement.panel.heading.text(), timeout=5000)
    press(qtbot, Qt.Key.Key_J)
    press(qtbot, Qt.Key.Key_J)
    press(qtbot, Qt.Key.Key_J)  # p4: judge-two never answered it
    assert shown_judge(win) == "-" and "not judged yet" in win.display.verdicts.judge_info.text()

    pick_judge(qtbot, win, 1)
    assert win.session.judge_model == "judge-one"
    # The same pair stays, and its verdicts change with the judge, without moving away.
    assert win.session.current.external_id == "p4"
    assert (
        shown_judge(win) == "A" and "judge-one — AB: ok" in win.display.verdicts.judge_info.text()
    )
    assert win.pairs.model.row_at(3).judged
    qtbot.waitUntil(lambda: "6 pairs · 6 judged" in win.counts.text(), timeout=5000)
    qtbot.waitUntil(lambda: "judge judge-one" in win.agreement.panel.heading.text(), timeout=5000)
    assert win.choices.profile_box.currentText() == "test"  # the profile asked is its own choice
    exported: dict = {}  # the window exports what it shows
    out = project.with_name("shown.csv")
    win.context.runner.start(export_work(win.session, out), on_done=lambda r: exported.update(r=r))
    qtbot.waitUntil(lambda: "r" in exported, timeout=10_000)
    with out.open(newline="", encoding="utf-8") as fh:
        assert {r["judge_model"] for r in csv.DictReader(fh)} == {"judge-one"}
    press(qtbot, Qt.Key.Key_J)  # the keys act on pairs again
    assert win.session.current.external_id == "p5"

    # Ctrl+J asks the profile; its answer shows as it arrives, and it joins the picker.
    asked = len(server.requests)
    press(qtbot, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not win.judging.running, timeout=10_000)
    sent = [r.json for r in server.requests[asked:] if r.path.endswith("/chat/completions")]
    assert [body["model"] for body in sent] == ["test-model"]
    assert win.session.judge_model == "test-model"
    assert shown_judge(win) == "tie"
    qtbot.waitUntil(
        lambda: judge_texts(win) == ["test-model · 1", "judge-two · 3", "judge-one · 6"],
        timeout=5000,
    )
    assert win.choices.judge_box.currentText() == "test-model · 1"
    pick_judge(qtbot, win, 2)
    assert shown_judge(win) == "A"


def test_escape_leaves_the_judge_as_it_was(qtbot, two_judges) -> None:
    project, _ = two_judges
    win = open_window(qtbot, project)
    press(qtbot, Qt.Key.Key_G)
    popup = win.choices.judge_box.view()
    qtbot.waitUntil(popup.isVisible)
    qtbot.keyClick(popup, Qt.Key.Key_Down)
    qtbot.keyClick(popup, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not popup.isVisible())
    qtbot.waitUntil(lambda: QApplication.focusWidget() is win.pairs.table)
    assert win.session.judge_model == "judge-two"


def test_a_new_rubric_shows_its_own_verdicts_on_the_same_pair(qtbot, two_judges) -> None:
    """Changing the rubric used to leave the pair's verdicts blank until the next pair."""
    project, server = two_judges
    proc = tiebreak(
        "judge", project, "--rubric", "just-eval", "--base-url", server.base_url,
        "--model", "judge-three", "--limit", "1",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    win = open_window(qtbot, project)
    win.choices.rubric_box.setCurrentText("href-overall")
    assert shown_judge(win) == "B"
    win.choices.rubric_box.setCurrentText("just-eval")
    assert win.session.current.external_id == "p1"
    assert win.session.judge_model == "judge-three"
    assert judge_texts(win)[0].startswith("judge-three")
    assert "judge-three — AB:" in win.display.verdicts.judge_info.text()


def test_a_project_nobody_judged_shows_whom_ctrl_j_asks(qtbot, tmp_path: Path) -> None:
    project = new_project(tmp_path)
    rows = [{"instruction": "q", "response_a": "a", "response_b": "b"}]
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    win = open_window(qtbot, project)
    assert judge_texts(win) == ["none yet"]
    assert "not judged yet (Ctrl+J asks local" in win.display.verdicts.judge_info.text()


def test_the_picker_counts_what_the_status_bar_counts_not_errors(qtbot, tmp_path: Path) -> None:
    """A judge's count is of pairs judged: p2 got only an error, p3's latest answer is one."""
    from desktop.domain.results import Status
    from tests.stats_helpers import add_rubric, judge

    project = new_project(tmp_path)
    rows = [{"instruction": f"q{i}", "response_a": "a", "response_b": "b"} for i in (1, 2, 3)]
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(store, "r", ("overall",))
        judge(store, 1, model="flaky", overall="A")
        judge(store, 2, model="flaky", status=Status.ERROR)
        judge(store, 3, model="flaky", overall="B")
        judge(store, 3, model="flaky", status=Status.ERROR)
    win = open_window(qtbot, project)
    assert win.session.rubric_name == "r"
    qtbot.waitUntil(lambda: judge_texts(win) == ["flaky · 1"], timeout=5000)
    qtbot.waitUntil(lambda: "3 pairs · 1 judged" in win.counts.text(), timeout=5000)


def _changed_elsewhere(project: Path) -> None:
    """As if another program wrote the file: its next write checks it for damage first."""
    later = project.stat().st_mtime_ns + 5_000_000_000
    os.utime(project, ns=(later, later))


def _saved_judge(project: Path, rubric: str) -> str | None:
    with open_project(project, readonly=True) as store:
        return store.get_setting(f"judge:{rubric}")


def test_a_judge_chosen_before_the_file_is_checked_is_kept(two_judges) -> None:
    """A switch of rubric or judge right after opening a file another program changed does
    not wait for the check for damage (seconds on a big file, on the GUI thread): the
    choices are written once the check, run off it, finds the file sound, or when the
    project closes first."""
    project, _server = two_judges
    settings = AppSettings(reviewer="ada", profile="local")
    for check_first in (True, False):
        _changed_elsewhere(project)
        session = ReviewSession.open(project, settings)
        session.choose_rubric("href-overall")
        chosen = next(c.judge for c in session.judge_names() if c.judge != session.judge_model)
        session.choose_judge(chosen)
        assert session.judge_model == chosen
        assert _saved_judge(project, "href-overall") != chosen  # nothing written unchecked
        if check_first:
            background.reading(session.project, lambda store: store.ensure_sound())(
                lambda _: None, threading.Event()
            )
            session.checked()
            assert _saved_judge(project, "href-overall") == chosen  # still open
        session.close()
        assert _saved_judge(project, "href-overall") == chosen
        again = ReviewSession.open(project, settings)
        assert (again.rubric_name, again.judge_model) == ("href-overall", chosen)
        again.close()


def test_a_reopened_project_shows_the_judge_last_chosen(qtbot, two_judges, monkeypatch) -> None:
    """Reviewed against one judge, closed, reopened: the window came back on the judge with
    the most recent answers, its column "-" where that one never answered, and Ctrl+E
    exported that judge's verdicts. The judge chosen is kept per rubric, with the position,
    and the status bar says whose verdicts are shown."""
    import desktop.ui.dialogs as dialogs

    project, server = two_judges
    proc = tiebreak(
        "judge", project, "--rubric", "just-eval", "--base-url", server.base_url,
        "--model", "judge-three", "--limit", "1",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    win = open_window(qtbot, project, profile="test")
    win.choices.rubric_box.setCurrentText("href-overall")
    assert win.session.judge_model == "judge-two"
    pick_judge(qtbot, win, 1)
    for _ in range(3):
        press(qtbot, Qt.Key.Key_J)  # p4: only judge-one answered it
    assert shown_judge(win) == "A"
    win.close()

    again = open_window(qtbot, project, profile="test")
    assert again.session.current.external_id == "p4"
    assert again.session.rubric_name == "href-overall"
    assert shown_judge(again) == "A"
    assert again.pairs.model.row_at(3).judged  # its J flag, as before closing
    qtbot.waitUntil(
        lambda: again.counts.text().startswith("verdicts of judge-one · 6 pairs · 6 judged"),
        timeout=5000,
    )
    qtbot.waitUntil(lambda: again.choices.judge_box.currentText() == "judge-one · 6", timeout=5000)
    # Another rubric shows its own judge; coming back shows judge-one again.
    again.choices.rubric_box.setCurrentText("just-eval")
    assert again.session.judge_model == "judge-three"
    again.choices.rubric_box.setCurrentText("href-overall")
    assert again.session.judge_model == "judge-one"
    out = project.with_name("reopened.csv")
    monkeypatch.setattr(dialogs, "confirm_export", lambda parent, columns, default: out)
    press(qtbot, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: "exported 6 rows" in again.statusBar().currentMessage(), timeout=10_000)
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["judge_model"] for r in rows} == {"judge-one"}
    assert [r["overall_model"] for r in rows] == ["A"] * 6
    again.close()
