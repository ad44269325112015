"""Write a file so that a crash leaves either the old file or the complete new one, and
never over a file that must not be replaced (the project being read, a read-only file)."""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from desktop.adapters.file_kinds import kind_of_mode
from desktop.adapters.os_errors import path_too_long, reason
from desktop.domain.errors import TiebreakError

# SQLite keeps a project's uncommitted or not yet checkpointed pages in these files beside
# it; replacing one loses work as surely as replacing the project itself.
SIDECARS = {"-wal": "write-ahead log", "-shm": "shared-memory index", "-journal": "journal"}


def check_target(path: Path, *, keep: Path | None = None) -> Path:
    """The file a write to ``path`` would replace (symlinks followed), refused in one line
    if it is ``keep`` (by name or by identity: another name, a link) or one of ``keep``'s
    SQLite sidecars (by name, since they come and go), not a regular file, or read-only."""
    target = Path(os.path.realpath(path))
    if keep is not None:
        kept = Path(os.path.realpath(keep))
        if target == kept or _same_file(target, kept):
            raise TiebreakError(f"{path}: is the project itself; choose another file to write")
        for suffix, what in SIDECARS.items():
            for base in {kept, Path(os.path.abspath(keep))}:
                sidecar = Path(f"{base}{suffix}")
                if target == sidecar or _same_file(target, sidecar):
                    raise TiebreakError(
                        f"{path}: is the project's {what} ({sidecar.name}), part of the"
                        " project; choose another file to write"
                    )
    try:
        info = target.stat()
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise TiebreakError(
            path_too_long(exc) or f"{path}: cannot be written ({exc.strerror})"
        ) from None
    if stat.S_ISDIR(info.st_mode):
        raise TiebreakError(f"{path}: is a folder; name a file to write")
    kind = kind_of_mode(info.st_mode)
    if kind is not None:  # a named pipe would take the rows, a device swallow them
        raise TiebreakError(f"{path}: is {kind}, not a file; name a file to write")
    if not os.access(target, os.W_OK):
        raise TiebreakError(f"{path}: is read-only; it was not replaced")
    return target


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


@contextmanager
def atomic_text_file(
    path: Path, *, newline: str | None = None, keep: Path | None = None
) -> Iterator[TextIO]:
    """A temporary file beside ``path``, renamed over it only when the block succeeds.
    The target is checked first (see ``check_target``); a replaced file keeps its
    permission bits, a new one gets the usual mode for the umask."""
    target = check_target(path, keep=keep)
    folder = target.parent
    if not folder.is_dir():
        raise TiebreakError(f"{path.parent if str(path.parent) else '.'}: no such folder")
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
        left = "the old file is kept"
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
        left = "nothing was written"
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise TiebreakError(f"{path}: cannot be written ({exc.strerror})") from None
    try:
        os.chmod(tmp, mode)  # mkstemp makes 0600
        with os.fdopen(fd, "w", encoding="utf-8", newline=newline) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except OSError as exc:  # the disk full, a file-size limit, a quota: said, not a traceback
        Path(tmp).unlink(missing_ok=True)
        raise TiebreakError(f"{path}: cannot be written ({reason(exc)}); {left}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
