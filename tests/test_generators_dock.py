"""The Generators dock (Shift+M): `tiebreak stats --by model`'s table for the rubric and
judge on screen, with AlpacaEval 2.0's length-controlled win rate, computed off the GUI
thread and following a verdict. The project: claude-2.1's AlpacaEval annotations
(805 pairs against gpt4_1106_preview, weighted_alpaca_eval_gpt4_turbo's preferences)."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from desktop.cli.main import main
from desktop.domain.verdicts import Verdict
from desktop.services.app_settings import AppSettings
from desktop.services.review_edits import ReviewState
from desktop.services.session import ReviewSession
from desktop.ui.generators_dock import GeneratorsDock
from desktop.ui.main_window import MainWindow
from tests.gui_helpers import press, save_render
from tests.helpers import new_project, tiebreak
from tests.test_length_controlled import CLAUDE, gamed_file

SHIFT = Qt.KeyboardModifier.ShiftModifier
RUBRIC = "alpaca-eval"
JUDGE = "weighted_alpaca_eval_gpt4_turbo"


@pytest.fixture
def alpaca(tmp_path: Path) -> Path:
    if not CLAUDE.exists():
        pytest.skip(f"no {CLAUDE}")
    path = new_project(tmp_path)
    assert tiebreak("import", path, CLAUDE).returncode == 0
    return path


def _window(qtbot, project: Path, settings: AppSettings) -> MainWindow:
    session = ReviewSession.open(project, settings)
    session.choose_rubric(RUBRIC)
    session.choose_judge(JUDGE)
    win = MainWindow(session, settings)
    qtbot.addWidget(win)
    win.resize(1400, 800)
    win.show()
    win.activateWindow()
    qtbot.waitExposed(win)
    qtbot.waitUntil(win.isActiveWindow)
    win.pairs.focus()
    return win


def _cli(project: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    capsys.readouterr()
    args = ["stats", str(project), "--by", "model", "--rubric", RUBRIC, "--json", *extra]
    assert main(args) == 0
    (board,) = json.loads(capsys.readouterr().out)["rubrics"]
    return board


def _table(dock: GeneratorsDock) -> list[dict[str, str]]:
    """Each row's cells by the command's column heading."""
    assert dock.panel is not None
    model = dock.panel.model
    heads = [model.headerData(c, Qt.Orientation.Horizontal, 0) for c in range(model.columnCount())]
    return [
        {str(h): str(model.data(model.index(r, c))) for c, h in enumerate(heads)}
        for r in range(model.rowCount())
    ]


def _save(dock: GeneratorsDock, name: str) -> None:
    assert dock.panel is not None
    save_render(dock.panel, name)


def test_shift_m_shows_stats_by_model_with_the_lc_win_rate(
    qtbot, alpaca: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    window = _window(qtbot, alpaca, AppSettings(reviewer="ada"))
    try:
        dock = window.dock(GeneratorsDock)
        assert dock.dock is None  # nothing built until shown
        press(qtbot, window, Qt.Key.Key_M, SHIFT)
        assert dock.is_open() and dock.action.isChecked()
        qtbot.waitUntil(lambda: len(_table(dock)) == 1, timeout=60_000)
        (expected,) = _cli(alpaca, capsys)["rows"]
        (row,) = _table(dock)
        assert (row["generator"], row["baseline"]) == ("claude-2.1", "gpt4_1106_preview")
        assert row["win rate"] == f"{expected['win_rate']:.4f}" == "15.7335"
        assert row["LC win rate"] == f"{expected['lc_win_rate']:.4f}"
        assert 20 < float(row["LC win rate"]) < 50  # claude-2.1 writes shorter: LC lifts it
        assert row["LC std err"] == "0.0000" and row["n"] == "805"
        assert dock.panel is not None
        notes = dock.panel.notes.text()
        assert "variant length_controlled_minimal" in notes and "std error is 0" in notes
        assert "PPI++" not in dock.panel.three_ways.text()  # no reviewer yet
        _save(dock, "generators_dock.png")

        # A reviewer's verdict: B's win rate by the humans and PPI++ join the row, as the
        # command line prints them once the verdict is saved.
        for i, verdict in enumerate((Verdict.B, Verdict.A, Verdict.A, Verdict.B, Verdict.A)):
            pair = window.pairs.model.row_at(i)
            window.editing.apply_state(pair.id, "overall", ReviewState(verdict, mode="gui"))
        qtbot.waitUntil(lambda: any("PPI++" in h for h in _table(dock)[0]), timeout=60_000)
        (after,) = _cli(alpaca, capsys)["rows"]
        (row,) = _table(dock)
        humans = after["win_rates"]["humans"]
        assert humans is not None and humans["n"] == 5
        assert f"{100 * humans['estimate']:.1f}" in row["humans"]
        ppi = after["win_rates"]["combined"]
        assert f"{100 * ppi['estimate']:.1f}" in row["PPI++"]
        assert row["LC win rate"] == f"{after['lc_win_rate']:.4f}"
        assert "PPI++" in dock.panel.three_ways.text() and dock.panel.three_ways.isVisible()
        _save(dock, "generators_dock_reviewed.png")

        press(qtbot, window, Qt.Key.Key_M, SHIFT)
        assert not dock.is_open() and not dock.action.isChecked()
    finally:
        window.context.runner.shutdown()


def test_a_df_gamed_folder_in_the_settings_gives_the_leaderboards_variant(
    qtbot, tmp_path: Path, alpaca: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gamed = gamed_file(tmp_path / "lc", 805)
    window = _window(qtbot, alpaca, AppSettings(reviewer="ada", lc_files=str(gamed)))
    try:
        dock = window.dock(GeneratorsDock)
        press(qtbot, window, Qt.Key.Key_M, SHIFT)
        qtbot.waitUntil(lambda: len(_table(dock)) == 1, timeout=60_000)
        v1 = ("--lc", "length_controlled_v1", "--lc-files", str(gamed))
        (expected,) = _cli(alpaca, capsys, *v1)["rows"]
        (row,) = _table(dock)
        assert row["LC win rate"] == f"{expected['lc_win_rate']:.4f}"
        assert row["LC std err"] == f"{expected['lc_standard_error']:.4f}" != "0.0000"
        assert dock.panel is not None
        assert "variant length_controlled_v1" in dock.panel.notes.text()
    finally:
        window.context.runner.shutdown()


def test_the_df_gamed_folder_is_set_in_the_settings_dialog(
    qtbot, tmp_path: Path, alpaca: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import desktop.ui.dialogs as dialogs
    from desktop.ui.settings_dialog import SettingsDialog

    warnings: list[str] = []
    monkeypatch.setattr(dialogs, "warn", lambda parent, message: warnings.append(message))
    window = _window(qtbot, alpaca, AppSettings(reviewer="ada"))
    try:
        dock = window.dock(GeneratorsDock)
        press(qtbot, window, Qt.Key.Key_M, SHIFT)
        qtbot.waitUntil(lambda: len(_table(dock)) == 1, timeout=60_000)
        assert dock.panel is not None
        assert "variant length_controlled_minimal" in dock.panel.notes.text()
        save = QDialogButtonBox.StandardButton.Save
        dialog = SettingsDialog(window, window.session)
        qtbot.addWidget(dialog)
        dialog.lc_files.setText(str(tmp_path))  # no df_gamed.csv there: refused, in one line
        dialog.findChild(QDialogButtonBox).button(save).click()
        assert warnings == [f"AlpacaEval df_gamed.csv folder: no df_gamed.csv in {tmp_path}"]
        assert window.context.settings.lc_files == ""
        gamed = gamed_file(tmp_path / "lc", 805)
        dialog.lc_files.setText(str(gamed))
        dialog.findChild(QDialogButtonBox).button(save).click()
        assert window.context.settings.lc_files == str(gamed)
        window.files.settingsSaved.emit()  # what the window's Settings action does on Save
        qtbot.waitUntil(
            lambda: "variant length_controlled_v1" in dock.panel.notes.text(), timeout=60_000
        )
    finally:
        window.context.runner.shutdown()


def test_many_generators_in_the_commands_order_each_dash_with_its_why(
    qtbot, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Four generators against one baseline: the rows in `stats --by model`'s order with its
    figures; the two without an LC win rate show a dash, the line under the table and the
    dash's tooltip saying why."""
    from tests.test_length_controlled import _synthetic

    records, _ = _synthetic(120)
    data = tmp_path / "many.json"
    data.write_text(json.dumps(records), encoding="utf-8")
    path = new_project(tmp_path)
    assert tiebreak("import", path, data).returncode == 0
    settings = AppSettings(reviewer="ada")
    session = ReviewSession.open(path, settings)
    session.choose_rubric(RUBRIC)
    session.choose_judge("weighted_judge")
    window = MainWindow(session, settings)
    qtbot.addWidget(window)
    window.resize(1400, 800)
    window.show()
    qtbot.waitExposed(window)
    try:
        dock = window.dock(GeneratorsDock)
        dock.show(True)
        qtbot.waitUntil(lambda: len(_table(dock)) == 4, timeout=60_000)
        expected = _cli(path, capsys)["rows"]
        got = _table(dock)
        assert [(r["generator"], r["win rate"], r["LC win rate"]) for r in got] == [
            (e["generator"], f"{e['win_rate']:.4f}", "–" if e["lc_win_rate"] is None else
             f"{e['lc_win_rate']:.4f}")
            for e in expected
        ]  # fmt: skip
        dashed = [e for e in expected if e["lc_reason"] is not None]
        assert {e["generator"] for e in dashed} == {"short", "shuffled"}
        assert dock.panel is not None
        model = dock.panel.model
        lc = [model.headerData(c, Qt.Orientation.Horizontal, 0) for c in range(model.columnCount())]
        for e in dashed:
            line = f"  – {e['generator']} (overall): {e['lc_reason']}"
            assert line in dock.panel.notes.text().split("\n")
            at = [r["generator"] for r in got].index(e["generator"])
            tip = model.data(model.index(at, lc.index("LC win rate")), Qt.ItemDataRole.ToolTipRole)
            assert html.escape(e["lc_reason"], quote=False) in str(tip)  # shown literally
        _save(dock, "generators_dock_many.png")
    finally:
        window.context.runner.shutdown()
