"""Blind mode's figure counts only verdicts given with the judge's answer unseen: Enter
never takes a hidden verdict, and a verdict given after the judge showed on that pair and
dimension (after your own verdict, after leaving blind mode, after opening the raw
completion, in an earlier window) is stored as `gui`. The real window, keys pressed, the
real project file."""

from __future__ import annotations

import csv
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from desktop.ui import dialogs, seen_keeper
from desktop.ui.main_window import MainWindow
from tests.gui_helpers import judge_all, open_window, press

pytestmark = pytest.mark.usefixtures("qapp")
CTRL = Qt.KeyboardModifier.ControlModifier
DIMS = ("precision", "correctness", "format", "overall")  # href-four; the judge: A, B, tie, A


def modes(project: Path) -> list[tuple[str, str, str, str]]:
    """(pair, dimension, verdict, mode) of every human verdict row, oldest first."""
    with sqlite3.connect(project) as conn:
        return conn.execute(
            "SELECT p.external_id, h.dimension, h.verdict, h.mode FROM human_verdicts h"
            " JOIN pairs p ON p.id = h.pair_id ORDER BY h.id"
        ).fetchall()


def judge_shown(win: MainWindow) -> list[str]:
    """The judge column, as the verdict panel shows it."""
    return [win.display.verdicts.shown(dim).judge for dim in DIMS]


def judged_in_blind_mode(qtbot, win: MainWindow) -> None:
    """Ctrl+B, then Ctrl+J on the pair shown: its four judge verdicts arrive hidden."""
    press(qtbot, win, Qt.Key.Key_B, CTRL)
    assert win.context.settings.blind
    press(qtbot, win, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: not win.judging.running, timeout=10_000)
    assert win.display.verdicts.judge_info.text().startswith("judge: test-model — AB: ok")
    assert judge_shown(win) == ["hidden"] * 4


def test_enter_never_takes_a_hidden_verdict(qtbot, window: MainWindow, project: Path) -> None:
    """Blind mode and Enter copied the hidden verdicts in as the reviewer's, mode blind, in a
    millisecond: the blind agreement figure read 100%."""
    judged_in_blind_mode(qtbot, window)
    press(qtbot, window, Qt.Key.Key_Return)
    assert modes(project) == []
    assert window.session.current.external_id == "p1"  # stays: nothing was decided
    assert judge_shown(window) == ["hidden"] * 4
    assert window.statusBar().currentMessage() == (
        "blind mode: Enter takes no hidden judge verdict; give yours with A, B or T"
        " (precision, correctness, format, overall)"
    )
    for key in (Qt.Key.Key_B, Qt.Key.Key_B, Qt.Key.Key_T, Qt.Key.Key_A):
        press(qtbot, window, key)  # each decided with its judge verdict unseen
    assert judge_shown(window) == ["A", "B", "tie", "A"]
    press(qtbot, window, Qt.Key.Key_Return)  # all decided: on to the next pair
    assert window.session.current.external_id == "p2"
    assert modes(project) == [
        ("p1", "precision", "B", "blind"),
        ("p1", "correctness", "B", "blind"),
        ("p1", "format", "tie", "blind"),
        ("p1", "overall", "A", "blind"),
    ]


def test_a_verdict_changed_after_the_reveal_is_not_blind(
    qtbot, window: MainWindow, project: Path
) -> None:
    judged_in_blind_mode(qtbot, window)
    press(qtbot, window, Qt.Key.Key_B)  # precision, unseen: blind; the judge's A shows
    assert judge_shown(window) == ["A", "hidden", "hidden", "hidden"]
    press(qtbot, window, Qt.Key.Key_Up)
    press(qtbot, window, Qt.Key.Key_A)  # changed to the judge's, now known
    press(qtbot, window, Qt.Key.Key_B)  # correctness, still unseen: blind
    press(qtbot, window, Qt.Key.Key_Up)
    press(qtbot, window, Qt.Key.Key_Backspace)  # withdrawn: its judge verdict stays shown
    assert judge_shown(window) == ["A", "B", "hidden", "hidden"]
    press(qtbot, window, Qt.Key.Key_T)  # given again, with the judge's B known
    assert modes(project) == [
        ("p1", "precision", "B", "blind"),
        ("p1", "precision", "A", "gui"),
        ("p1", "correctness", "B", "blind"),
        ("p1", "correctness", None, "gui"),
        ("p1", "correctness", "tie", "gui"),
    ]
    # A note rides on the verdict it is written beside, which keeps the mode it was given
    # with: format's, given unseen, even once blind mode is off.
    press(qtbot, window, Qt.Key.Key_T)  # format, unseen: blind
    press(qtbot, window, Qt.Key.Key_Up)
    press(qtbot, window, Qt.Key.Key_B, CTRL)
    press(qtbot, window, Qt.Key.Key_N)
    qtbot.keyClicks(window.display.verdicts.note, "both fine")
    qtbot.keyClick(window.display.verdicts.note, Qt.Key.Key_Return)
    assert modes(project)[-2:] == [("p1", "format", "tie", "blind")] * 2
    # The agreement figures by mode: no blind verdict left on p1's first two dimensions.
    QSettings("tiebreak", "tiebreak").setValue("agreement_shown", False)
    press(qtbot, window, Qt.Key.Key_S)
    panel = window.agreement.panel
    qtbot.waitUntil(lambda: panel.table.rowCount() == 4, timeout=10_000)
    panel.table.setCurrentCell(0, 0)
    qtbot.waitUntil(lambda: "decided: gui 100.0% of 1\n" in panel.matrix_title.text(), timeout=5000)


