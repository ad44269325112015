"""Every keyboard action in one table: (action name, keys, menu, description).

The table fills the menus and the help overlay, in its order. Each part of the window binds
the actions it handles (``Shortcuts.bind``), and the window checks that every action in the
table is bound exactly once. Actions are registered with auto-repeat off, so holding a key
never fires an action twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

MENUS = ("File", "Edit", "View", "Judge", "Help")


class Shortcut(NamedTuple):
    name: str  # the action, bound by the part of the window that handles it
    keys: str  # the keys that trigger it, separated by spaces
    menu: str
    description: str  # its menu entry and its line in the help


_TABLE = (
    ("next_pair", "J Ctrl+Down", "View", "Next pair"),
    ("previous_pair", "K Ctrl+Up", "View", "Previous pair"),
    (
        "next_unreviewed",
        "U",
        "View",
        "Next pair without your verdict (pairs you skipped come after the others)",
    ),
    (
        "next_flagged",
        "F",
        "View",
        "Next flagged pair (parse failure, error, flip, disagreement, dispute)",
    ),
    (
        "next_in_queue",
        "Q",
        "View",
        "Next pair in the review queue (a drawn sample's pairs first; else disputes, then"
        " the pairs most worth a look)",
    ),
    ("draw_sample", "Ctrl+Shift+S", "View", "Draw a sample of pairs to review (Q walks it)"),
    ("dimension_down", "Down", "Edit", "Next dimension"),
    ("dimension_up", "Up", "Edit", "Previous dimension"),
    ("verdict_a", "A 1", "Edit", "Your verdict on the focused dimension: A"),
    ("verdict_b", "B 2", "Edit", "Your verdict on the focused dimension: B"),
    ("verdict_tie", "T 3", "Edit", "Your verdict on the focused dimension: tie"),
    ("verdict_bothbad", "X 4", "Edit", "Your verdict on the focused dimension: both bad (a tie)"),
    ("verdict_clear", "Backspace 0", "Edit", "Withdraw your verdict on the focused dimension"),
    (
        "accept_next",
        "Return Enter",
        "Edit",
        "Accept the judge's verdicts (recorded as accepted) and go to the next pair",
    ),
    ("skip_pair", "W", "Edit", "Skip this pair: decide later (not counted as reviewed)"),
    (
        "mark_broken",
        "Ctrl+Shift+B",
        "Edit",
        "Mark this pair broken, with its reason (out of every figure and export)",
    ),
    (
        "adjudicate",
        "V",
        "Edit",
        "Adjudicate: every reviewer's verdict side by side; A, B, T or X settles a dimension",
    ),
    ("undo", "Ctrl+Z", "Edit", "Undo a verdict or note"),
    ("redo", "Ctrl+Shift+Z Ctrl+Y", "Edit", "Redo a verdict or note"),
    ("note", "N", "Edit", "Write a note on the focused dimension (kept when you decide)"),
    ("judge_pair", "Ctrl+J", "Judge", "Judge this pair"),
    ("judge_all", "Ctrl+Shift+J", "Judge", "Judge all pairs not yet judged"),
    (
        "judge_jury",
        "Ctrl+Alt+J",
        "Judge",
        "Judge all pairs with a jury (several profiles, samples)",
    ),
    ("cancel_job", "Ctrl+.", "Judge", "Cancel the running job"),
    (
        "toggle_swap",
        "Ctrl+W",
        "Judge",
        "Both orders on or off for the next Ctrl+J and Ctrl+Shift+J (position-bias check)",
    ),
    ("scroll_down", "Space", "View", "Scroll the responses down a page"),
    ("scroll_up", "Shift+Space", "View", "Scroll the responses up a page"),
    ("next_turn", "]", "View", "Next turn of a conversation (unfolds it)"),
    ("previous_turn", "[", "View", "Previous turn of a conversation (unfolds it)"),
    ("toggle_history", "H", "View", "Unfold a conversation's other turns (history and after)"),
    ("next_step", ".", "View", "Next step of two trajectories (both sides at once)"),
    ("previous_step", ",", "View", "Previous step of two trajectories (both sides at once)"),
    (
        "unfold_step",
        "O",
        "View",
        "Unfold the step moved to: each tool call's arguments and result (else the steps on"
        " screen)",
    ),
    ("toggle_steps", "Shift+O", "View", "Unfold every step of two trajectories"),
    ("toggle_raw", "R", "View", "Show raw text instead of markdown"),
    ("toggle_link", "L", "View", "Scroll A and B together"),
    ("toggle_diff", "D", "View", "Mark the words that differ between A and B"),
    ("toggle_generators", "M", "View", "Hide the models that wrote A and B (always in blind mode)"),
    ("toggle_reasoning", "E", "View", "Show the judge's reasoning under its verdicts"),
    ("toggle_blind", "Ctrl+B", "View", "Blind mode: hide the judge until you decide"),
    ("toggle_guidance", "C", "View", "The rubric's guidance: what each dimension asks"),
    ("toggle_stats", "S", "View", "Agreement figures (judge vs reviewers)"),
    (
        "toggle_figures",
        "P",
        "View",
        "Figures as charts: win rates with PPI++, ratings, calibration, confusion",
    ),
    ("focus_judge", "G", "View", "Choose whose verdicts are shown (the judge picker)"),
    (
        "toggle_leaderboard",
        "Shift+M",
        "View",
        "Generators: stats --by model's table, with the LC win rate (AlpacaEval 2.0)",
    ),
    (
        "toggle_judges",
        "Shift+G",
        "View",
        "Which judge to trust: every judge and jury ranked against the reviewers or gold labels",
    ),
    ("focus_search", "Ctrl+F /", "View", "Search the pairs (Enter: the first match; Escape: back)"),
    ("go_to_pair", "Ctrl+G", "View", "Go to a pair by its # or its id"),
    ("font_larger", "Ctrl++ Ctrl+=", "View", "Larger text"),
    ("font_smaller", "Ctrl+-", "View", "Smaller text"),
    ("font_reset", "Ctrl+0", "View", "Text at the system's size"),
    ("new_project", "Ctrl+N", "File", "New project"),
    ("open_project", "Ctrl+O", "File", "Open project"),
    ("import_file", "Ctrl+I", "File", "Import pairs"),
    ("import_runs", "Ctrl+Shift+I", "File", "Import two Inspect AI runs of one task (two logs)"),
    ("export_file", "Ctrl+E", "File", "Export CSV"),
    ("open_settings", "Ctrl+,", "File", "Settings"),
    ("quit", "Ctrl+Q", "File", "Quit"),
    ("help", "F1 ?", "Help", "Keyboard shortcuts"),
)
SHORTCUTS = tuple(Shortcut(*row) for row in _TABLE)

# Under the table in F1 (README says the same under its copy of the table).
HELP_NOTES = (
    "A, B, T and X move to the next dimension; Down on the last one wraps to the first (and"
    " Up on the first to the last). In blind mode, Enter takes only the judge's verdicts on"
    " screen. Ctrl+W is a switch, not a job: while it is on, Ctrl+J and Ctrl+Shift+J ask"
    " the judge in both orders. PageDown and PageUp scroll a response you clicked in;"
    " Space and Shift+Space scroll the responses from anywhere but a text field. Enter or"
    " Escape in the search box gives the keys back to the list, and so does choosing from"
    " a list beside it."
)


def key_names(shortcut: Shortcut) -> list[str]:
    """Its keys as a person reads them: Qt's "Return" is the Enter key of the main block,
    "Enter" the keypad's, and a reader knows both as Enter."""
    names = ["Enter" if key == "Return" else key for key in shortcut.keys.split()]
    return list(dict.fromkeys(names))


