"""A model server that drips its reply (a byte every half second) hung `tiebreak models`:
each read waited its timeout afresh, and every byte came within it. The whole exchange is
bounded now. Three servers drip, at each point of the reply (the status line, the headers,
a body with a length, a chunked body); the listing ends within seconds, the good file
listed and none of the drips' models, and so does the window's list (the same service)."""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from tests.gguf_files import write_gguf
from tests.hostile.conftest import Hostile
from tests.hostile.loopback import ports_env, serving

DRIP_S = 0.5
BOUND_S = 12.0  # the whole command, its start-up included (a drip would take minutes)
BODY = b'{"models": [{"name": "drip:latest"}], "data": [{"id": "drip-model"}]}'


def dripped(handler: BaseHTTPRequestHandler, data: bytes) -> None:
    for i in range(len(data)):
        handler.wfile.write(data[i : i + 1])
        handler.wfile.flush()
        time.sleep(DRIP_S)


def drip_status(handler: BaseHTTPRequestHandler) -> None:
    head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(BODY)}\r\n\r\n".encode()
    dripped(handler, head + BODY)


def drip_body(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(BODY)))
    handler.end_headers()
    handler.wfile.flush()
    dripped(handler, BODY)


def drip_chunks(handler: BaseHTTPRequestHandler) -> None:
    handler.protocol_version = "HTTP/1.1"
    handler.send_response(200)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    for i in range(len(BODY)):
        handler.wfile.write(b"1\r\n" + BODY[i : i + 1] + b"\r\n")
        handler.wfile.flush()
        time.sleep(DRIP_S)
    handler.wfile.write(b"0\r\n\r\n")


def test_a_dripping_server_does_not_hold_the_listing(tmp_path: Path, hostile: Hostile) -> None:
    models = tmp_path / "models"
    write_gguf(models / "good.gguf", name="Good Model")
    with (
        serving(drip_status) as (ollama, _),
        serving(drip_body) as (lmstudio, _),
        serving(drip_chunks) as (llama_cpp, _),
    ):
        env = {
            **ports_env(ollama=ollama, lmstudio=lmstudio, llama_cpp=llama_cpp),
            "TIEBREAK_MODEL_PATH": str(models),
        }
        start = time.perf_counter()
        run = hostile.cli("models", env=env, timeout=120)
        seconds = time.perf_counter() - start
    hostile.succeeded(run)
    assert seconds < BOUND_S, f"took {seconds:.1f} s"
    assert "Good Model" in run.stdout, run.stdout
    assert "drip:latest" not in run.stdout and "drip-model" not in run.stdout, run.stdout
