"""Every keyboard action in one table: (action name, keys, menu, description).

Registered once with auto-repeat off, so holding a key never fires an action twice; the
same table fills the menus and the help overlay.
"""

from __future__ import annotations

SHORTCUTS: tuple[tuple[str, tuple[str, ...], str, str], ...] = (
    ("next_pair", ("J", "Ctrl+Down"), "View", "Next pair"),
    ("previous_pair", ("K", "Ctrl+Up"), "View", "Previous pair"),
    ("next_unreviewed", ("U",), "View", "Next pair without your verdict"),
    (
        "next_flagged",
        ("F",),
        "View",
        "Next flagged pair (parse failure, error, flip, disagreement)",
    ),
    ("next_in_queue", ("Q",), "View", "Next pair in the review queue (most worth a look)"),
    ("dimension_down", ("Down",), "Edit", "Next dimension"),
    ("dimension_up", ("Up",), "Edit", "Previous dimension"),
    ("verdict_a", ("A", "1"), "Edit", "Your verdict on the focused dimension: A"),
    ("verdict_b", ("B", "2"), "Edit", "Your verdict on the focused dimension: B"),
    ("verdict_tie", ("T", "3"), "Edit", "Your verdict on the focused dimension: tie"),
    ("verdict_clear", ("Backspace", "0"), "Edit", "Withdraw your verdict on the focused dimension"),
    (
        "accept_next",
        ("Return", "Enter"),
        "Edit",
        "Accept the judge's verdicts and go to the next pair",
    ),
    ("undo", ("Ctrl+Z",), "Edit", "Undo a verdict"),
    ("redo", ("Ctrl+Shift+Z", "Ctrl+Y"), "Edit", "Redo a verdict"),
    ("note", ("N",), "Edit", "Write a note on this pair"),
    ("judge_pair", ("Ctrl+J",), "Judge", "Judge this pair"),
    ("judge_all", ("Ctrl+Shift+J",), "Judge", "Judge all pairs not yet judged"),
    ("cancel_job", ("Ctrl+.",), "Judge", "Cancel the running job"),
    ("toggle_swap", ("Ctrl+W",), "Judge", "Judge both orders (position-bias check)"),
    ("toggle_raw", ("R",), "View", "Show raw text instead of markdown"),
    ("toggle_link", ("L",), "View", "Scroll A and B together"),
    ("toggle_blind", ("Ctrl+B",), "View", "Blind mode: hide the judge until you decide"),
    ("toggle_stats", ("S",), "View", "Agreement figures (judge vs reviewers)"),
    ("focus_judge", ("G",), "View", "Choose whose verdicts are shown (the judge picker)"),
    ("focus_search", ("Ctrl+F", "/"), "View", "Search the pairs"),
    ("new_project", ("Ctrl+N",), "File", "New project"),
    ("open_project", ("Ctrl+O",), "File", "Open project"),
    ("import_file", ("Ctrl+I",), "File", "Import pairs"),
    ("export_file", ("Ctrl+E",), "File", "Export CSV"),
    ("open_settings", ("Ctrl+,",), "File", "Settings"),
    ("quit", ("Ctrl+Q",), "File", "Quit"),
    ("help", ("F1", "?"), "Help", "Keyboard shortcuts"),
)


def help_text() -> str:
    lines = ["<table>"]
    for _, keys, _menu, description in SHORTCUTS:
        shown = " or ".join(f"<b>{k}</b>" for k in keys)
        lines.append(f"<tr><td>{shown}&nbsp;&nbsp;</td><td>{description}</td></tr>")
    lines.append("</table>")
    return "\n".join(lines)