def markdown_table() -> str:
    """README's key table, made from this one (tests/test_readme_keys.py holds README to
    it, and rewrites it when run as a script)."""
    rows = ["| keys | action | menu |", "| --- | --- | --- |"]
    for shortcut in SHORTCUTS:
        keys = " or ".join(key_names(shortcut))
        rows.append(f"| {keys} | {shortcut.description} | {shortcut.menu} |")
    return "\n".join(rows) + "\n"


def help_text() -> str:
    lines = ["<table>"]
    for shortcut in SHORTCUTS:
        shown = " or ".join(f"<b>{k}</b>" for k in key_names(shortcut))
        lines.append(f"<tr><td>{shown}&nbsp;&nbsp;</td><td>{shortcut.description}</td></tr>")
    lines.append("</table>")
    lines.append(f"<p>{HELP_NOTES}</p>")
    return "\n".join(lines)


class Shortcuts:
    """The table's actions, made once for the window and put in its menus. An action is
    checkable when its name starts with ``toggle_``; the part that binds it is handed its
    new state."""

    def __init__(self, window: QMainWindow) -> None:
        bar = window.menuBar()
        self.menus = {name: bar.addMenu(name) for name in MENUS}
        self.recent_menu: QMenu = self.menus["File"].addMenu("Recent projects")
        self._actions: dict[str, QAction] = {}
        self._bound: set[str] = set()
        for shortcut in SHORTCUTS:
            action = QAction(shortcut.description, window)
            action.setShortcuts([QKeySequence(k) for k in shortcut.keys.split()])
            action.setAutoRepeat(False)
            action.setCheckable(shortcut.name.startswith("toggle_"))
            self.menus[shortcut.menu].addAction(action)
            self._actions[shortcut.name] = action

    def __getitem__(self, name: str) -> QAction:
        return self._actions[name]

    def all(self) -> list[QAction]:
        return list(self._actions.values())

    def bind(self, name: str, handler: Callable[[], object]) -> QAction:
        """Run ``handler`` when the action ``name`` is triggered."""
        action = self._claim(name)
        action.triggered.connect(lambda _checked=False: handler())
        return action

    def bind_toggle(
        self, name: str, handler: Callable[[bool], None], *, checked: bool = False
    ) -> QAction:
        """Run ``handler(checked)`` when the checkable action ``name`` is triggered."""
        action = self._claim(name)
        action.setChecked(checked)
        action.triggered.connect(handler)
        return action

    def check_all_bound(self) -> None:
        """Raise for an action in the table that no part of the window handles."""
        unbound = [name for name in self._actions if name not in self._bound]
        if unbound:
            raise LookupError(f"no part of the window handles {', '.join(unbound)}")

    def _claim(self, name: str) -> QAction:
        if name not in self._actions:
            raise LookupError(f"{name} is not in SHORTCUTS")
        if name in self._bound:
            raise LookupError(f"{name} is bound twice")
        self._bound.add(name)
        return self._actions[name]
