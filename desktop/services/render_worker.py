"""Rubric templates rendered in worker processes that the operating system bounds.

A user's rubric is someone else's code, and one step of it (``2 ** 10 ** 9``, a join, a
format) runs in C where no clock inside the process can stop it. So it runs in a process
of its own: spawned (forking a process that runs Qt's threads is unsafe), with its address
space capped (``RLIMIT_AS``: past it Python raises MemoryError) and its CPU time capped
(``RLIMIT_CPU``: the kernel ends a worker left spinning after its parent has gone). The
parent waits for each render up to a deadline, looking at ``stop()`` as it waits; a worker
past the deadline or its memory, or dead, is ended, and the next render starts a fresh one.
Workers ignore Ctrl+C (the parent sees it and cancels) and are kept for the next render,
so their start-up (about 0.2 s) is paid once.

On a platform without ``resource`` (Windows), or one that refuses a limit (macOS and
``RLIMIT_AS``), the deadline and the kill alone bound a render (time, not memory).
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import signal
import threading
import time
from collections.abc import Callable
from ctypes import c_int
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from multiprocessing.sharedctypes import Synchronized
from typing import Any

from desktop.domain.errors import RubricError
from desktop.domain.render import (
    RenderOverBudget,
    RenderStopped,
    RenderTooBig,
    RenderTooSlow,
    render_variables,
)
from desktop.domain.rubric import Rubric

try:
    import resource
except ImportError:  # Windows: the deadline and the kill only
    resource = None  # type: ignore[assignment]

#: The address space one worker may map, in bytes: a worker with Jinja loaded maps about
#: 30 MB, the largest prompt (200,000 characters, a trajectory's variables) a few more.
MEMORY_BYTES = 256 * 2**20
#: Workers rendering at once: a judge's lanes and the window's prompt view.
WORKERS = 2
#: Seconds a fresh worker may take to start (import Jinja) before the render fails.
START_SECONDS = 60.0
_POLL = 0.02  # seconds between looks at stop() while a worker renders
_READY = "ready"
Messages = list[dict[str, str]]


def _limit(kind: int, most: int) -> None:
    """Lower the soft limit ``kind`` to ``most``, under the hard limit (left as it is, so
    a later render may raise the soft limit again)."""
    if resource is None:
        return
    _, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        most = min(most, hard)
    with contextlib.suppress(ValueError, OSError):  # macOS refuses RLIMIT_AS: time holds
        resource.setrlimit(kind, (most, hard))


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF) if resource is not None else None
    return usage.ru_utime + usage.ru_stime if usage is not None else 0.0


def _serve(conn: Connection, at: Synchronized[int], memory: int) -> None:
    """The worker's loop: render each rubric asked for; its messages, or the error it
    raised, back. MemoryError ends the worker once said: the next render gets a fresh one."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if resource is not None:
        _limit(resource.RLIMIT_AS, memory)

    def started(index: int) -> None:
        at.value = index

    conn.send(_READY)
    while True:
        try:
            rubric, variables, label, max_chars, seconds = conn.recv()
        except (EOFError, OSError):
            return
        except MemoryError:  # a pair too big to take in
            conn.send(("memory", None))
            return
        if resource is not None:  # a backstop: the parent's deadline comes first
            _limit(resource.RLIMIT_CPU, math.ceil(_cpu_used() + seconds) + 2)
        try:
            messages = render_variables(rubric, variables, label, max_chars=max_chars, at=started)
            reply: tuple[str, Any] = ("ok", messages)
        except MemoryError:
            reply = ("memory", None)
        except RubricError as exc:
            reply = ("error", exc)
        except Exception as exc:  # not the template's doing: one line all the same
            detail = " ".join(str(exc).split())
            reply = ("error", RubricError(f"{rubric.name}: {type(exc).__name__}: {detail}"))
        conn.send(reply)
        if reply[0] == "memory":
            return


class _Worker:
    """One spawned process, rendering one prompt at a time."""

    def __init__(self, memory: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.at: Synchronized[int] = context.Value(c_int, 0, lock=False)  # type: ignore[assignment]
        ours, theirs = context.Pipe()
        self.process: BaseProcess = context.Process(
            target=_serve, args=(theirs, self.at, memory), daemon=True, name="tiebreak-render"
        )
        self.process.start()
        theirs.close()
        self.conn = ours
        self.ready = False

    def wait(self, seconds: float, stop: Callable[[], bool] | None) -> bool:
        """Whether an answer came within ``seconds``; RenderStopped once ``stop()``."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if self.conn.poll(max(0.0, min(_POLL, left))):
                return True
            if stop is not None and stop():
                raise RenderStopped
            if left <= 0 or not self.process.is_alive():
                return self.conn.poll()

    def started(self, stop: Callable[[], bool] | None) -> None:
        if self.ready:
            return
        if not self.wait(START_SECONDS, stop) or self.conn.recv() != _READY:
            code = self.process.exitcode
            raise RenderOverBudget(f"the process that renders prompts did not start ({code=})")
        self.ready = True

    def end(self) -> int | None:
        """End the process (it may be spinning in C) and say how it ended."""
        self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        return self.process.exitcode


class RenderWorkers:
    """Up to ``size`` workers; a render waits for a free one."""

    def __init__(self, size: int = WORKERS, memory: int = MEMORY_BYTES) -> None:
        self.memory = memory
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(size)

    def warm(self) -> None:
        """Start a worker now, without waiting for it, so that its start-up runs while
        the caller does something else (a judge's first call to the server)."""
        with self._lock:
            if not self._idle:
                self._idle.append(_Worker(self.memory))

    def render(
        self,
        rubric: Rubric,
        variables: dict[str, Any],
        label: str,
        *,
        max_chars: int,
        seconds: float,
        stop: Callable[[], bool] | None = None,
    ) -> Messages:
        """``render_variables`` in a worker: RenderTooSlow past ``seconds``, RenderTooBig
        past its memory (or when it dies), RenderStopped once ``stop()`` is true."""
        with self._slots:
            with self._lock:
                while self._idle and not self._idle[-1].process.is_alive():
                    self._idle.pop().end()  # ended while idle (by the OS, or a user)
                worker = self._idle.pop() if self._idle else _Worker(self.memory)
            try:
                worker.started(stop)
                worker.at.value = 0
                worker.conn.send((rubric, variables, label, max_chars, seconds))
                answered = worker.wait(seconds, stop)
                reply: tuple[str, Any] = worker.conn.recv() if answered else ("late", None)
            except (EOFError, OSError):
                reply = ("gone", None)
            except BaseException:
                worker.end()
                raise
            kind = reply[0]
            if kind in ("ok", "error"):
                with self._lock:
                    self._idle.append(worker)
            if kind == "ok":
                messages: Messages = reply[1]
                return messages
            if kind == "error":
                error: RubricError = reply[1]
                raise error
            code = worker.end()
        where = f"{rubric.name}: message {worker.at.value + 1}"
        if kind == "late" or code == -getattr(signal, "SIGXCPU", 24):
            raise RenderTooSlow(f"{where} takes longer than {seconds:g} s to render for {label}")
        if kind == "memory":
            mb = self.memory // 2**20
            raise RenderTooBig(f"{where} needs more than {mb} MB of memory to render for {label}")
        raise RenderTooBig(
            f"{where} cannot render for {label}: the process rendering it ended (exit code {code})"
        )
