"""Model servers for the hostile cases of `tiebreak models`: an HTTP server on a free
127.0.0.1 port whose every GET is answered by a function of the path, which writes its
reply itself (so a case can redirect, drip its reply a byte at a time, or nest it deep)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Reply = Callable[[BaseHTTPRequestHandler], None]


def send(handler: BaseHTTPRequestHandler, body: bytes, status: int = 200, **headers: str) -> None:
    """A whole reply: status, headers (a Content-Length unless one is given), body."""
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    for name, value in headers.items():
        handler.send_header(name.replace("_", "-"), value)
    if "Content_Length" not in headers:
        handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@contextlib.contextmanager
def serving(reply: Reply) -> Iterator[tuple[int, list[str]]]:
    """A server answering with ``reply``: its port, and the paths asked so far."""
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            with contextlib.suppress(OSError):  # the client may give up first
                reply(self)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], asked
    finally:
        server.shutdown()
        server.server_close()


def ports_env(ollama: int = 0, lmstudio: int = 0, llama_cpp: int = 0) -> dict[str, str]:
    """$TIEBREAK_SERVER_PORTS asking only the kinds given a port."""
    chosen = {"ollama": ollama, "lmstudio": lmstudio, "llama.cpp": llama_cpp}
    return {"TIEBREAK_SERVER_PORTS": ",".join(f"{k}={v}" for k, v in chosen.items())}
