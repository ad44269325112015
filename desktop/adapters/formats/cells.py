"""Spreadsheet-safe cells: text that a spreadsheet would run as a formula is defused.

OWASP's CSV-injection rule: a cell starting with ``= + - @``, tab, CR or LF (also after
leading spaces) is prefixed with a single quote, which spreadsheets show as text. Plain
numbers ("-5", "+1.5e3") are left alone so they stay numbers.
"""

from __future__ import annotations

import re

_TRIGGERS = frozenset("=+-@\t\r\n")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def safe_cell(text: str) -> str:
    if not text:
        return text
    stripped = text.lstrip(" ") if text[0] == " " else text
    if not stripped or stripped[0] not in _TRIGGERS:
        return text
    if stripped[0] in "+-" and _NUMBER.fullmatch(stripped):
        return text
    return "'" + text
