"""Write a file so that a crash leaves either the old file or the complete new one."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from desktop.domain.errors import TiebreakError


@contextmanager
def atomic_text_file(path: Path, *, newline: str | None = None) -> Iterator[TextIO]:
    """A temporary file beside ``path``, renamed over it only when the block succeeds."""
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise TiebreakError(f"{folder}: no such folder")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise TiebreakError(f"{path}: cannot be written ({exc.strerror})") from None
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a new file gets the usual mode
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
