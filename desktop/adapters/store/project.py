"""Opening, creating and guarding a project file.

Every way a file can be unfit (missing, not SQLite, not ours, corrupt, read-only, locked,
from a newer release) is found before anything is written, and reported as one line.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.adapters.store.schema import APPLICATION_ID, MIGRATION_NAMES, MIGRATION_SET
from desktop.domain.errors import ProjectError

if TYPE_CHECKING:
    from sqlite_utils import Database

_savepoints = itertools.count(1)

SQLITE_HEADER = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5000


class ProjectStore:
    """One open project file. The rest of the store (pairs, rubrics, results, verdicts) is
    in sibling modules that take a ProjectStore; sqlite-utils is loaded only for migrations
    (``db``), so opening a current project costs no more than sqlite3 itself."""

    def __init__(self, path: Path, conn: sqlite3.Connection, *, readonly: bool) -> None:
        self.path = path
        self.conn = conn
        self.readonly = readonly
        self._db: Any = None

    @property
    def db(self) -> Database:
        if self._db is None:
            from desktop.adapters.store.sqlite_utils_loader import Database

            # No sqlite-utils plugins: a project must not depend on what else is installed.
            self._db = Database(self.conn, execute_plugins=False)
        return self._db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """All-or-nothing writes; a lock held elsewhere becomes a one-line ProjectError.
        The outermost block takes the write lock up front (BEGIN IMMEDIATE), so two
        writers queue on the busy timeout instead of failing when a read turns into a
        write; nested blocks are savepoints."""
        if self.readonly:
            raise ProjectError(f"{self.path}: opened read-only")
        conn = self.conn
        nested = conn.in_transaction
        name = f"tb{next(_savepoints)}"
        try:
            conn.execute(f"SAVEPOINT {name}" if nested else "BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise _translate(self.path, exc) from None
        try:
            yield conn
        except BaseException:
            if nested:
                conn.execute(f"ROLLBACK TO {name}")
                conn.execute(f"RELEASE {name}")
            elif conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        try:
            conn.execute(f"RELEASE {name}" if nested else "COMMIT")
        except sqlite3.OperationalError as exc:
            if not nested and conn.in_transaction:
                conn.execute("ROLLBACK")
            raise _translate(self.path, exc) from None

    @contextmanager
    def bulk_write(self) -> Iterator[None]:
        """For one big transaction: a rollback journal instead of the WAL, where no other
        connection has the file open, so the data is written once rather than twice; and
        a larger page cache. Atomicity is the same either way; WAL comes back afterwards."""
        switched = False
        try:
            mode = self.conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
            switched = str(mode).lower() == "delete"
        except sqlite3.OperationalError:
            pass  # another connection holds the file in WAL mode: stay in it
        self.conn.execute("PRAGMA cache_size = -65536")
        try:
            yield
        finally:
            self.conn.execute("PRAGMA cache_size = -2000")
            if switched:
                self.conn.execute("PRAGMA journal_mode = WAL")

    def get_setting(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return row[0] if row else None

    def set_setting(self, key: str, value: str) -> None:
        with self.transaction():
            self.conn.execute(
                "INSERT INTO settings(key, value) VALUES (?, ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [key, value],
            )

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> ProjectStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_project(
    path: str | os.PathLike[str], *, create: bool = False, readonly: bool = False
) -> ProjectStore:
    """Open (or with ``create``, make) a project, refusing any file that is not fit."""
    path = Path(path)
    if create:
        if path.exists():
            raise ProjectError(f"{path}: already exists")
        if not path.parent.is_dir():
            raise ProjectError(f"{path.parent}: no such folder")
        if not os.access(path.parent, os.W_OK):
            raise ProjectError(f"{path.parent}: folder is not writable")
    else:
        _check_existing(path, readonly=readonly)
    try:
        conn = _connect(path, readonly=readonly)
    except sqlite3.Error as exc:
        raise _translate(path, exc) from None
    try:
        store = ProjectStore(path, conn, readonly=readonly)
        _prepare(store, create=create)
    except BaseException:
        conn.close()
        if create and path.exists():
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        raise
    return store


def _check_existing(path: Path, *, readonly: bool) -> None:
    if not path.exists():
        raise ProjectError(f"{path}: no such project (create one with 'tiebreak new {path}')")
    if path.is_dir():
        raise ProjectError(f"{path}: is a folder, not a project file")
    try:
        with path.open("rb") as fh:
            header = fh.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise ProjectError(f"{path}: cannot be read ({exc.strerror})") from None
    if header != SQLITE_HEADER:
        raise ProjectError(f"{path}: not a Tiebreak project (not an SQLite database)")
    if not readonly and not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        raise ProjectError(f"{path}: is read-only (check the file's and its folder's permissions)")


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    if readonly:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    else:
        conn = sqlite3.connect(str(path), check_same_thread=False)
    # sqlite-utils' atomic() issues BEGIN itself; autocommit otherwise.
    conn.isolation_level = None
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return conn


def _prepare(store: ProjectStore, *, create: bool) -> None:
    conn, path = store.conn, store.path
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise _translate(path, exc) from None
    if not create and app_id != APPLICATION_ID:
        raise ProjectError(
            f"{path}: not a Tiebreak project (an SQLite database of another program)"
        )
    applied: set[str] = set()
    if "_sqlite_migrations" in tables:
        applied = {
            r[0]
            for r in conn.execute(
                "SELECT name FROM _sqlite_migrations WHERE migration_set = ?", [MIGRATION_SET]
            )
        }
        newer = applied - MIGRATION_NAMES
        if newer:
            raise ProjectError(
                f"{path}: written by a newer Tiebreak (schema step {sorted(newer)[-1]});"
                " upgrade Tiebreak to open it"
            )
    pending = bool(MIGRATION_NAMES - applied)
    if pending and store.readonly:
        raise ProjectError(f"{path}: needs an upgrade of its schema, but is opened read-only")
    try:
        if create:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        if not store.readonly:
            conn.execute("PRAGMA journal_mode = WAL")
            # NORMAL in WAL mode: a crash of the app loses no committed transaction.
            conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        if pending:
            from desktop.adapters.store.migrations import migrations

            migrations.apply(store.db)
    except sqlite3.Error as exc:
        raise _translate(path, exc) from None


def _translate(path: Path, exc: sqlite3.Error) -> ProjectError:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return ProjectError(f"{path}: locked by another program writing to it; try again")
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return ProjectError(f"{path}: the file is damaged ({text})")
    if "readonly" in text or "read-only" in text:
        return ProjectError(f"{path}: is read-only")
    if "unable to open" in text:
        return ProjectError(f"{path}: cannot be opened ({text})")
    return ProjectError(f"{path}: {text}")
