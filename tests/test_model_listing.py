"""`tiebreak models` finds the models already on the machine: GGUF files in llama.cpp's,
LM Studio's, the Hugging Face hub's and Ollama's folders (Ollama's through its manifests to
the weights blob) and in $TIEBREAK_MODEL_PATH, each described from its header; and servers
on their loopback ports with their model lists. `--add` turns one into a profile.

Every folder is built in tmp_path as the tool writes it, the home folder is tmp_path's
(tests/conftest.py), and the servers are local HTTP servers answering Ollama's and OpenAI's
model-list requests, so nothing of the machine's own is read or asked."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from desktop.adapters.model_places import model_places
from desktop.adapters.profiles_file import load_profiles
from desktop.cli.main import main
from desktop.services.model_listing import find_models
from tests.gguf_files import copy_of_bundled, write_gguf
from tests.local_server_helpers import require_llama

# Ollama's GET /api/tags (ollama/ollama docs/api.md, "List Local Models").
OLLAMA_TAGS = {
    "models": [
        {
            "name": "llama3.2:3b",
            "model": "llama3.2:3b",
            "modified_at": "2025-01-05T10:00:00Z",
            "size": 2019393189,
            "digest": "a80c4f17acd5" + "0" * 52,
            "details": {
                "parent_model": "",
                "format": "gguf",
                "family": "llama",
                "families": ["llama"],
                "parameter_size": "3.2B",
                "quantization_level": "Q4_K_M",
            },
        }
    ]
}
# LM Studio's (and llama-server's) GET /v1/models, OpenAI's shape.
OPENAI_MODELS = {
    "object": "list",
    "data": [{"id": "qwen2.5-7b-instruct", "object": "model", "owned_by": "organization_owner"}],
}


class _Handler(BaseHTTPRequestHandler):
    replies: ClassVar[dict[str, object]] = {}

    def do_GET(self) -> None:
        reply = self.replies.get(self.path)
        body = json.dumps(reply).encode() if reply is not None else b"{}"
        self.send_response(200 if reply is not None else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def serve(replies: dict[str, object]) -> ThreadingHTTPServer:
    handler = type("Handler", (_Handler,), {"replies": replies})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, int]]:
    """An Ollama and an LM Studio stand-in on loopback ports; llama.cpp's port left out."""
    ollama = serve({"/api/tags": OLLAMA_TAGS})
    lmstudio = serve({"/v1/models": OPENAI_MODELS})
    ports = (ollama.server_address[1], lmstudio.server_address[1])
    monkeypatch.setenv(
        "TIEBREAK_SERVER_PORTS", f"ollama={ports[0]},lmstudio={ports[1]},llama.cpp=0"
    )
    yield ports
    for server in (ollama, lmstudio):
        server.shutdown()
        server.server_close()


