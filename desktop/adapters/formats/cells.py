"""Spreadsheet-safe cells: text that a spreadsheet would run as a formula is defused.

A spreadsheet reads a cell as a formula when it starts with ``= + - @``, a tab or a
carriage return (OWASP's CSV-injection list). Such a cell is prefixed with a single quote,
which spreadsheets show as text. Leading spaces and line feeds are looked through, for a
spreadsheet that trims them on import; a line feed before ordinary text (a common start of
a model's answer) is left alone. Plain numbers ("-5", "+1.5e3") stay numbers: no formula
can hide in one.
"""

from __future__ import annotations

import re

_TRIGGERS = frozenset("=+-@\t\r")
_LOOKED_THROUGH = " \n"
_FIRST = _TRIGGERS | frozenset(_LOOKED_THROUGH)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def safe_cell(text: str) -> str:
    """``text``, or ``text`` behind a quote if a spreadsheet would read it as a formula.
    Returns the very same object when nothing needs guarding."""
    if not text or text[0] not in _FIRST:
        return text
    stripped = text.lstrip(_LOOKED_THROUGH)
    if not stripped or stripped[0] not in _TRIGGERS:
        return text
    if stripped[0] in "+-" and _NUMBER.fullmatch(stripped):
        return text
    return "'" + text


def unescape(cell: str) -> str:
    """The text a CSV cell came from: drop the quote ``safe_cell`` put before it.

    Used only for pairs the project lacks. A text that itself began with a quote before a
    formula character (``'=x``) is written unchanged and comes back as ``=x``: the one
    case a CSV cannot tell apart. Merging the project file instead is exact."""
    if cell.startswith("'") and safe_cell(cell[1:]) == cell:
        return cell[1:]
    return cell


class FormulaGuard:
    """``safe_cell`` that counts the cells it changed, for the export's summary."""

    def __init__(self) -> None:
        self.guarded = 0

    def cell(self, text: str) -> str:
        if not text or text[0] not in _FIRST:  # the common case, without a second call
            return text
        safe = safe_cell(text)
        if safe is not text:
            self.guarded += 1
        return safe
