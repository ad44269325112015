"""What a path names, told without opening it.

Opening a named pipe (FIFO) for reading waits, for good, until something writes to it, and
a device such as ``/dev/zero`` never ends; so a path given where a file is expected (a
project, a data file, a rubric, a file to merge or to write over) is looked at with
``stat`` (links followed) before anything opens it, and anything but a regular file is
refused in one line that says what it is.
"""

from __future__ import annotations

import os
import stat

from desktop.domain.errors import TiebreakError

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of_mode(mode: int) -> str | None:
    """What an ``st_mode`` names when it is not a regular file; None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "a special file")


def kind_of(path: str | os.PathLike[str]) -> str | None:
    """What ``path`` names when it is not a regular file ("a named pipe (FIFO)", "a
    character device", "a folder" ...); None for a regular file, and for a path that does
    not exist or cannot be looked at (the caller's own open says why)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return kind_of_mode(mode)


def refuse_special(
    path: str | os.PathLike[str],
    *,
    expected: str = "a file",
    error: type[TiebreakError] = TiebreakError,
    folder_ok: bool = False,
) -> None:
    """Raise ``error`` ("PATH: is a named pipe (FIFO), not a file") when ``path`` exists
    and is not a regular file (nor, with ``folder_ok``, a folder)."""
    kind = kind_of(path)
    if kind is None or (folder_ok and kind == "a folder"):
        return
    raise error(f"{path}: is {kind}, not {expected}")
