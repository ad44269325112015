"""Ctrl+Shift+J on a project above the Settings threshold asks before anything is sent
(issue 30 item 5): the question says how many requests, and what they cost where the
profile has prices; Esc, Enter (No is the default) and No start nothing, Yes starts it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop.adapters.profiles_file import save_profile
from desktop.adapters.store import open_project
from desktop.domain.profiles import ModelProfile
from desktop.services.app_settings import AppSettings
from desktop.services.importing import import_file
from desktop.services.session import ReviewSession
from desktop.ui.main_window import MainWindow
from tests.gui_helpers import _pairs, completions, press
from tests.helpers import new_project, write_jsonl

PAIRS = 210  # above the 200 asked about by default
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def big_project(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", _pairs(PAIRS)))
    return path


def window(qtbot, project: Path, profile: ModelProfile, **settings) -> MainWindow:
    save_profile(profile)
    chosen = AppSettings(reviewer="ada", profile=profile.name, **settings)
    session = ReviewSession.open(project, chosen)
    session.choose_rubric("href-four")
    win = MainWindow(session, chosen)
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    qtbot.waitExposed(win)
    qtbot.waitUntil(win.isActiveWindow)
    win.pairs.focus()
    return win


def asked(qtbot, win: MainWindow) -> QMessageBox:
    """Ctrl+Shift+J, and the question it opens (before any request is sent)."""
    press(qtbot, win, Qt.Key.Key_J, CTRL_SHIFT)
    qtbot.waitUntil(
        lambda: isinstance(QApplication.activeModalWidget(), QMessageBox), timeout=10_000
    )
    box = QApplication.activeModalWidget()
    assert isinstance(box, QMessageBox) and box.isVisible()
    return box


def test_ctrl_shift_j_asks_first_and_only_yes_starts(qtbot, tmp_path, server) -> None:
    test = ModelProfile(name="test", model="test-model", base_url=server.base_url, needs_key=False)
    win = window(qtbot, big_project(tmp_path), test)
    try:
        closes = (
            lambda box: qtbot.keyClick(box, Qt.Key.Key_Escape),
            lambda box: qtbot.keyClick(box, Qt.Key.Key_Return),  # No is the default button
            lambda box: box.button(QMessageBox.StandardButton.No).click(),
        )
        for close in closes:
            box = asked(qtbot, win)
            assert f"This run will send {PAIRS} requests to test-model ({PAIRS} pairs" in box.text()
            assert "Runs above 200 requests are asked about first" in box.text()
            close(box)
            qtbot.waitUntil(lambda b=box: not b.isVisible(), timeout=5000)
            qtbot.wait(300)
            assert not win.judging.running and completions(server) == []
            assert "nothing was sent" in win.statusBar().currentMessage()
        box = asked(qtbot, win)
        box.button(QMessageBox.StandardButton.Yes).click()
        qtbot.waitUntil(lambda: win.judging.job is not None, timeout=5000)
        qtbot.waitUntil(lambda: not win.judging.running, timeout=60_000)
        assert len(completions(server)) == PAIRS
    finally:
        win.context.runner.shutdown()


def test_a_priced_profile_is_told_the_cost_and_a_higher_threshold_asks_nothing(
    qtbot, tmp_path, server
) -> None:
    paid = ModelProfile(
        name="paid", model="test-model", base_url=server.base_url, needs_key=False,
        price_in=3.0, price_out=15.0,
    )  # fmt: skip
    project = big_project(tmp_path)
    win = window(qtbot, project, paid)
    try:
        box = asked(qtbot, win)
        assert "at the profile's prices" in box.text() and "about $" in box.text()
        qtbot.keyClick(box, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: not box.isVisible(), timeout=5000)
    finally:
        win.context.runner.shutdown()
        win.close()
    win = window(qtbot, project, paid, ask_above=PAIRS)
    try:
        press(qtbot, win, Qt.Key.Key_J, CTRL_SHIFT)
        qtbot.waitUntil(lambda: win.judging.job is not None, timeout=10_000)
        assert QApplication.activeModalWidget() is None
        qtbot.waitUntil(lambda: not win.judging.running, timeout=60_000)
        assert len(completions(server)) == PAIRS
    finally:
        win.context.runner.shutdown()


def test_settings_keep_the_threshold_and_the_profile_prices(qtbot, window, server) -> None:
    from PySide6.QtWidgets import QDialogButtonBox

    from desktop.adapters.profiles_file import get_profile
    from desktop.services.app_settings import load_settings
    from desktop.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(window, window.session)
    qtbot.addWidget(dialog)
    assert dialog.ask_above.value() == 200
    dialog.ask_above.setValue(0)
    assert dialog.ask_above.text() == "before every run"
    dialog.price_in.setText("2.5")
    dialog.price_out.setText("$10")
    dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save).click()
    assert load_settings().ask_above == 0 and window.session.settings.ask_above == 0
    saved = get_profile("test")
    assert (saved.price_in, saved.price_out) == (2.5, 10.0)
    # 0: even Ctrl+J on one pair is asked about first.
    press(qtbot, window, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), QMessageBox))
    box = QApplication.activeModalWidget()
    assert "This run will send 1 request to test-model (1 pair, one order)" in box.text()
    qtbot.keyClick(box, Qt.Key.Key_Escape)
    qtbot.wait(300)
    assert completions(server) == []
