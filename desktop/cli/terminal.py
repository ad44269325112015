"""What the command line writes to a terminal: data shown, never obeyed.

Pair ids, categories, model names and server messages are someone else's text. An escape
sequence in them (``ESC ] 0 ; title BEL`` sets the window title, ``ESC [ 2 J`` clears the
screen, C1's ``CSI`` does the same in one byte) would be run by the terminal, a CR or LF
would start a forged line, a bidi override would turn text around; so every control
character is written as its escape instead (``domain.shown_text``). The command's
streams are wrapped once, in :func:`guarded_streams`, which escapes all but the newlines
and tabs that lay out our own lines; each line that holds outside text is written with
:func:`say` (or, for the one error line, :func:`print_error`), which escapes those too.
JSON is escaped by :func:`json_text` in JSON's own way, so it stays valid JSON.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, TextIO

from desktop.domain.shown_text import shown

__all__ = ["json_text", "print_error", "print_json", "say", "say_blocks", "shown"]

# What JSON leaves raw with ensure_ascii=False: DEL, C1, the bidi controls and the line
# and paragraph separators (it escapes C0 itself).
_JSON_RAW = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def json_text(value: object) -> str:
    """Indented JSON, non-ASCII text kept readable, every control character escaped."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_json(value: object) -> None:
    """A command's ``--json`` output on stdout."""
    sys.stdout.write(json_text(value) + "\n")


def print_error(message: str) -> None:
    """The one line on stderr that a failed command ends with: one line, whatever the
    message holds."""
    sys.stderr.write(f"tiebreak: error: {shown(message)}\n")


def say(*lines: str, err: bool = False) -> None:
    """Lines on stdout (stderr with ``err``), each one line whatever its data holds: a
    newline in a pair id or a server's message is shown as ``\\x0a``, never as a line."""
    stream = sys.stderr if err else sys.stdout
    for line in lines:
        stream.write(shown(line) + "\n")


def say_blocks(blocks: Iterable[Sequence[str]]) -> None:
    """Blocks of lines on stdout (each line as :func:`say` writes it), a blank line between."""
    for i, block in enumerate(blocks):
        say(*([""] if i else []), *block)


class _Guarded:
    """A text stream whose writes are escaped; ``raw`` is the stream itself, for the few
    controls we write on purpose (the progress line's carriage return)."""

    def __init__(self, stream: TextIO) -> None:
        self.raw = stream

    def write(self, text: str) -> int:
        return self.raw.write(shown(text, lines=True))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def raw_stream(stream: TextIO) -> TextIO:
    """The stream under a guarded one (or the stream itself)."""
    return stream.raw if isinstance(stream, _Guarded) else stream


@contextlib.contextmanager
def guarded_streams() -> Iterator[None]:
    """Escape what a command writes to stdout and stderr while it runs."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Guarded(out), _Guarded(err)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
