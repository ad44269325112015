"""The Judges dock (Shift+G): every judge and jury of the rubric on screen ranked against
the reviewers (or the gold labels), the same table as `tiebreak judges --against`, computed
off the GUI thread and following a verdict and the reference chosen. The project is
test_report's: 40 pairs judged by two profiles kept as a jury, half of them
reviewed by ada, one judge named like an attack."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.cli.main import main
from desktop.domain.shown_text import shown
from desktop.domain.verdicts import Verdict
from desktop.services.judge_selection_columns import COLUMNS
from desktop.services.review_edits import ReviewState
from desktop.ui.judges_dock import JudgesDock
from desktop.ui.main_window import MainWindow
from tests.gui_helpers import press
from tests.test_figures_dock import window  # noqa: F401  (the fixture)
from tests.test_report import EVIL, RUBRIC, judged  # noqa: F401  (the fixture)

SHIFT = Qt.KeyboardModifier.ShiftModifier


def _cli(project: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    capsys.readouterr()
    args = ["judges", str(project), "--rubric", RUBRIC, "--against", "reviewers", "--json"]
    assert main([*args, *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _interval(e: dict) -> str:
    if e["value"] is None:
        return "–"
    return f"{100 * e['value']:.1f} [{100 * e['low']:.1f}, {100 * e['high']:.1f}]"


def _cells(dock: JudgesDock) -> list[list[str]]:
    assert dock.panel is not None
    model = dock.panel.model
    return [
        [model.data(model.index(r, c)) for c in range(model.columnCount())]
        for r in range(model.rowCount())
    ]


def _column(name: str) -> int:
    return [c[0] for c in COLUMNS].index(name)


def test_the_judges_dock_ranks_the_judges_as_the_command_line_does(
    qtbot,
    window: MainWindow,  # noqa: F811
    judged: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    dock = window.dock(JudgesDock)
    press(qtbot, window, Qt.Key.Key_G, SHIFT)
    assert dock.is_open() and dock.action.isChecked()
    qtbot.waitUntil(lambda: len(_cells(dock)) > 0, timeout=30_000)
    expected = _cli(judged, capsys)["table"]["rows"]
    name, use, jb = _column("judge"), _column("orders"), _column("JudgeBench")
    assert [(r[name], r[use], r[jb]) for r in _cells(dock)] == [
        (shown(r["name"]), r["use"], _interval(r["judgebench"])) for r in expected
    ]
    # Both judges (each asked in one order) and their jury: three rows, one best.
    assert len(expected) == 3 and [r[0] for r in _cells(dock)].count("best") == 1
    assert shown(EVIL) in {r[name] for r in _cells(dock)}
    heading = dock.panel.heading.text()
    assert "against reviewers" in heading and "1,000 paired resamples" in heading
    pairs = _column("pairs")
    before = {int(r[pairs]) for r in _cells(dock)}
    assert before == {20}  # ada reviewed every other pair of 40

    # A verdict on a pair not yet reviewed (p2): the table follows once edits pause.
    row = next(
        r for r in range(window.pairs.model.rowCount())
        if window.pairs.model.row_at(r).external_id == "p2"
    )  # fmt: skip
    window.editing.apply_state(
        window.pairs.model.row_at(row).id, "overall", ReviewState(Verdict.B, mode="gui")
    )
    qtbot.waitUntil(lambda: {int(r[pairs]) for r in _cells(dock)} == {21}, timeout=30_000)
    after = _cli(judged, capsys)["table"]["rows"]
    assert [r[jb] for r in _cells(dock)] == [_interval(r["judgebench"]) for r in after]

    # Against gold labels: this project has none, and the dock says so in one line.
    assert dock.panel is not None
    dock.panel.against.setCurrentIndex(dock.panel.against.findData("gold"))
    qtbot.waitUntil(lambda: "no pair has a gold label" in dock.panel.heading.text())
    assert _cells(dock) == []

    # Shift+G again hides it.
    press(qtbot, window, Qt.Key.Key_G, SHIFT)
    assert not dock.is_open() and not dock.action.isChecked()


def test_the_judges_dock_is_not_loaded_until_shown(window: MainWindow) -> None:  # noqa: F811
    """The window opens without the table's code: the panel is built on first show."""
    dock = window.dock(JudgesDock)
    assert dock.dock is None and dock.panel is None
