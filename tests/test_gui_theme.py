"""The window light or dark as the system is (Qt's colour scheme, and its change while
the window is open; at the start, as it last was), its own colours readable in both; each
rendered to a PNG ($TIEBREAK_SHOTS, else the test's folder) to be looked at."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication

from desktop.adapters.store import open_project
from desktop.services.importing import import_file
from desktop.ui import diff_marks, search_marks, theme
from desktop.ui.main_window import MainWindow
from tests.gui_helpers import open_window, press
from tests.helpers import new_project, write_jsonl
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
CTRL = Qt.KeyboardModifier.ControlModifier
Role = QPalette.ColorRole


def contrast(a: QColor, b: QColor) -> float:
    """WCAG's contrast ratio of two colours (4.5 or more reads as body text)."""

    def luminance(c: QColor) -> float:
        def linear(v: float) -> float:
            return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4

        return 0.2126 * linear(c.redF()) + 0.7152 * linear(c.greenF()) + 0.0722 * linear(c.blueF())

    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.fixture(name="shown_pair")
def shown_pair_fixture(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    rows = [
        {
            "id": "t1",
            "instruction": "What does the trip cost? Answer with a [link](https://example.org).",
            "response_a": "The total is **€48.55**, see [the fares](https://example.org/fares)"
            " and `fares.csv`.\n\n- train: €30.05\n- bus: €18.50",
            "response_b": "The total is **€48.45**, see [the fares](https://example.org/fares)"
            " and `fares.csv`.\n\n- train: €30.05\n- bus: €18.40",
            "reference": "€48.55",
            "model_a": "model-a",
            "model_b": "model-b",
        }
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    return path


def shot(win: MainWindow, name: str, tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TIEBREAK_SHOTS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    assert win.grab().save(str(path))
    return path


def test_the_window_turns_dark_with_the_system_and_back(
    qtbot, shown_pair: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    app = QApplication.instance()
    hints = QGuiApplication.styleHints()
    theme.follow_system(app)
    win = open_window(qtbot, shown_pair, server)
    win.resize(1400, 860)
    press(qtbot, win, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: not win.judging.running, timeout=10_000)
    press(qtbot, win, Qt.Key.Key_D)  # the differences, marked
    press(qtbot, win, Qt.Key.Key_A)  # a verdict of the reviewer's, filled with the highlight
    qtbot.keyClicks(win.pairs.search, "fares")  # the search's marks
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_Return)
    view_a = win.display.pair_view.response_a.view
    qtbot.waitUntil(lambda: bool(view_a.marked("search")) and bool(view_a.marked("diff")))
    model_a = win.display.pair_view.response_a.generator
    QSettings("tiebreak", "tiebreak").setValue("agreement_shown", False)
    press(qtbot, win, Qt.Key.Key_S)  # the figures (their bars and heat map) beside it
    panel = win.agreement.panel
    qtbot.waitUntil(lambda: panel.table.rowCount() == 4, timeout=10_000)
    panel.table.setCurrentCell(0, 0)
    light = win.palette()
    assert not theme.is_dark(light)
    shot(win, "window-light.png", tmp_path)
    try:
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)  # the system turns dark
        qtbot.waitUntil(lambda: theme.is_dark(win.palette()))
        view = win.display.pair_view.response_a.view
        qtbot.waitUntil(lambda: theme.is_dark(view.palette()))
        dark = win.palette()
        for fore, back in ((Role.WindowText, Role.Window), (Role.Text, Role.Base),
                           (Role.Link, Role.Window), (Role.Link, Role.Base),
                           (Role.HighlightedText, Role.Highlight),
                           (Role.ButtonText, Role.Button)):  # fmt: skip
            assert contrast(dark.color(fore), dark.color(back)) >= 4.5, (fore, back)
        # A model's name (a style sheet's palette(link)) and the links in the pair's text
        # take the dark palette's link colour.
        assert max(contrast(c, dark.color(Role.Window)) for c in _colours(model_a)) >= 4.5
        qtbot.waitUntil(lambda: dark.color(Role.Link).name() in view.document().toHtml())
        dark_shot = shot(win, "window-dark.png", tmp_path)
        assert dark_shot.stat().st_size > 0
        assert QSettings("tiebreak", "tiebreak").value(theme.REMEMBERED) == "dark"
    finally:
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)  # and light again
    qtbot.waitUntil(lambda: not theme.is_dark(win.palette()))
    assert win.palette().color(Role.Window) == light.color(Role.Window)
    win.context.runner.shutdown()


def _colours(widget) -> list[QColor]:
    """Every colour a widget is drawn in."""
    image = widget.grab().toImage()
    seen = {image.pixel(x, y) for x in range(image.width()) for y in range(image.height())}
    return [QColor.fromRgb(rgb) for rgb in seen]


def test_a_window_that_was_dark_starts_dark_before_asking_the_system(qtbot) -> None:
    """Asking the system costs tens of milliseconds before the first frame: the scheme it
    had last time is used until the window asks, once on screen."""
    app = QApplication.instance()
    QSettings("tiebreak", "tiebreak").setValue(theme.REMEMBERED, "dark")
    try:
        theme.start(app)
        assert theme.is_dark(app.palette())
    finally:
        theme.apply(app, Qt.ColorScheme.Light)
    assert not theme.is_dark(app.palette())
    assert QSettings("tiebreak", "tiebreak").value(theme.REMEMBERED) == "light"


@pytest.mark.parametrize("marks", [search_marks._MARK, diff_marks._MARK])
def test_the_marks_carry_their_own_text_colour_readable_in_both(marks) -> None:
    """A mark sets its text's colour as well as its background, so neither palette's text
    colour (dark on light, light on dark) is drawn on it."""
    fore, back = marks.foreground().color(), marks.background().color()
    assert contrast(fore, back) >= 7
