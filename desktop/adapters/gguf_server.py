"""A GGUF file of the user's own, served as the built-in model is: the same launcher
(``llama_launch``: no extra buffer types), the same ``LocalServer`` (a free loopback port,
started when first needed, stopped at exit, a crash reported and restarted once by the
job), with the chat template the file carries (llama-cpp-python's server reads
``tokenizer.chat_template`` when no chat format is given) and a context size and threads
chosen from the file's header and this machine (``domain/model_fit.py``).

One such server runs at a time: asking for another file stops the one before, since two
real models rarely fit in memory together. The built-in server is apart and stays.
"""

from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path

from desktop.adapters.gguf_file import GgufError, GgufHeader, read_header
from desktop.adapters.local_server import LocalServer, launch_argv, server_options
from desktop.domain.model_fit import ModelFit, fit_model, size_text


def machine_memory() -> int | None:
    """The machine's physical memory in bytes, where the system says (Linux, macOS)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def check_gguf(
    path: Path, *, n_ctx: int | None = None, threads: int | None = None
) -> tuple[GgufHeader, ModelFit]:
    """The file's header and how it will run here; GgufError, in one line naming the file,
    for a file that is not a GGUF model, is cut short, or would not fit in memory."""
    header = read_header(path)
    fit = fit_model(
        file_size=header.file_size,
        kv_bytes_per_token=header.kv_bytes_per_token(),
        trained_context=header.context_length,
        memory_bytes=machine_memory(),
        cpus=os.cpu_count() or 2,
        n_ctx=n_ctx,
        threads=threads,
    )
    if not fit.fits:
        assert fit.memory_bytes is not None
        raise GgufError(
            f"{path}: too large for this machine's memory (needs about"
            f" {size_text(fit.needed_bytes)} with a {fit.n_ctx:,}-token context;"
            f" {size_text(fit.memory_bytes)} installed)"
        )
    return header, fit


def gguf_options(fit: ModelFit, logprobs: bool, threads_set: bool) -> dict[str, str]:
    """The built-in server's settings, with the threads a profile set for both reading the
    prompt and generating."""
    options = server_options(logprobs=logprobs)
    options["n_threads"] = str(fit.threads)
    if threads_set:
        options["n_threads_batch"] = str(fit.threads)
    return options


def server_name(path: Path) -> str:
    return f"the model server for {path.name}"


_lock = threading.Lock()
_servers: dict[tuple[str, int, int | None, str], LocalServer] = {}


def gguf_server(
    path: Path, alias: str, *, n_ctx: int | None = None, threads: int | None = None
) -> LocalServer:
    """The server for this file and settings (not started yet: a job starts it), the one
    for any other file stopped. Checks the file first (GgufError)."""
    _, fit = check_gguf(path, n_ctx=n_ctx, threads=threads)
    key = (str(path.resolve()), fit.n_ctx, threads, alias)
    with _lock:
        for other in [k for k in _servers if k != key]:
            _servers.pop(other).stop()
        if key not in _servers:

            def command(port: int, logprobs: bool) -> list[str]:
                options = gguf_options(fit, logprobs, threads is not None)
                return launch_argv(path, alias, port, fit.n_ctx, options)

            # Loading reads the whole file: a large one from a cold disk takes a while.
            timeout = 120.0 + 30.0 * path.stat().st_size / (1 << 30)
            _servers[key] = LocalServer(
                n_ctx=fit.n_ctx,
                command=command,
                name=server_name(path),
                startup_timeout=timeout,
            )
        return _servers[key]


def stop_all() -> None:
    with _lock:
        while _servers:
            _servers.popitem()[1].stop()


atexit.register(stop_all)

__all__ = ["GgufError", "check_gguf", "gguf_server", "machine_memory", "stop_all"]
