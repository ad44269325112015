"""Someone else's text as a terminal or a label may show it: as characters, never as commands.

A server's message, a model name, a file name or a pair id is someone else's text. Its
control characters would act: ESC sequences set a terminal's title or clear it, a CR or
LF starts a forged line of its own ("request refused (400): bad\\r\\nall pairs judged"),
and a bidi override (U+202E) shows "gnp.exe" as "exe.png". So every C0 and C1 control,
DEL, line and paragraph separator (U+2028, U+2029, which a label breaks at) and bidi
control (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) is written as its escape:
``\\x0d``, ``\\u202e``. Every path from outside text to a terminal or a label goes through
:func:`shown`.
"""

from __future__ import annotations

import re

# Bidi controls: the Arabic letter mark, LRM and RLM, the embeddings and overrides, the
# isolates; and the two separators a label breaks lines at.
_BIDI_AND_SEPARATORS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
# C0 controls, DEL and the C1 controls; and the same but tab and newline.
_EVERY = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI_AND_SEPARATORS}]")
_BUT_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI_AND_SEPARATORS}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str, *, lines: bool = False) -> str:
    """``text`` with every control character written as its escape, newline and tab too: one
    line, whatever it holds. ``lines`` keeps newline and tab, for a whole text whose lines
    are ours (a command's output, a label of several lines) with outside text already
    shown within each."""
    return (_BUT_LINES if lines else _EVERY).sub(_escape, text)
