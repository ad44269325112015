"""README's key table is made from the window's shortcut table (desktop/ui/shortcuts.py),
so a key added, changed or removed there shows in README or fails here.

Run as a script to rewrite README's table: ``.venv/bin/python tests/test_readme_keys.py``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
START = "<!-- keys: made from desktop/ui/shortcuts.py by tests/test_readme_keys.py -->\n"
END = "<!-- end of keys -->\n"
_BLOCK = re.compile(re.escape(START) + r"(.*?)" + re.escape(END), re.S)


def _table_in(text: str) -> str:
    found = _BLOCK.findall(text)
    assert len(found) == 1, f"README.md must hold one key table between {START!r} and {END!r}"
    return found[0]


def test_readme_key_table_is_the_window_s() -> None:
    from desktop.ui.shortcuts import markdown_table

    shown = _table_in(README.read_text(encoding="utf-8"))
    assert shown == markdown_table(), (
        "README's key table differs from desktop/ui/shortcuts.py: "
        "run .venv/bin/python tests/test_readme_keys.py to rewrite it"
    )


def test_every_key_is_in_readme_once() -> None:
    """The table lists each key of each shortcut, and no key twice."""
    from desktop.ui.shortcuts import SHORTCUTS, key_names

    keys = [key for shortcut in SHORTCUTS for key in key_names(shortcut)]
    assert len(keys) == len(set(keys)), keys
    rows = _table_in(README.read_text(encoding="utf-8")).splitlines()[2:]
    for shortcut, row in zip(SHORTCUTS, rows, strict=True):
        assert row.split(" | ")[0].lstrip("| ").split(" or ") == key_names(shortcut)


def _rewrite() -> None:
    from desktop.ui.shortcuts import markdown_table

    text = README.read_text(encoding="utf-8")
    _table_in(text)
    README.write_text(_BLOCK.sub(lambda _m: START + markdown_table() + END, text), "utf-8")


if __name__ == "__main__":
    sys.path.insert(0, str(README.parent))
    _rewrite()