def test_leaving_blind_mode_shows_the_judge_for_good(
    qtbot, window: MainWindow, project: Path
) -> None:
    judged_in_blind_mode(qtbot, window)
    press(qtbot, window, Qt.Key.Key_B, CTRL)  # blind mode off: the judge shows
    assert judge_shown(window) == ["A", "B", "tie", "A"]
    press(qtbot, window, Qt.Key.Key_B, CTRL)  # on again: what was seen stays seen
    assert judge_shown(window) == ["A", "B", "tie", "A"]
    press(qtbot, window, Qt.Key.Key_A)
    press(qtbot, window, Qt.Key.Key_Return)  # the three left are on screen: taken
    assert window.session.current.external_id == "p2"
    # typed after the judge was seen: gui; the three Enter took: accepted, not the reviewer's
    assert [mode for *_, mode in modes(project)] == ["gui", "accepted", "accepted", "accepted"]


def test_the_raw_completion_shows_the_judge(
    qtbot, window: MainWindow, project: Path, monkeypatch
) -> None:
    import desktop.ui.dialogs as dialogs

    opened: list[str] = []
    monkeypatch.setattr(dialogs, "show_text", lambda parent, title, text: opened.append(text))
    judged_in_blind_mode(qtbot, window)
    window.viewing.show_raw_completion()  # the Raw completion button
    assert "A, B, tie, A" in opened[0]
    assert judge_shown(window) == ["A", "B", "tie", "A"]
    press(qtbot, window, Qt.Key.Key_B)
    assert modes(project) == [("p1", "precision", "B", "gui")]


# ---- what an earlier window showed (judge_seen, m007) --------------------------------
def seen_rows(project: Path) -> list[tuple[str, str, str, str]]:
    """(pair, dimension, judge, reviewer) of every record of a judge verdict shown."""
    with sqlite3.connect(project) as conn:
        return conn.execute(
            "SELECT p.external_id, s.dimension, s.judge_model, s.reviewer FROM judge_seen s"
            " JOIN pairs p ON p.id = s.pair_id ORDER BY p.id, s.dimension"
        ).fetchall()


def test_a_judge_seen_in_an_earlier_window_is_not_blind_after_a_restart(
    qtbot, project: Path, server, tmp_path: Path, monkeypatch
) -> None:
    """Ada judged every pair and read p1 with the judge's verdicts shown; she closed the
    window. The next day, in blind mode: p1's verdicts are not hidden (she saw them), and
    hers on p1 is stored and exported as gui; p2's, never shown, stays blind."""
    win = open_window(qtbot, project, server)
    judge_all(qtbot, win)
    assert judge_shown(win) == ["A", "B", "tie", "A"]  # p1, shown
    win.close()
    assert seen_rows(project) == sorted(
        ("p1", dim, "test-model", "ada") for dim in DIMS
    )  # written as the window closed: only the pair shown
    again = open_window(qtbot, project, server)
    press(qtbot, again, Qt.Key.Key_B, CTRL)  # blind mode
    assert again.session.current.external_id == "p1"  # where she left off
    assert judge_shown(again) == ["A", "B", "tie", "A"]  # seen yesterday: not hidden now
    press(qtbot, again, Qt.Key.Key_B)  # precision
    press(qtbot, again, Qt.Key.Key_J)
    assert judge_shown(again) == ["hidden"] * 4  # p2: never shown
    press(qtbot, again, Qt.Key.Key_B)
    assert modes(project) == [("p1", "precision", "B", "gui"), ("p2", "precision", "B", "blind")]
    out = tmp_path / "labelled.csv"
    monkeypatch.setattr(dialogs, "confirm_export", lambda parent, columns, default: out)
    press(qtbot, again, Qt.Key.Key_E, CTRL)
    qtbot.waitUntil(out.exists, timeout=10_000)
    rows = {r["external_id"]: r for r in csv.DictReader(out.open(encoding="utf-8"))}
    assert (rows["p1"]["precision_mode"], rows["p2"]["precision_mode"]) == ("gui", "blind")
    again.close()


def test_what_was_shown_is_written_while_the_window_is_open(
    qtbot, project: Path, server, monkeypatch
) -> None:
    """No verdict, no close: the record is written every few seconds, off the GUI thread,
    so a window that ends badly still leaves it."""
    monkeypatch.setattr(seen_keeper, "SAVE_EVERY_MS", 100)
    win = open_window(qtbot, project, server)
    press(qtbot, win, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: not win.judging.running, timeout=10_000)
    qtbot.waitUntil(lambda: len(seen_rows(project)) == 4, timeout=5000)
    qtbot.waitUntil(lambda: win.session.blind.unsaved() == [])  # its end, told
    press(qtbot, win, Qt.Key.Key_J)  # p2, not judged: nothing of the judge shown
    qtbot.wait(300)
    assert {pair for pair, *_ in seen_rows(project)} == {"p1"}
    win.context.runner.shutdown()


def test_a_read_only_project_keeps_what_was_shown_in_memory(project: Path) -> None:
    """The window's record is skipped where the project may not be written: nothing is
    written and nothing refused, and this window still knows what it showed."""
    from desktop.adapters.store import open_project
    from desktop.services.background import ProjectFile
    from desktop.services.blind_review import BlindReview

    with open_project(project, readonly=True) as store:
        review = BlindReview()
        review.reveal(1, "href-four", "ada", "test-model", DIMS)
        assert review.save_work(ProjectFile(project, store)) is None
        review.save(store)  # nothing to refuse: skipped
        assert review.was_seen(store, 1, "href-four", "ada", "overall")
        assert len(review.unsaved()) == 4
    assert seen_rows(project) == []
