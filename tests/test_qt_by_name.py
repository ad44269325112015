"""Settings given by name or number (desktop/ui/qt_by_name.py) do what the Qt enums would."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QSplitter

from desktop.ui.main_window import MainWindow
from desktop.ui.pair_list import HEADERS
from desktop.ui.qt_by_name import ALIGN_CENTER, DISPLAY_ROLE, TOOLTIP_ROLE, set_properties
from desktop.ui.verdict_panel import VerdictButton
from tests.test_gui import open_window, project, server  # noqa: F401  (fixtures)

pytestmark = pytest.mark.usefixtures("qapp")


def test_the_numbers_are_qts_own() -> None:
    assert Qt.ItemDataRole.DisplayRole.value == DISPLAY_ROLE
    assert Qt.ItemDataRole.ToolTipRole.value == TOOLTIP_ROLE
    assert Qt.AlignmentFlag.AlignCenter.value == ALIGN_CENTER


def test_a_property_is_set_by_its_key_and_a_misspelling_raises() -> None:
    splitter = QSplitter()
    set_properties(splitter, orientation="Vertical")
    assert splitter.orientation() == Qt.Orientation.Vertical
    with pytest.raises(ValueError, match="orientation='Verticle'"):
        set_properties(splitter, orientation="Verticle")
    with pytest.raises(ValueError, match="orientaton"):
        set_properties(splitter, orientaton="Horizontal")
    assert splitter.orientation() == Qt.Orientation.Vertical


def test_the_window_is_laid_out_as_with_the_enums(qtbot, project, server) -> None:  # noqa: F811
    win: MainWindow = open_window(qtbot, project, server)
    try:
        header = win.table.horizontalHeader()
        titles = [
            header.model().headerData(i, Qt.Orientation.Horizontal) for i in range(header.count())
        ]
        assert titles == list(HEADERS)
        assert header.count() == win.model.columnCount()
        assert win.model.data(win.model.index(0, 1)) == "p1"
        assert "judged" in win.model.data(win.model.index(0, 3), Qt.ItemDataRole.ToolTipRole)
        assert win.model.data(QModelIndex()) is None

        view = win.pair_view
        assert view.vertical.orientation() == Qt.Orientation.Vertical
        assert win.splitter.orientation() == Qt.Orientation.Horizontal
        assert win.splitter.widget(1).orientation() == Qt.Orientation.Vertical
        assert view.empty.alignment() == Qt.AlignmentFlag.AlignCenter
        assert win.verdicts.judge_info.textInteractionFlags() == (
            Qt.TextInteractionFlag.TextSelectableByMouse
        )
        buttons = win.verdicts.findChildren(VerdictButton)
        assert buttons and all(b.focusPolicy() == Qt.FocusPolicy.NoFocus for b in buttons)
        assert {a.shortcutContext() for a in win.actions_by_name.values()} == {
            Qt.ShortcutContext.WindowShortcut  # shortcuts act in the whole window, not a pane
        }
    finally:
        win.runner.shutdown()
