"""Work run in a Python process of its own, kept for the next piece of work.

Figures over a million pairs make millions of objects. In a thread of the window's own
process, the collector's walks over them and their freeing hold Python's lock, and so the
window, for up to 1.7 s at a time. In a process of its own, that work never touches the
window's lock; only the result, a few kilobytes of figures and charts, comes back (pickled,
over a pipe). The process starts on first use (spawned: forking a process that runs Qt's
threads is unsafe) and stays for the next request, so its imports are paid once. Work that
is cancelled, or a window that closes, ends the process; the next request starts another.
"""

from __future__ import annotations

import multiprocessing
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import TypeVar, TypeVarTuple, cast

from desktop.domain.errors import TiebreakError

POLL = 0.05  # seconds between looks at the cancel event while the child works


R = TypeVar("R")
Args = TypeVarTuple("Args")


class Cancelled(TiebreakError):
    """The work was cancelled before it ended (the process doing it was ended)."""


def _serve(conn: Connection) -> None:
    """The child's loop: run each function asked for, send back its result or its error
    as one line (what the window shows), until the pipe closes."""
    while True:
        try:
            function, args = conn.recv()
        except (EOFError, OSError):
            return
        try:
            answer: tuple[bool, object] = (True, function(*args))
        except TiebreakError as exc:
            answer = (False, str(exc))
        except Exception as exc:
            answer = (False, f"unexpected {type(exc).__name__}: {exc}")
        try:
            conn.send(answer)
        except Exception as exc:  # a result that cannot be pickled: say so, not hang
            conn.send((False, f"unexpected {type(exc).__name__}: {exc}"))


class ChildProcess:
    """One process, one piece of work at a time (the callers' requests wait their turn)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: BaseProcess | None = None
        self._conn: Connection | None = None

    def run(self, function: Callable[[*Args], R], *args: *Args, cancel: threading.Event) -> R:
        """``function(*args)`` in the child (``function`` importable by name, ``args`` and
        its result picklable); its TiebreakError raised here, with its message."""
        with self._lock:
            conn, process = self._started()
            conn.send((function, args))
            while not conn.poll(POLL):
                if cancel.is_set():
                    self._end()
                    raise Cancelled("cancelled")
                if not process.is_alive():
                    raise self._gone(process)
            try:
                ok, value = conn.recv()
            except (EOFError, OSError):
                raise self._gone(process) from None
            if not ok:
                raise TiebreakError(value)
            return cast(R, value)  # what ``function`` returned, through the pipe

    def _gone(self, process: BaseProcess) -> TiebreakError:
        """The child ended without an answer (killed, out of memory, a crash in C)."""
        process.join(timeout=5)
        code = process.exitcode
        self._end()
        return TiebreakError(f"the process computing the figures ended (exit code {code})")

    def close(self) -> None:
        with self._lock:
            self._end()

    def _started(self) -> tuple[Connection, BaseProcess]:
        if self._process is None or self._conn is None or not self._process.is_alive():
            self._end()
            context = multiprocessing.get_context("spawn")
            ours, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs,), daemon=True)
            process.start()
            theirs.close()
            self._process, self._conn = process, ours
        return self._conn, self._process

    def _end(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is not None:
            if process.is_alive():
                process.terminate()
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
