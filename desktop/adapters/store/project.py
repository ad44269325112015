"""Opening, creating and guarding a project file.

Every way a file can be unfit (missing, not SQLite, not ours, damaged, read-only, locked,
from a newer release, moved or replaced while open) is found before anything is written,
and reported as one line.
The file stays in WAL mode, so writers queue on the busy timeout and readers never wait;
reading needs no write access and leaves nothing beside the file.
"""

from __future__ import annotations

import itertools
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.adapters.store import damage, held_file, sidecars
from desktop.adapters.store.connection import (
    check_existing,
    connect,
    interrupted,
    switch_to_wal,
    translate,
    writable,
)
from desktop.adapters.store.schema import APPLICATION_ID, MIGRATION_NAMES, MIGRATION_SET
from desktop.domain.errors import ProjectError

if TYPE_CHECKING:
    from sqlite_utils import Database

_savepoints = itertools.count(1)


class ProjectStore:
    """One open project file. The rest of the store (pairs, rubrics, results, verdicts) is
    in sibling modules that take a ProjectStore; sqlite-utils is loaded only for migrations
    (``db``), so opening a current project costs no more than sqlite3 itself."""

    def __init__(
        self, path: Path, conn: sqlite3.Connection, *, readonly: bool, sound: bool = False
    ) -> None:
        self.path = path
        self.conn = conn
        self.readonly = readonly
        self._db: Any = None
        self._key = held_file.file_key(path)
        held_file.hold(self._key, path)
        damage.held(self._key, sound=sound)
        self._held: held_file.HeldFile | None = None  # a writer's: see watch()
        self._lost: ProjectError | None = None
        self._closed = False

    @property
    def db(self) -> Database:
        if self._db is None:
            from sqlite_utils import Database

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
        if self._lost is not None:
            raise ProjectError(str(self._lost))
        conn = self.conn
        nested = conn.in_transaction
        if not nested:
            self.ensure_sound()
        name = f"tb{next(_savepoints)}"
        try:
            conn.execute(f"SAVEPOINT {name}" if nested else "BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise translate(self.path, exc) from None
        held = None if nested else self._held
        if held is not None:
            try:
                held.check(conn)  # the path still names the file: see held_file.py
            except ProjectError:
                conn.execute("ROLLBACK")
                self._let_go()
                raise
            # While it runs, too: a long write stops once the file is moved or replaced.
            conn.set_progress_handler(held.watchdog, held_file.PROGRESS_STEPS)
        try:
            yield conn
            if held is not None:
                held.check(conn)  # and just before COMMIT
        except BaseException as exc:
            if self._held is not None:
                conn.set_progress_handler(None, 0)
            if nested:
                if conn.in_transaction:  # an interrupted write may have ended it
                    conn.execute(f"ROLLBACK TO {name}")
                    conn.execute(f"RELEASE {name}")
            elif conn.in_transaction:
                conn.execute("ROLLBACK")
            # A page of a file copied over the project reads as damage before the watchdog
            # looks: whatever was raised, a file found replaced is the one line.
            self._refuse_if_lost(held)
            if held is not None and interrupted(exc):
                raise KeyboardInterrupt from None
            raise
        if held is not None:
            conn.set_progress_handler(None, 0)
        try:
            conn.execute(f"RELEASE {name}" if nested else "COMMIT")
        except sqlite3.OperationalError as exc:
            if not nested and conn.in_transaction:
                conn.execute("ROLLBACK")
            raise translate(self.path, exc) from None
        if held is not None and held.committed(conn) is not None:
            self._let_go()  # replaced as it committed: not acknowledged
            raise self._lost_error()

    def _refuse_if_lost(self, held: held_file.HeldFile | None) -> None:
        """Inside an ``except``: where the file is found moved or replaced, let go of it and
        raise its one line in place of whatever a read or write of it raised."""
        if held is not None and held.lost_now(self.conn) is not None:
            self._let_go()
            raise self._lost_error() from None

    def _lost_error(self) -> ProjectError:
        return self._lost or held_file.moved_error(self.path)

    def migrate(self) -> None:
        """Apply the pending schema steps (sqlite-utils' Migrations, a transaction each),
        watched as any write is (see ``transaction``)."""
        from desktop.adapters.store.migrations import migrations

        held = self._held
        if held is not None:
            self.conn.set_progress_handler(held.watchdog, held_file.PROGRESS_STEPS)
        try:
            migrations.apply(self.db)
        except (sqlite3.Error, ProjectError) as exc:  # interrupted, or a replaced file's "damage"
            if held is not None:
                self.conn.set_progress_handler(None, 0)
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                if held.lost_now(self.conn) is not None:
                    raise held_file.moved_error(self.path) from None
                if interrupted(exc):
                    raise KeyboardInterrupt from None
            raise
        finally:
            if held is not None:
                self.conn.set_progress_handler(None, 0)
        if held is not None and held.committed(self.conn) is not None:
            raise held_file.moved_error(self.path)

    def watch(self) -> None:
        """Check before each write that the path still names this file (a writer's)."""
        self._held = held_file.HeldFile(self.path, self._key, self.conn)

    def settle_every(self, seconds: float | None) -> None:
        """Copy the log into the file at most every ``seconds`` (None: only in
        ``verify``), not after every write (0, the default): a copy costs two fsyncs,
        milliseconds on a busy disk. For a judging job, which commits every answer, and a
        window, where a verdict key should cost no more than the verdict."""
        if self._held is not None:
            self._held.settle_every = seconds

    @property
    def lost(self) -> ProjectError | None:
        """The one line, once this store has let go of a file moved or replaced."""
        return self._lost

    def verify(self, idle: float = 1.0) -> ProjectError | None:
        """None while the path still names the file this store opened; else the one line,
        and the store has let go of the file (every later use raises it). For a window,
        which holds the file for hours and should not wait for a write to find out: its
        writes are copied into the file here, once none came for ``idle`` seconds."""
        held = self._held
        if self._lost or self._closed or held is None or self.conn.in_transaction:
            return self._lost
        if held.found(self.conn) is not None:
            self._let_go()
        elif held.settle_due(idle):
            held.settle(self.conn)
        return self._lost

    def _let_go(self) -> None:
        self.close()  # which saves what only the log held, if anything
        self._lost = self._lost or held_file.moved_error(self.path)
        self.conn = held_file.Released(self._lost)  # type: ignore[assignment]

    @contextmanager
    def watched_read(self) -> Iterator[sqlite3.Connection]:
        """A writer's read outside any transaction (a batch read before the work it feeds
        is written): a file copied over the project meanwhile reads as damage, so an error
        while the file is found replaced is the one line a replaced file gets, as in
        ``transaction``."""
        try:
            yield self.conn
        except (sqlite3.Error, ProjectError):
            if not self._lost:
                self._refuse_if_lost(self._held)
            raise

    def ensure_read_whole(self) -> None:
        """At the end of a long read (an export): refuse, in one line, where the path has
        come to name another file, or a shorter one, since the read began."""
        if damage.moved_while_read(self.conn):
            raise damage.replaced_error(self.path)

    def known_sound(self) -> bool:
        """A write now would not first check the file for damage."""
        return damage.known_sound(self._key)

    def ensure_sound(self) -> None:
        """Refuse, in one line, to write to a damaged file (checked once while held)."""
        damage.ensure_sound(self._key, self.conn, self.path)

    @contextmanager
    def bulk_write(self) -> Iterator[None]:
        """For one big transaction: a larger page cache. The journal stays the WAL. A
        switch to a rollback journal wrote the data once instead of twice (a 100,000-pair
        import took 2.9 s instead of 3.8 s), but made every other writer fail at once
        instead of waiting its turn, and blocked readers while it ran."""
        if self._held is not None and not self.conn.in_transaction:
            self._held.settle(self.conn)  # a file at rest: a copy over it shows at once
        self.conn.execute("PRAGMA cache_size = -65536")
        try:
            yield
        finally:
            self.conn.execute("PRAGMA cache_size = -2000")

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

    def checkpoint(self) -> None:
        """Fold the write-ahead log into the file, so the file alone holds everything (as
        before it is moved into place)."""
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        if self._held is not None:
            self._held.settle(self.conn)

    def close(self) -> None:
        """Close; a writer whose file was moved or replaced lets go of it so that nothing
        of it is left by the path (held_file.py)."""
        if self._closed:
            return
        self._closed = True
        conn, self.conn = self.conn, None  # type: ignore[assignment]
        if self._held is not None and self._held.found(conn) is not None:
            # A file moved or replaced is let go of, not remembered; what only its log
            # held is saved first (``lost`` says where).
            saved = self._held.rescue(conn)
            if saved is not None:
                self._lost = held_file.moved_error(self.path, saved)
        named = held_file.still_named(self._key, self.path)
        if held_file.release(self._key, conn):
            damage.released(self._key, self.path, still_there=named)

    def __enter__(self) -> ProjectStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_project(
    path: str | os.PathLike[str], *, create: bool = False, readonly: bool = False
) -> ProjectStore:
    """Open (or with ``create``, make) a project, refusing any file that is not fit.
    ``readonly`` needs no write access anywhere and leaves nothing beside the file."""
    path = Path(path)
    in_wal = False
    held_here = held_file.held_here(path)  # raises where the name now means another file
    if create:
        if path.exists():
            raise ProjectError(f"{path}: already exists")
        if not path.parent.is_dir():
            raise ProjectError(f"{path.parent}: no such folder")
        if not os.access(path.parent, os.W_OK):
            raise ProjectError(f"{path.parent}: folder is not writable")
    elif not held_here:  # reading the header here would drop the process's locks on it
        in_wal = check_existing(path, readonly=readonly)
    else:
        in_wal = True
    owner = None if held_here else sidecars.owner(path, in_wal=in_wal)
    if owner is not None and (not readonly or owner == sidecars.ELSEWHERE):
        raise sidecars.in_use_error(path, owner)
    sound = create or damage.remembered(path)
    try:
        conn = connect(path, readonly=readonly, in_wal=in_wal, foreign=owner is not None)
    except sqlite3.Error as exc:
        raise translate(path, exc) from None
    store: ProjectStore | None = None
    try:
        store = ProjectStore(path, conn, readonly=readonly or owner is not None, sound=sound)
        _prepare(store, create=create)
    except _NeedsUpgrade:  # from _prepare: the store is made
        if store is not None:
            store.close()
        return _open_upgraded(path, in_wal=in_wal)
    except BaseException:
        if store is not None:
            store.close()
        else:
            conn.close()
        if create and path.exists():
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        raise
    return store


def _prepare(store: ProjectStore, *, create: bool) -> None:
    conn, path = store.conn, store.path
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as exc:
        raise translate(path, exc) from None
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
        raise _NeedsUpgrade
    try:
        if create:
            conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        if not store.readonly:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                store.ensure_sound()  # the switch writes the file's header
                switch_to_wal(conn, path)
            # NORMAL in WAL mode: a crash of the app loses no committed transaction.
            conn.execute("PRAGMA synchronous = NORMAL")
            store.watch()  # before the migrations: one may rebuild a table for seconds
        conn.execute("PRAGMA foreign_keys = ON")
        if pending:
            store.ensure_sound()
            store.migrate()
    except sqlite3.Error as exc:
        raise translate(path, exc) from None


class _NeedsUpgrade(Exception):
    """A file from an older release, opened for reading: see _open_upgraded."""


def _open_upgraded(path: Path, *, in_wal: bool) -> ProjectStore:
    """A file from an older release, to be read. Where it may be written, it is brought up
    to date as any writer would (after the damage check) and then read; where it may not
    (a read-only folder, a colleague's file shared read-only), an up-to-date copy is made
    in memory and read instead, so reading never needs write access."""
    if writable(path):
        open_project(path).close()
        return open_project(path, readonly=True)
    source = connect(path, readonly=True, in_wal=in_wal)
    copy = sqlite3.connect(":memory:", check_same_thread=False, factory=damage.ProjectConnection)
    try:
        source.backup(copy)
    except sqlite3.Error as exc:
        copy.close()
        raise translate(path, exc) from None
    finally:
        source.close()
    copy.project_path = path
    copy.isolation_level = None
    store = ProjectStore(path, copy, readonly=False)
    try:
        from desktop.adapters.store.migrations import migrations

        migrations.apply(store.db)
        copy.execute("PRAGMA query_only = ON")
    except BaseException:
        store.close()
        raise
    store.readonly = True
    return store
