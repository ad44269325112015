"""The worked example of docs/ARCHITECTURE.md, "How to add a dock", run as written: its
module added to the window's docks and its row to the shortcuts, and nothing else, it
opens on its key and follows the pair shown (J, K) and the verdicts written on it (A).
The real window, keys pressed, a real project file."""

from __future__ import annotations

import ast
import re
import types
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.ui import docks, shortcuts
from tests.gui_helpers import open_window, press
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
ARCHITECTURE = Path(__file__).resolve().parents[1] / "docs" / "ARCHITECTURE.md"
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def recipe_blocks() -> list[str]:
    """The fenced python blocks of the section on adding a dock, in order."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("\n## How to add a dock\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```python\n(.*?)^```$", section, flags=re.DOTALL | re.MULTILINE)


def example_dock() -> tuple[type[docks.Dock], shortcuts.Shortcut]:
    module_text, row_text = recipe_blocks()
    module = types.ModuleType("reviewers_dock")
    exec(compile(module_text, f"{ARCHITECTURE}: the example dock", "exec"), module.__dict__)
    row = shortcuts.Shortcut(*ast.literal_eval(row_text)[0])
    return module.ReviewersDock, row


def test_the_recipe_holds_a_module_and_its_row_of_a_key_no_other_action_has() -> None:
    dock, row = example_dock()
    assert set(vars(dock)) >= {"bind", "is_open", "show"}
    taken = {key for shortcut in shortcuts.SHORTCUTS for key in shortcut.keys.split()}
    assert row.name.startswith("toggle_") and row.name not in {s.name for s in shortcuts.SHORTCUTS}
    assert row.keys == "Ctrl+Shift+R" and not set(row.keys.split()) & taken


def test_the_example_dock_follows_the_pair_shown_and_its_verdicts(
    qtbot, project: Path, server: OpenAIServer, monkeypatch
) -> None:
    dock_class, row = example_dock()
    monkeypatch.setattr(docks, "DOCKS", (*docks.DOCKS, dock_class))
    monkeypatch.setattr(shortcuts, "SHORTCUTS", (*shortcuts.SHORTCUTS, row))
    win = open_window(qtbot, project, server)
    dock = win.dock(dock_class)
    assert not dock.is_open()
    press(qtbot, win, Qt.Key.Key_R, CTRL_SHIFT)
    assert dock.is_open() and win.shortcuts[row.name].isChecked()
    qtbot.waitUntil(lambda: dock.label.text() == "#1: nobody yet", timeout=5000)
    press(qtbot, win, Qt.Key.Key_A)  # ada's verdict on the first dimension
    qtbot.waitUntil(lambda: dock.label.text() == "#1: ada (precision)", timeout=5000)
    press(qtbot, win, Qt.Key.Key_J)
    qtbot.waitUntil(lambda: dock.label.text() == "#2: nobody yet", timeout=5000)
    press(qtbot, win, Qt.Key.Key_K)
    qtbot.waitUntil(lambda: dock.label.text() == "#1: ada (precision)", timeout=5000)
    press(qtbot, win, Qt.Key.Key_R, CTRL_SHIFT)
    assert not dock.is_open()
    win.context.runner.shutdown()
    win.close()