def ollama_pull(store: Path, host: str, namespace: str, model: str, tag: str, weights: Path):
    """What `ollama pull` leaves: the weights and the other layers as blobs named by their
    digest, and a manifest naming them (schemaVersion 2, Docker's manifest media type)."""
    blobs = store / "blobs"
    blobs.mkdir(parents=True, exist_ok=True)

    def blob(data: bytes) -> dict[str, object]:
        digest = hashlib.sha256(data).hexdigest()
        (blobs / f"sha256-{digest}").write_bytes(data)
        return {"digest": f"sha256:{digest}", "size": len(data)}

    layers = [
        {"mediaType": "application/vnd.ollama.image.model", **blob(weights.read_bytes())},
        {"mediaType": "application/vnd.ollama.image.template", **blob(b"{{ .Prompt }}")},
        {"mediaType": "application/vnd.ollama.image.params", **blob(b'{"stop": ["<|eot|>"]}')},
    ]
    manifest = {
        "schemaVersion": 2,
        "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {"mediaType": "application/vnd.docker.container.image.v1+json", **blob(b"{}")},
        "layers": layers,
    }
    path = store / "manifests" / host / namespace / model / tag
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(manifest))
    return blobs / layers[0]["digest"].replace(":", "-")  # type: ignore[union-attr]


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A home folder with models where each tool keeps them, and one where none looks."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    made = tmp_path / "made"
    found: dict[str, Path] = {}
    # LM Studio: ~/.lmstudio/models/<publisher>/<model>/<file>.gguf, and a partial download.
    lms = home / ".lmstudio" / "models" / "lmstudio-community" / "Tiny-GGUF"
    found["lmstudio"] = write_gguf(lms / "Tiny-Q4_K_M.gguf", name="Tiny LM")
    (lms / ".Tiny-Q8_0.gguf.part").write_bytes(b"GGUF half")
    # The Hugging Face hub cache: a snapshot's file is a link to a blob.
    repo = home / ".cache" / "huggingface" / "hub" / "models--org--Hub-GGUF"
    blob = write_gguf(repo / "blobs" / ("ab" * 32), name="Hub Model", file_type=7)
    snapshot = repo / "snapshots" / ("cd" * 20)
    snapshot.mkdir(parents=True)
    (snapshot / "hub-q8_0.gguf").symlink_to(Path("../../blobs") / ("ab" * 32))
    found["hf"] = blob
    # Ollama, at $OLLAMA_MODELS: its library's model and one pulled from the Hugging Face hub.
    store = tmp_path / "ollama"
    monkeypatch.setenv("OLLAMA_MODELS", str(store))
    found["ollama"] = ollama_pull(
        store, "registry.ollama.ai", "library", "tiny", "latest", write_gguf(made / "o.gguf")
    )
    found["ollama_hf"] = ollama_pull(
        store, "hf.co", "org", "Other-GGUF", "Q4_K_M", write_gguf(made / "p.gguf", name="P")
    )
    # llama.cpp's cache ($LLAMA_CACHE): the bundled model, a second real file.
    monkeypatch.setenv("LLAMA_CACHE", str(tmp_path / "llama.cpp"))
    found["llamacpp"] = tmp_path / "llama.cpp" / "HuggingFaceTB_SmolLM2_smollm2.gguf"
    # $TIEBREAK_MODEL_PATH: a text file renamed .gguf.
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "notes.gguf").write_text("not a model")
    found["renamed"] = extra / "notes.gguf"
    monkeypatch.setenv("TIEBREAK_MODEL_PATH", str(extra))
    # Where no tool keeps models: never read.
    write_gguf(home / "Downloads" / "elsewhere.gguf")
    return found


def test_the_places_are_the_tools_own(machine: dict[str, Path], tmp_path: Path) -> None:
    (tmp_path / "llama.cpp").mkdir()
    places = [(p.source, p.folder) for p in model_places()]
    home = tmp_path / "home"
    assert places == [
        ("TIEBREAK_MODEL_PATH", tmp_path / "extra"),
        ("llama.cpp", tmp_path / "llama.cpp"),
        ("LM Studio", home / ".lmstudio" / "models"),
        ("Hugging Face", home / ".cache" / "huggingface" / "hub"),
        ("Ollama", tmp_path / "ollama"),
    ]


