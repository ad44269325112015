"""Model servers already running on this machine, asked on their default loopback ports for
their model lists: Ollama (11434, ``GET /api/tags``), LM Studio (1234) and llama.cpp's
``llama-server`` (8080), both OpenAI's ``GET /v1/models``. Only 127.0.0.1 is ever
contacted, never through a proxy, no redirect followed, each exchange ended at a deadline
(``loopback_http``), all three at once.

``$TIEBREAK_SERVER_PORTS`` changes the ports (``ollama=11500,lmstudio=1235``; 0 leaves that
server out): for a server moved off its default port, and for the tests.

Replies (ollama/ollama ``docs/api.md``, "List Local Models"; OpenAI's "List models"):
``{"models": [{"name": "llama3.2:3b", "size": ..., "details": {"family": "llama",
"parameter_size": "3.2B", "quantization_level": "Q4_K_M"}}]}`` and ``{"object": "list",
"data": [{"id": "qwen2.5-7b-instruct", "object": "model"}]}``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from desktop.adapters.formats.json_stream import NestedTooDeeply, loads_whole
from desktop.adapters.loopback_http import HOST, get

TIMEOUT_S = 2.0  # the whole exchange with one server: they are asked all at once
REPLY_LIMIT = 1 << 20  # a model list is a few kilobytes


@dataclass(frozen=True)
class ServerKind:
    key: str  # as in $TIEBREAK_SERVER_PORTS
    name: str  # for a person
    port: int
    list_path: str  # the model list
    ollama: bool = False


KINDS = (
    ServerKind("ollama", "Ollama", 11434, "/api/tags", ollama=True),
    ServerKind("lmstudio", "LM Studio", 1234, "/v1/models"),
    ServerKind("llama.cpp", "llama.cpp server", 8080, "/v1/models"),
)


@dataclass(frozen=True)
class ServedModel:
    name: str
    family: str | None = None
    parameters: str | None = None  # as the server says: "3.2B"
    quantization: str | None = None
    size: int | None = None  # bytes


@dataclass(frozen=True)
class RunningServer:
    kind: str  # ServerKind.name
    base_url: str  # OpenAI-compatible, as a profile's base URL
    models: tuple[ServedModel, ...] = field(default_factory=tuple)
    problem: str | None = None  # why its model list cannot be read


def server_ports(env: Mapping[str, str] | None = None) -> list[tuple[ServerKind, int]]:
    """Each kind with the port to ask it on; a kind set to 0 is left out."""
    env = os.environ if env is None else env
    chosen = {kind.key: kind.port for kind in KINDS}
    for item in env.get("TIEBREAK_SERVER_PORTS", "").split(","):
        key, _, value = item.strip().partition("=")
        if key in chosen and value.strip().isdigit():
            chosen[key] = int(value)
    return [(kind, chosen[kind.key]) for kind in KINDS if 0 < chosen[kind.key] < 65536]


def running_servers(env: Mapping[str, str] | None = None) -> list[RunningServer]:
    """The servers that answer, in the order of ``KINDS``, each with its models."""
    ports = server_ports(env)
    if not ports:
        return []
    with ThreadPoolExecutor(max_workers=len(ports)) as pool:
        answers = list(pool.map(lambda item: _ask(*item), ports))
    return [server for server in answers if server is not None]


def _ask(kind: ServerKind, port: int) -> RunningServer | None:
    base_url = f"http://{HOST}:{port}/v1"
    try:
        reply = get(port, kind.list_path, seconds=TIMEOUT_S, limit=REPLY_LIMIT)
        if reply.status != 200:  # a redirect too: never followed
            return None
        data = loads_whole(reply.body) if len(reply.body) <= REPLY_LIMIT else None
    except NestedTooDeeply as exc:  # a model list, but not one that can be read
        return RunningServer(kind.name, base_url, problem=str(exc))
    except (OSError, ValueError):
        return None  # nothing there, or another program on the port
    if not isinstance(data, dict):
        return None
    models = _ollama_models(data) if kind.ollama else _openai_models(data)
    if models is None:
        return None
    return RunningServer(kind.name, base_url, models)


def _ollama_models(data: dict) -> tuple[ServedModel, ...] | None:
    entries = data.get("models")
    if not isinstance(entries, list):
        return None
    models = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            continue
        details = entry.get("details")
        if not isinstance(details, dict):
            details = {}
        size = entry.get("size")
        models.append(
            ServedModel(
                entry["name"],
                _text(details.get("family")),
                _text(details.get("parameter_size")),
                _text(details.get("quantization_level")),
                size if isinstance(size, int) else None,
            )
        )
    return tuple(models)


def _openai_models(data: dict) -> tuple[ServedModel, ...] | None:
    entries = data.get("data")
    if not isinstance(entries, list):
        return None
    return tuple(
        ServedModel(entry["id"])
        for entry in entries
        if isinstance(entry, dict) and isinstance(entry.get("id"), str)
    )


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
