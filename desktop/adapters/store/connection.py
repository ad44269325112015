"""The SQLite side of opening a project file: its header read before anything is opened,
the connection made for writing or for reading only, the switch into WAL mode, and
SQLite's errors said as the one line a user reads."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

from desktop.adapters.file_kinds import refuse_special
from desktop.adapters.store import damage
from desktop.domain.errors import ProjectError

SQLITE_HEADER = b"SQLite format 3\x00"
WAL_VERSIONS = b"\x02\x02"  # header bytes 18-19: the file is in WAL mode
BUSY_TIMEOUT_MS = 5000


def check_existing(path: Path, *, readonly: bool) -> bool:
    """Refuse a file that cannot be a project we may open so; say if it is in WAL mode."""
    if not path.exists():
        raise ProjectError(f"{path}: no such project (create one with 'tiebreak new {path}')")
    # A folder, a named pipe (opening one waits for a writer, for good), a device ...
    refuse_special(path, expected="a project file", error=ProjectError)
    try:
        with path.open("rb") as fh:
            header = fh.read(20)
    except OSError as exc:
        raise ProjectError(f"{path}: cannot be read ({exc.strerror})") from None
    if header[: len(SQLITE_HEADER)] != SQLITE_HEADER:
        raise ProjectError(f"{path}: not a Tiebreak project (not an SQLite database)")
    if not readonly and not writable(path):
        raise ProjectError(f"{path}: is read-only (check the file's and its folder's permissions)")
    return header[18:20] == WAL_VERSIONS


def writable(path: Path) -> bool:
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def connect(
    path: Path, *, readonly: bool, in_wal: bool, foreign: bool = False
) -> damage.ProjectConnection:
    """A connection for writing, or for reading only. A reader that may write the file
    and its folder opens it as a writer would but with queries only, so SQLite removes
    the -wal and -shm files as it does for a writer. One that may not opens it read-only;
    a WAL file with no -wal beside it (no writer has it open, and none can create one
    here) is opened immutable, because SQLite would otherwise need to create -shm. So is
    a file whose -wal and -shm are another's (``foreign``): it is read as it is on disk."""
    if foreign or (readonly and not writable(path)):
        uri = f"{path.resolve().as_uri()}?mode=ro"
        if foreign or (in_wal and not Path(f"{path}-wal").exists()):
            uri += "&immutable=1"
        conn = sqlite3.connect(
            uri, uri=True, check_same_thread=False, factory=damage.ProjectConnection
        )
    else:
        conn = sqlite3.connect(str(path), check_same_thread=False, factory=damage.ProjectConnection)
    conn.project_path = path
    if readonly:  # the file as it was opened: see damage.replaced_while_read
        info = os.stat(path)
        conn.opened = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    # sqlite-utils' atomic() issues BEGIN itself; autocommit otherwise.
    conn.isolation_level = None
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    if readonly:
        conn.execute("PRAGMA query_only = ON")
    return conn


def switch_to_wal(conn: sqlite3.Connection, path: Path) -> None:
    """Into WAL mode, waiting up to the busy timeout for a writer that holds the file in
    another mode: SQLite answers "locked" at once here instead of calling the busy
    handler, which made a second writer fail after a few milliseconds."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise translate(path, exc) from None
            time.sleep(0.02)


def interrupted(exc: BaseException) -> bool:
    """Whether SQLite ended a statement because its progress handler raised: Ctrl+C lands
    in the watchdog (Python code run by SQLite), and sqlite3 swallows the KeyboardInterrupt
    and says "interrupted" instead; the file's being lost is looked at first."""
    return isinstance(exc, sqlite3.OperationalError) and str(exc) == "interrupted"


def translate(path: Path, exc: sqlite3.Error) -> ProjectError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return ProjectError(f"{path}: locked by another program writing to it; try again")
    damaged = damage.damage_error(path, exc)
    if damaged is not None:
        return damaged
    if "readonly" in text or "read-only" in text:
        return ProjectError(f"{path}: is read-only")
    if "unable to open" in text:
        return ProjectError(f"{path}: cannot be opened ({text})")
    return ProjectError(f"{path}: {text}")
