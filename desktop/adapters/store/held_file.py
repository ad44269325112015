"""The file a writer holds, and whether its path still names it.

A connection holds the file it opened, not its name, while SQLite keeps the ``-wal`` and
``-shm`` by the name. So a project moved (``mv``), deleted, or replaced (``mv`` or ``cp``
another file over it) while open took writes that landed in the moved file or nowhere, and
the next program to open the newcomer joined the old file's log: it read the old file's
size for the new one ("the file is damaged"), and on closing copied the old pages into it
and cut it to that size. Hence:

- **Before each write** (inside BEGIN IMMEDIATE, so no other writer is mid-commit) the
  path must name the same file: device and inode, which a move or a new file changes. A
  file rewritten in place (``cp`` keeps the inode) is told by its size and modification
  time, against what SQLite itself may do to the file: our commits only append to the
  log, and only a checkpoint writes the file, copying pages committed to the log. So, as
  nothing in Tiebreak frees pages back to the system, a project file never shrinks; it
  cannot be longer than the latest state committed; and once a checkpoint of ours copied
  the whole log (or the log was empty when we opened the file), no checkpoint by anyone
  has anything to copy before we or another connection commit again. A stamp taken then
  (size, modification time) that no longer matches, while no other connection has
  committed (``PRAGMA data_version``) and we have not, means something outside SQLite
  wrote the file. (A stamp is not compared while writes of ours wait in the log: another
  writer's checkpoint may copy them at any time.)
- **While a write runs, and before it commits**: a transaction of an import or a merge runs
  for seconds, and a look at its start alone let a file copied over the project mid-way
  take the import's pages (a hybrid that fails ``integrity_check``), or one moved over it
  send them into the unlinked old file, both acknowledged. So SQLite's progress handler
  looks at the file (a stat, at most every ``_GLANCE_S``) while a write transaction runs,
  and interrupts it once the path names another file or the file was written from
  outside; the look is made again, in full, just before COMMIT, and after it, before our
  checkpoint copies a page into the file. In WAL mode a transaction itself writes no page
  of the file: only a checkpoint does, and none of ours runs into a file found replaced.
- **The log is copied into the file and emptied** after each write of a command and of
  the window (a reviewer's verdict is in the file itself before the window shows it
  saved, so a move, even to another file system, which copies the file alone, keeps it),
  and at most every second during a judging job (it commits every answer).
- **What only the log holds is never deleted**: a file moved to another file system (or
  deleted) while commits of ours waited in the log leaves those commits in the log and the
  unlinked file we still hold, their only copy. Letting go, the store saves the whole
  project as it has it to ``<name>.recovered-<time><suffix>`` beside the old name, and
  says so in its one line.
- **Letting go** of a file found moved or replaced, by the last store of the process to
  close: SQLite itself neither copies the log in nor removes it when it closes a file that
  was moved or deleted; a moved file gets our pages through the descriptor that still names
  it. A file rewritten in place never gets them: the log is emptied first, so SQLite's close
  has nothing to copy. Then the ``-wal`` and ``-shm`` are removed, once no other program
  uses them.

What other programs may open by the same name is ``sidecars.py``'s job.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from desktop.adapters.store import sidecars
from desktop.domain.errors import ProjectError

FileKey = tuple[int, int]  # (st_dev, st_ino)
_GLANCE_S = 0.01  # at most this often a running write looks at its file
PROGRESS_STEPS = 10_000  # SQLite's virtual machine steps between calls of the handler
Stamp = tuple[int, int]  # (st_size, st_mtime_ns)
MOVED, REWRITTEN = "moved", "rewritten"


def moved_error(path: Path, saved: Path | None = None) -> ProjectError:
    if saved is not None:
        return ProjectError(
            f"{path}: the project file was moved or replaced while open; what it held then,"
            f" including work not yet in the moved file, is saved in {saved}"
        )
    return ProjectError(f"{path}: the project file was moved or replaced while open; reopen it")


def file_key(path: str | os.PathLike[str]) -> FileKey:
    info = os.stat(path)
    return (info.st_dev, info.st_ino)


def _inode(path: str) -> FileKey | None:
    try:
        return file_key(path)
    except OSError:
        return None


def _data_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


class Released:
    """The connection of a store that let go of its file: every use raises the one line."""

    def __init__(self, error: ProjectError) -> None:
        self._error = error

    def __getattr__(self, name: str) -> object:
        raise ProjectError(str(self._error))


# ---- the files this process holds ----------------------------------------------------------
#
# Stores of one process share the file's locks and its -shm. A store finding the file
# moved or rewritten marks it for all of them, and the last of them to close lets go of it
# (a reader too: a window's background reads may outlive its session). No store is opened
# on a name this process holds for another file, on a file it holds under another name, or
# on a file marked lost: each would join or start a log that is not the file's.


@dataclass
class _Held:
    name: str  # the real path the file was opened by
    stores: int = 0
    lost: str | None = None  # MOVED or REWRITTEN, once a store found it
    logs: dict[str, FileKey | None] = field(default_factory=dict)  # its -wal, -shm: inode
    saved: Path | None = None  # where a store saved what only the log held (see rescue)


_registry = threading.Lock()
_held: dict[FileKey, _Held] = {}


def hold(key: FileKey, path: Path) -> None:
    with _registry:
        entry = _held.setdefault(key, _Held(os.path.realpath(path)))
        entry.stores += 1


def release(key: FileKey, conn: sqlite3.Connection) -> bool:
    """Close one store's connection; True when it was this process's last on the file.
    The last one lets go of a file marked moved or rewritten."""
    with _registry:
        entry = _held[key]
        entry.stores -= 1
        last = entry.stores == 0
        if last:
            del _held[key]
    if last and entry.lost is not None:
        _let_go(conn, entry.lost, entry.logs)
    else:
        conn.close()
    return last


def still_named(key: FileKey, path: Path) -> bool:
    """The path names the held file, which no store has found moved or rewritten."""
    with _registry:
        entry = _held.get(key)
        if entry is not None and entry.lost is not None:
            return False
    return _inode(str(path)) == key


def holds(key: FileKey) -> bool:
    with _registry:
        return key in _held


def held_here(path: Path) -> bool:
    """Whether this process holds the file ``path`` names, by that name. Raises the one
    line where the path no longer names the file this process opened by it."""
    real = os.path.realpath(path)
    key = _inode(str(path))
    with _registry:
        entry = _held.get(key) if key is not None else None
        if entry is not None:
            if entry.name != real or entry.lost is not None:
                raise moved_error(path)
            return True
        if any(held.name == real for held in _held.values()):
            raise moved_error(path)
    return False


def _mark(key: FileKey, lost: str) -> str:
    """Tell the process's other stores; the first finding stands."""
    with _registry:
        entry = _held.get(key)
        if entry is None:
            return lost
        entry.lost = entry.lost or lost
        return entry.lost


