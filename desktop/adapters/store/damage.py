"""A damaged project file: found before anything is written to it, and named in one line
whenever a read meets it.

Every connection to a project is a :class:`ProjectConnection`, so an error that means
damage becomes "<file>: the file is damaged (...)" at the one place SQLite reports it,
whichever command, service or window read the file. Before the first write, a project is
checked with ``PRAGMA quick_check``, the cheapest check that finds damage anywhere in the
file (checking only the tables a command writes misses damage among the pairs);
``tests/bench/bench_damage_check.py`` measures the candidates and what they cost.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from desktop.adapters.store.held_file import FileKey, holds
from desktop.domain.errors import ProjectError, TiebreakError

_DAMAGE_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB (primary codes)
_NOT_UTF8 = "Could not decode to UTF-8 column "  # Python's sqlite3, on bytes SQLite returns

T = TypeVar("T")


def damage_error(
    path: Path, exc: sqlite3.Error, conn: sqlite3.Connection | None = None
) -> ProjectError | None:
    """The one line for an error that means the file is damaged, else None. A reader's
    file that changed from outside while it was read (a copy over it) is not damaged:
    what it read was two files, and the file there now may well be sound."""
    error = _damage(path, exc)
    if error is not None and conn is not None and replaced_while_read(conn):
        return replaced_error(path)
    return error


def replaced_error(path: Path) -> ProjectError:
    return ProjectError(
        f"{path}: the project file was replaced while it was read; run the command again"
    )


def replaced_while_read(conn: sqlite3.Connection) -> bool:
    """A reader's file is not the one it opened: another file by its name, or one shorter
    (no checkpoint shortens a project), or, told only where an error says the pages read
    do not fit, written since it was opened."""
    opened = getattr(conn, "opened", None)
    if opened is None:
        return False
    try:
        info = os.stat(cast("ProjectConnection", conn).project_path)
    except OSError:
        return True
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns) != opened


def moved_while_read(conn: sqlite3.Connection) -> bool:
    """The part of ``replaced_while_read`` that holds whatever others write meanwhile: at
    the end of a read that met no error."""
    opened = getattr(conn, "opened", None)
    if opened is None:
        return False
    try:
        info = os.stat(cast("ProjectConnection", conn).project_path)
    except OSError:
        return True
    return (info.st_dev, info.st_ino) != opened[:2] or info.st_size < opened[2]


def _damage(path: Path, exc: sqlite3.Error) -> ProjectError | None:
    code = getattr(exc, "sqlite_errorcode", None)
    text = str(exc)
    if text.startswith(_NOT_UTF8):
        # The text itself is garbage that may hold terminal escapes: name only the column.
        column = text[len(_NOT_UTF8) :].split(" with text ", 1)[0]
        return damaged(path, f"text that is not UTF-8 in column {column}")
    if (code is not None and code & 0xFF in _DAMAGE_CODES) or any(
        word in text for word in ("malformed", "not a database", "corrupt")
    ):
        return damaged(path, text)
    return None


def damaged(path: Path, why: str) -> ProjectError:
    return ProjectError(
        f"{path}: the file is damaged ({why}); restore a backup, or save what is readable"
        " with sqlite3's .recover"
    )


def _translating(method: Callable[..., T]) -> Callable[..., T]:
    def call(self: ProjectCursor | ProjectConnection, *args: object, **kwargs: object) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.DatabaseError as exc:
            conn = self if isinstance(self, sqlite3.Connection) else self.connection
            error = damage_error(self.project_path, exc, conn)
            if error is None:
                raise
        # Raised, then dropped: held by a frame of its own traceback, the error would keep
        # the cursor alive in a cycle, and the cursor's unfinished statement keeps the file
        # open and locked after close until the garbage collector runs.
        try:
            raise error
        finally:
            del error

    call.__name__ = method.__name__
    call.__doc__ = method.__doc__
    return call


class ProjectCursor(sqlite3.Cursor):
    """A cursor whose every step reports damage as the project's one line."""

    @property
    def project_path(self) -> Path:
        return cast("ProjectConnection", self.connection).project_path

    execute = _translating(sqlite3.Cursor.execute)
    executemany = _translating(sqlite3.Cursor.executemany)
    executescript = _translating(sqlite3.Cursor.executescript)
    fetchone = _translating(sqlite3.Cursor.fetchone)
    fetchmany = _translating(sqlite3.Cursor.fetchmany)
    fetchall = _translating(sqlite3.Cursor.fetchall)

    def __next__(self) -> Any:  # written out: it runs once per row of every export
        try:
            return super().__next__()
        except sqlite3.DatabaseError as exc:
            error = damage_error(self.project_path, exc, self.connection)
            if error is None:
                raise
        # Raised, then dropped: held by a frame of its own traceback, the error would keep
        # the cursor alive in a cycle, and the cursor's unfinished statement keeps the file
        # open and locked after close until the garbage collector runs.
        try:
            raise error
        finally:
            del error