def test_models_lists_files_and_servers(
    machine: dict[str, Path], servers: tuple[int, int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models"]) == 0
    lines = capsys.readouterr().out.splitlines()
    ollama, lmstudio = servers
    assert lines[0] == (
        f"  1  TIEBREAK_MODEL_PATH notes.gguf  cannot be used: {machine['renamed']}:"
        " not a GGUF model file (it does not start with 'GGUF')"
    )
    assert lines[1:] == [
        f"  2  LM Studio     Tiny-Q4_K_M.gguf  Tiny LM · llama · 4K · Q4_K_M · 0 MB"
        f"  {machine['lmstudio']}",
        f"  3  Hugging Face  org/Hub-GGUF/hub-q8_0.gguf  Hub Model · llama · 4K · Q8_0 · 0 MB"
        f"  {machine['hf'].parent.parent / 'snapshots' / ('cd' * 20) / 'hub-q8_0.gguf'}",
        f"  4  Ollama        hf.co/org/Other-GGUF:Q4_K_M  P · llama · 4K · Q4_K_M · 0 MB"
        f"  {machine['ollama_hf']}",
        f"  5  Ollama        tiny:latest  Tiny Test Model · llama · 4K · Q4_K_M · 0 MB"
        f"  {machine['ollama']}",
        f"  6  Ollama        llama3.2:3b  llama · 3.2B · Q4_K_M · 1.9 GB"
        f"  http://127.0.0.1:{ollama}/v1",
        f"  7  LM Studio     qwen2.5-7b-instruct  http://127.0.0.1:{lmstudio}/v1",
        "'tiebreak models --add N' makes a profile of model N",
    ]
    assert "elsewhere" not in "\n".join(lines)  # ~/Downloads is no model folder


def test_a_real_model_in_llama_cpp_s_cache_is_described_from_its_header(
    machine: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    require_llama()
    copy_of_bundled(machine["llamacpp"])
    assert main(["models", "--no-servers", "--json"]) == 0
    files = json.loads(capsys.readouterr().out)["files"]
    (real,) = [f for f in files if f["source"] == "llama.cpp"]
    assert real["name"] == "Smollm2 135M 8k Lc100K Mix1 Ep2"
    assert (real["architecture"], real["parameters"], real["quantization"]) == (
        "llama",
        134_515_008,
        "Q4_1",
    )
    assert real["size"] == 98_362_432 and real["chat_template"] and real["problem"] is None


def test_add_makes_a_profile_of_a_file_or_a_server_model(
    machine: dict[str, Path], servers: tuple[int, int], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "--add", "tiny:latest"]) == 0
    assert main(["models", "--add", "6"]) == 0
    assert main(["models", "--add", "2", "--name", "lms-file"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"saved profile tiny-latest (GGUF file {machine['ollama']})"
    assert out[1] == f"saved profile llama3.2-3b (llama3.2:3b at http://127.0.0.1:{servers[0]}/v1)"
    profiles = load_profiles()
    assert profiles["tiny-latest"].gguf == str(machine["ollama"])
    assert profiles["lms-file"].gguf == str(machine["lmstudio"])
    served = profiles["llama3.2-3b"]
    assert served.base_url == f"http://127.0.0.1:{servers[0]}/v1" and not served.needs_key
    assert main(["models", "--add", "1"]) == 1  # the renamed text file
    assert main(["models", "--add", "99"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert (
        err[0] == f"tiebreak: error: {machine['renamed']}: not a GGUF model file"
        " (it does not start with 'GGUF')"
    )
    assert (
        err[1] == "tiebreak: error: no model '99' among the 7 found; 'tiebreak models' numbers them"
    )


def test_a_file_changed_since_the_last_listing_is_read_again(machine: dict[str, Path]) -> None:
    first = {f.label: f for f in find_models(servers=False).files}
    assert first["Tiny-Q4_K_M.gguf"].problem is None
    whole = machine["lmstudio"].read_bytes()
    machine["lmstudio"].write_bytes(whole[:200])  # overwritten by a download cut short
    again = {f.label: f for f in find_models(servers=False).files}
    assert again["Tiny-Q4_K_M.gguf"].problem is not None
    assert "cut short" in again["Tiny-Q4_K_M.gguf"].problem


def test_servers_are_asked_directly_never_through_a_proxy(
    machine: dict[str, Path], servers: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("http_proxy", "HTTP_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    kinds = [s.kind for s in find_models().servers]
    assert kinds == ["Ollama", "LM Studio"]


def test_an_older_ollama_s_blob_names_are_read_too(tmp_path: Path) -> None:
    """Ollama once named blobs ``sha256:<hex>``, as the digest is written."""
    store = tmp_path / "ollama"
    blob = ollama_pull(
        store, "registry.ollama.ai", "library", "old", "7b", write_gguf(tmp_path / "w.gguf")
    )
    colon = blob.with_name(blob.name.replace("sha256-", "sha256:"))
    blob.rename(colon)
    found = find_models({"OLLAMA_MODELS": str(store), "HOME": str(tmp_path)}, servers=False)
    assert [(f.label, f.path) for f in found.files] == [("old:7b", str(colon))]


def test_nothing_answers_on_closed_ports(machine: dict[str, Path]) -> None:
    assert find_models().servers == []  # conftest leaves every port out