def _marked(key: FileKey) -> str | None:
    with _registry:
        entry = _held.get(key)
        return None if entry is None else entry.lost


def _let_go(conn: sqlite3.Connection, lost: str, logs: dict[str, FileKey | None]) -> None:
    """Close the last connection of this process to a file moved or rewritten, leaving by
    the path nothing of it. SQLite itself neither copies the log in nor removes it when it
    closes a file that was moved or deleted; it does both for a file rewritten in place,
    which would copy our pages into the newcomer."""
    ours = [name for name, key in logs.items() if _inode(name) == key]  # not replaced
    wal = next((name for name in ours if name.endswith("-wal")), None)
    shm = next((name for name in ours if name.endswith("-shm")), None)
    with sidecars.alone_on(shm) as alone:
        if lost == MOVED:  # into the file we hold, wherever it now is
            whole = _checkpoint(conn, "PASSIVE")
        else:
            whole = True
            if alone and wal is not None:
                os.truncate(wal, 0)  # nothing left for the close to copy in
        conn.close()
        for name in ours if alone and whole else ():
            with contextlib.suppress(OSError):
                os.unlink(name)


class HeldFile:
    """What a writer knows about the file it opened (see the module's docstring)."""

    def __init__(self, path: Path, key: FileKey, conn: sqlite3.Connection) -> None:
        self.path, self.key = path, key
        self.settle_every: float | None = 0.0  # seconds between checkpoints (see committed)
        self.lost: str | None = None
        self._page = int(conn.execute("PRAGMA page_size").fetchone()[0])
        self._settled = self._committed = self._glanced = 0.0
        self._pending = False  # commits of ours not yet copied into the file by us
        conn.execute("PRAGMA wal_autocheckpoint = 0")  # a checkpoint is ours: settle()
        self._version = _data_version(conn)
        self._stamp: Stamp | None = None
        info = os.stat(path)
        self._size = info.st_size
        if _size(f"{path}-wal") == 0:  # at rest: nothing in the log to copy in later
            self._stamp = (info.st_size, info.st_mtime_ns)
        with _registry:
            entry = _held[key]
            if not entry.logs:  # as SQLite made them for the first connection
                entry.logs = {name: _inode(name) for name in (f"{path}-wal", f"{path}-shm")}

    def check(self, conn: sqlite3.Connection) -> None:
        """Raise the one line if the path no longer names the file (inside BEGIN IMMEDIATE)."""
        if self.found(conn) is not None:
            raise moved_error(self.path)

    def watchdog(self) -> int:
        """SQLite's progress handler while a write transaction runs: nonzero (interrupt the
        statement) once the path names another file or the file was written from outside.
        A stat at most every ``_GLANCE_S``: no pragma may run inside the handler, and none
        is needed, as nobody else commits while we hold the write lock."""
        if self.lost is not None:
            return 1
        now = time.monotonic()
        if now - self._glanced < _GLANCE_S:
            return 0
        self._glanced = now
        lost = _marked(self.key) or self._glance()
        if lost is None:
            return 0
        self.lost = _mark(self.key, lost)
        return 1

    def _glance(self) -> str | None:
        """The part of ``_look`` a stat can tell: the stamp taken when the log was last
        emptied still holds while nobody can have copied anything into the file."""
        try:
            info = os.stat(self.path)
        except OSError:
            return MOVED
        if (info.st_dev, info.st_ino) != self.key:
            return MOVED
        if info.st_size < self._size:
            return REWRITTEN
        if self._stamp is not None and not self._pending:
            return REWRITTEN if (info.st_size, info.st_mtime_ns) != self._stamp else None
        return None

    def found(self, conn: sqlite3.Connection) -> str | None:
        """MOVED (the path names another file, or none) or REWRITTEN (the file was written
        by something other than SQLite), once seen by this or another store of the process."""
        if self.lost is None:
            self.lost = _marked(self.key)
        if self.lost is None:
            lost = self._look(conn)
            if lost is not None:
                self.lost = _mark(self.key, lost)
                if self.lost == MOVED:  # what we wrote belongs in the moved file: now
                    _checkpoint(conn, "PASSIVE")
        return self.lost

    def _look(self, conn: sqlite3.Connection) -> str | None:
        """A stat and two pragmas. Nothing in Tiebreak frees pages back to the system, so
        a project file never shrinks; no checkpoint makes it longer than the latest state
        committed; and while no other connection committed and the log holds nothing of
        ours, no checkpoint has anything to copy (see the module's docstring)."""
        try:
            info = os.stat(self.path)
        except OSError:
            return MOVED
        if (info.st_dev, info.st_ino) != self.key:
            return MOVED
        if info.st_size < self._size:
            return REWRITTEN
        self._size = info.st_size
        # Read after the stat: a checkpoint copies only what was committed.
        if info.st_size > self._page * int(conn.execute("PRAGMA page_count").fetchone()[0]):
            return REWRITTEN
        version = _data_version(conn)
        if version != self._version:  # another connection committed: its checkpoint may
            self._version, self._stamp = version, None  # change the file at any time
            return None
        if self._stamp is not None and not self._pending:
            return REWRITTEN if (info.st_size, info.st_mtime_ns) != self._stamp else None
        return None

    def committed(self, conn: sqlite3.Connection) -> str | None:
        """After an outermost commit: the file is looked at once more, against the stamp as
        it was before the commit (which wrote the log alone), and nothing is copied into a
        file found replaced: MOVED or REWRITTEN is returned, and the commit must not be
        acknowledged. Else the log is copied into the file now, unless that was done less
        than ``settle_every`` ago (None: only when the store is asked to verify)."""
        lost = self.lost_now(conn)
        if lost is not None:
            return lost
        self._pending, self._committed = True, time.monotonic()
        every = self.settle_every
        if every is not None and self._committed - self._settled >= every:
            return self.settle(conn)
        return None

    def lost_now(self, conn: sqlite3.Connection) -> str | None:
        """``found`` without its checkpoint: the caller lets go of the file, which copies
        what it must into a moved one. (Also after a failed write: a look that cannot be
        made says nothing.)"""
        if self.lost is None:
            self.lost = _marked(self.key)
        if self.lost is None:
            try:
                lost = self._look(conn)
            except (sqlite3.Error, ProjectError):
                return None
            if lost is not None:
                self.lost = _mark(self.key, lost)
        return self.lost

    def rescue(self, conn: sqlite3.Connection) -> Path | None:
        """Where a file moved to another file system (a copy of the file alone, then the
        original removed) or deleted while commits of ours waited in the log: those commits
        are in the log and the unlinked file we still hold, and nowhere else. Save the whole
        project as this connection reads it beside the old name, once per file, and say
        where; None where nothing needs saving (or it could not be saved)."""
        if self.lost != MOVED or not self._pending:
            return None
        with _registry:
            entry = _held.get(self.key)
            if entry is not None and entry.saved is not None:
                return entry.saved
        if _links(self.key) not in (0, None):  # moved within its file system: the file
            return None  # itself gets the log when we let go (see _let_go)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.path.with_name(f"{self.path.stem}.recovered-{stamp}{self.path.suffix}")
        try:
            with contextlib.closing(sqlite3.connect(target)) as copy:
                conn.backup(copy)
                copy.execute("PRAGMA journal_mode = DELETE")
        except (sqlite3.Error, OSError):
            for suffix in ("", "-journal", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    os.unlink(f"{target}{suffix}")
            return None
        self._pending = False  # what only the log held is in the saved copy
        with _registry:
            if entry is not None:
                entry.saved = target
        return target

    def settle_due(self, idle: float) -> bool:
        """Whether writes of ours wait to be copied into the file, and none came for
        ``idle`` seconds (a window's, copied when the reviewer pauses)."""
        return self._pending and time.monotonic() - self._committed >= idle

    def settle(self, conn: sqlite3.Connection) -> str | None:
        """Copy the log into the file and empty it, without waiting for anyone: where
        another program is reading or checkpointing, as much as can be. Stamp the file if
        the whole log reached it. ``data_version`` is read first, so a commit by anyone
        after it shows at the next look. (A TRUNCATE checkpoint alone would hold the write
        lock through the copy's fsyncs: other writers waited out their 5 s on a busy disk.)"""
        self._settled = time.monotonic()
        version = _data_version(conn)
        whole = _checkpoint(conn, "PASSIVE")  # the copy and its fsyncs hold up no writer
        if whole:  # then empty the log: with nothing left to copy, a moment's write lock
            _checkpoint(conn, "TRUNCATE")
        self._version, self._stamp = version, None
        if whole:
            self._pending = False
            with contextlib.suppress(OSError):
                info = os.stat(self.path)
                if (info.st_dev, info.st_ino) == self.key:
                    self._stamp, self._size = (info.st_size, info.st_mtime_ns), info.st_size
        return None


def _links(key: FileKey) -> int | None:
    """How many names the file this process holds open as ``key`` has left (0: deleted, or
    copied elsewhere and removed), read through the descriptor SQLite holds; None where
    it cannot be told (no /proc/self/fd or /dev/fd)."""
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            try:
                info = os.fstat(int(name))
            except (OSError, ValueError):
                continue
            if (info.st_dev, info.st_ino) == key:
                return info.st_nlink
        return None
    return None


def _size(path: str) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


def _checkpoint(conn: sqlite3.Connection, mode: str) -> bool:
    """Checkpoint without waiting (busy_timeout 0: a mode that would wait copies what it
    can, as PASSIVE does); True if the whole log is in the file."""
    timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        _, log, copied = conn.execute(f"PRAGMA wal_checkpoint({mode})").fetchone()
    except sqlite3.Error:
        return False
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")
    return bool(log >= 0 and log == copied)
