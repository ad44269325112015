"""What an operating-system error means, in words a user can act on: for the one-line
errors of the command line and the window (a path too long, a disk full)."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

_REASONS = {
    errno.ENOSPC: "no space left on the device",
    errno.EFBIG: "larger than this system lets a file grow",
    errno.EDQUOT: "over the disk quota",
}


def reason(exc: OSError) -> str:
    """Why a write failed, in words."""
    return _REASONS.get(exc.errno or 0, exc.strerror or type(exc).__name__)


def path_too_long(exc: BaseException) -> str | None:
    """For a path longer than the system takes (ENAMETOOLONG), wherever a command was
    given one: the path, shortened, and what is too long; None for any other error."""
    if not isinstance(exc, OSError) or exc.errno != errno.ENAMETOOLONG:
        return None
    path = os.fsdecode(exc.filename) if exc.filename is not None else ""
    name_max, path_max = 255, 4096
    with contextlib.suppress(OSError, ValueError):
        name_max, path_max = os.pathconf("/", "PC_NAME_MAX"), os.pathconf("/", "PC_PATH_MAX")
    longest = max((len(os.fsencode(part)) for part in Path(path).parts), default=0)
    what = (
        f"a name in it is {longest:,} bytes long, more than the {name_max:,} this system allows"
        if longest > name_max
        else f"it is {len(os.fsencode(path)):,} bytes long, more than the {path_max:,} this"
        " system allows"
    )
    shown = path if len(path) <= 80 else f"{path[:40]}...{path[-37:]}"
    return f"{shown}: path too long ({what})"
