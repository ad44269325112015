"""Whether the ``-wal`` and ``-shm`` by a project's name belong to the file it names,
asked before another program's project is opened.

SQLite finds a file's log by name. A program that holds a project keeps its log by the
name it opened, whatever the name comes to mean: after ``mv colleague.tiebreak p`` (or
``rm p``, or a ``cp`` over it) the log by ``p`` is the old file's, and after ``mv p q``
the file by ``q`` is still written through ``p``'s. Opening either as SQLite would joins
or starts a log that is not the file's: reads see the old file's size ("the file is
damaged"), and a close copies old pages into the newcomer.

Who uses what shows in the locks SQLite takes (the ones its unix build takes on every
system Tiebreak runs on): every connection holds a shared lock on the ``-shm``'s
"DMS" byte and a shared lock on the database file's shared range while it is open. So a
``-shm`` in use while nobody holds the file means the log is another file's; the file
held while its ``-shm`` is unused means it is written under another name. A file copied
over a held one keeps its inode, so both look in use; there the ``-shm``'s header (the
documented wal-index format) tells: with the whole log copied into the file, the file is
exactly as many pages long as the header says, unless it is not the file the log is for.

The locks are read with F_GETLK, which takes none: this module only opens files this
process does not hold (closing any descriptor of a file drops every lock the process
holds on it, SQLite's included).
"""

from __future__ import annotations

import contextlib
import os
import struct
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from desktop.domain.errors import ProjectError

try:
    import fcntl
except ImportError:  # Windows: files open in SQLite cannot be moved or deleted there
    fcntl = None  # type: ignore[assignment]

FOREIGN = "foreign"  # the -wal and -shm by this name are another file's
ELSEWHERE = "elsewhere"  # this file is held under another name

_PENDING_BYTE = 0x40000000  # SQLite's lock bytes in the database file
_SHARED_FIRST, _SHARED_SIZE = _PENDING_BYTE + 2, 510
_SHM_DMS = 120 + 8  # the -shm's DMS lock byte: UNIX_SHM_BASE + SQLITE_SHM_NLOCK
_WAL_INDEX_VERSION = 3007000
_HEADER = struct.Struct("@IIIBBHII")  # iVersion, -, iChange, isInit, -, szPage, mxFrame, nPage
_BACKFILL = 96  # the checkpoint info's nBackfill, after the header's two 48-byte copies
_LOOKS = 3  # a program opening or closing the file passes through a mixed state briefly

if sys.platform.startswith("linux"):  # struct flock: type, whence, start, len, pid
    _FLOCK, _ORDER = struct.Struct("@hhqqi4x"), ("type", "whence", "start", "len", "pid")
elif sys.platform == "darwin":
    _FLOCK, _ORDER = struct.Struct("@qqihh"), ("start", "len", "pid", "type", "whence")
else:  # unknown layout: nothing is told
    _FLOCK, _ORDER = None, ()  # type: ignore[assignment]


def _held_by_others(fd: int, start: int, length: int) -> bool:
    """Whether another process holds a lock on these bytes (a write lock would conflict)."""
    fields = {"type": fcntl.F_WRLCK, "whence": os.SEEK_SET, "start": start, "len": length}
    query = _FLOCK.pack(*(fields.get(name, 0) for name in _ORDER))
    answer = dict(zip(_ORDER, _FLOCK.unpack(fcntl.fcntl(fd, fcntl.F_GETLK, query)), strict=True))
    return bool(answer["type"] != fcntl.F_UNLCK)


def _locked(path: str, start: int, length: int) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return _held_by_others(fd, start, length)
    except OSError:
        return False
    finally:
        os.close(fd)


def owner(path: Path, *, in_wal: bool) -> str | None:
    """Before opening ``path``, which this process does not hold: FOREIGN, ELSEWHERE, or
    None where opening it is safe (or cannot be told here)."""
    if fcntl is None or _FLOCK is None:
        return None
    shm = f"{path}-shm"
    if not path.exists():
        return FOREIGN if _locked(shm, _SHM_DMS, 1) else None
    seen = set()
    for look in range(_LOOKS):
        if look:
            time.sleep(0.02)
        log_used = _locked(shm, _SHM_DMS, 1)
        file_used = _locked(str(path), _SHARED_FIRST, _SHARED_SIZE)
        if log_used == file_used:
            seen.add(FOREIGN if log_used and _sized_otherwise(shm, path) else None)
        elif log_used:
            seen.add(FOREIGN)
        else:  # a file in another journal mode is held without a log while it is read
            seen.add(ELSEWHERE if in_wal else None)
        if None in seen or len(seen) > 1:
            return None
    return seen.pop()


def in_use_error(path: Path, owner: str) -> ProjectError:
    """The one line for a file ``owner`` says may not be opened to write (or at all)."""
    if owner == ELSEWHERE:
        return ProjectError(
            f"{path}: another program has this file open under its old name (it was moved"
            " while open); close that program, then try again"
        )
    return ProjectError(
        f"{path}: the -wal and -shm beside it belong to a file that was moved or replaced"
        " while another program had it open; close that program, then try again"
    )


def _sized_otherwise(shm: str, path: Path) -> bool:
    """The wal-index says the whole log is in the file, and the file is not the size it
    says: the log is another file's (one copied over this one kept its inode)."""
    try:
        with open(shm, "rb") as fh:
            data = fh.read(_BACKFILL + 4)
        size = path.stat().st_size
    except OSError:
        return False
    if len(data) < _BACKFILL + 4 or data[:48] != data[48:96]:
        return False  # none yet, or being written
    version, _, _, ready, _, page, frames, pages = _HEADER.unpack_from(data)
    (copied,) = struct.unpack_from("@I", data, _BACKFILL)
    if version != _WAL_INDEX_VERSION or not ready or frames != copied or not pages:
        return False
    return pages * (65536 if page == 1 else page) != size


@contextlib.contextmanager
def alone_on(shm: str | None) -> Iterator[bool]:
    """Whether no other program uses the -shm ``shm`` (False where it cannot be told).
    Its descriptor stays open to the block's end: close the connection inside it, so this
    close, which drops the process's locks on the file, comes after SQLite's."""
    if shm is None or fcntl is None or _FLOCK is None:
        yield False
        return
    try:
        fd = os.open(shm, os.O_RDONLY)
    except OSError:
        yield False
        return
    try:
        try:
            alone = not _held_by_others(fd, _SHM_DMS, 1)
        except OSError:
            alone = False
        yield alone
    finally:
        os.close(fd)