class ProjectConnection(sqlite3.Connection):
    """A connection to one project file (``project_path``), handing out ProjectCursors."""

    project_path: Path
    opened: tuple[int, int, int, int] | None = None  # a reader's file: dev, inode, size, mtime

    def cursor(self, factory: Any = ProjectCursor) -> Any:
        return super().cursor(factory)

    def execute(self, sql: str, parameters: Any = (), /) -> ProjectCursor:
        return self.cursor().execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> ProjectCursor:
        return self.cursor().executemany(sql, parameters)

    def executescript(self, script: str, /) -> ProjectCursor:
        return self.cursor().executescript(script)

    commit = _translating(sqlite3.Connection.commit)


# ---- checked before the first write -------------------------------------------------------
#
# The check reads every page: 0.27 s for 100,000 pairs (440 MB) in the page cache, seconds
# from a cold disk. So it is made once while this process holds the file, and a file that
# passed and then was only changed by Tiebreak is remembered (its size, times and inode,
# in the config folder): a command on a file nobody else has touched since costs a stat.
# Anything else that writes to the file (dd, another program, a copy over it) changes its
# modification or change time, and the next write checks it again.

_registry = threading.Lock()
_sound: set[FileKey] = set()  # checked, and held open by this process ever since
_checking: dict[FileKey, threading.Lock] = {}
_REMEMBERED = 64  # files whose last sound state is kept


def held(key: FileKey, *, sound: bool = False) -> None:
    """A store of this process opened the file (``sound``: one it has just made, or one
    ``remembered`` as sound just before it was opened)."""
    if sound:
        with _registry:
            _sound.add(key)


def released(key: FileKey, path: Path, *, still_there: bool) -> None:
    """This process's last store on the file closed. A file that was sound is remembered
    as it now is on disk (unless the path no longer names it), and is checked again
    before a write if it changes otherwise."""
    with _registry:
        was_sound = key in _sound
        _sound.discard(key)
    if was_sound and still_there:
        _remember(path)


def known_sound(key: FileKey) -> bool:
    """The file was checked (or made, or remembered) while this process holds it: a write
    costs no check."""
    with _registry:
        return key in _sound


def ensure_sound(key: FileKey, conn: sqlite3.Connection, path: Path) -> None:
    """Raise the one-line error if the file is damaged; check it at most once while this
    process holds it open (a second caller waits for a check already running)."""
    with _registry:
        if key in _sound:
            return
        lock = _checking.setdefault(key, threading.Lock())
    with lock:
        with _registry:
            if key in _sound:
                return
        try:
            rows = conn.execute("PRAGMA quick_check(1)").fetchall()
        except ProjectError:
            raise
        except sqlite3.DatabaseError as exc:
            raise damage_error(path, exc) or damaged(path, str(exc)) from None
        if rows != [("ok",)]:
            raise damaged(path, _first_problem(rows))
        if holds(key):
            with _registry:
                _sound.add(key)


def _first_problem(rows: list[tuple[object, ...]]) -> str:
    """quick_check's first finding on one line ("Page 1076: btreeInitPage() returns ...")."""
    lines = str(rows[0][0]).splitlines() if rows else []
    found = [line for line in lines if line and not line.startswith("*** in database")]
    return "; ".join(found) or "quick_check found a problem"


def _stamp(path: Path) -> list[int] | None:
    """The file as it is on disk, or None while a write-ahead log beside it holds changes
    (another connection has it open, or one crashed)."""
    try:
        if os.path.exists(f"{path}-wal"):
            return None
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns]


def remembered(path: Path) -> bool:
    """The file, at rest, is as Tiebreak left it when it was last known sound. Asked
    before opening it: an open connection makes a write-ahead log beside it."""
    stamp = _stamp(path)
    return stamp is not None and _load().get(os.path.realpath(path)) == stamp


def _remember(path: Path) -> None:
    stamp = _stamp(path)
    if stamp is None:
        return
    known = _load()
    known.pop(os.path.realpath(path), None)
    known[os.path.realpath(path)] = stamp
    try:
        from desktop.adapters.config import config_dir
        from desktop.adapters.formats.atomic import atomic_text_file

        folder = config_dir()
        folder.mkdir(parents=True, exist_ok=True)
        with atomic_text_file(folder / "sound-projects.json") as fh:
            json.dump(dict(list(known.items())[-_REMEMBERED:]), fh)
    except (OSError, TiebreakError):
        pass  # a read-only home: the next write checks the file again


def _load() -> dict[str, list[int]]:
    from desktop.adapters.config import config_dir

    try:
        data = json.loads((config_dir() / "sound-projects.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}
