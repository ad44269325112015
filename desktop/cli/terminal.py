"""What the command line writes to a terminal: data shown, never obeyed.

Pair ids, categories, model names and server messages are someone else's text. An escape
sequence in them (``ESC ] 0 ; title BEL`` sets the window title, ``ESC [ 2 J`` clears the
screen, C1's ``CSI`` does the same in one byte) would be run by the terminal, so every
control character but newline and tab is written as its ``\\xNN`` escape instead. The
command's streams are wrapped once, in :func:`guarded_streams`; JSON is escaped by
:func:`json_text` in JSON's own way, so it stays valid JSON.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

# C0 controls except tab and newline, DEL, and the C1 controls.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# Every control character, newline and tab included.
_CONTROL_ALL = re.compile("[\x00-\x1f\x7f-\x9f]")
# What JSON leaves raw with ensure_ascii=False: DEL and C1 (it escapes C0 itself).
_JSON_RAW = re.compile("[\x7f-\x9f]")


def shown(text: str) -> str:
    """``text`` with its control characters (but newline and tab) written as ``\\xNN``."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def one_line(text: str) -> str:
    """``text`` with newline and tab escaped too (``\\x0a``): a summary line that names a
    file keeps to one line whatever the file's name holds."""
    return _CONTROL_ALL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def json_text(value: object) -> str:
    """Indented JSON, non-ASCII text kept readable, every control character escaped."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_json(value: object) -> None:
    """A command's ``--json`` output on stdout."""
    sys.stdout.write(json_text(value) + "\n")


def print_error(message: str) -> None:
    """The one line on stderr that a failed command ends with."""
    sys.stderr.write(f"tiebreak: error: {shown(message)}\n")


class _Guarded:
    """A text stream whose writes are escaped; ``raw`` is the stream itself, for the few
    controls we write on purpose (the progress line's carriage return)."""

    def __init__(self, stream: TextIO) -> None:
        self.raw = stream

    def write(self, text: str) -> int:
        return self.raw.write(shown(text))

    def writelines(self, lines: Any) -> None:
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
    sys.stdout, sys.stderr = _Guarded(out), _Guarded(err)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err
