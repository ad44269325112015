"""Deep nesting where `tiebreak models` reads: a GGUF metadata array 100,000 arrays deep,
an Ollama manifest of a megabyte of brackets, a loopback server's model list nested as
deep. Each ended the listing with "unexpected RecursionError" and listed nothing, not even
the good files; each is now listed with its reason, beside the good ones."""

from __future__ import annotations

import json
import struct
from pathlib import Path

from tests.gguf_files import write_gguf
from tests.hostile.conftest import Hostile, Run
from tests.hostile.loopback import ports_env, send, serving

DEPTH = 100_000
_ARRAY, _U8 = 9, 0


def nested_array_gguf(path: Path) -> Path:
    """A header whose one key is an array of arrays of arrays ... DEPTH deep."""
    key = b"general.nested"
    value = struct.pack("<I", _ARRAY) + struct.pack("<IQ", _ARRAY, 1) * DEPTH
    value += struct.pack("<IQ", _U8, 0)
    tensor = struct.pack("<Q", 1) + b"w" + struct.pack("<IQIQ", 1, 32, 0, 0)
    body = struct.pack("<Q", len(key)) + key + value + tensor
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 1, 1) + body + bytes(64))
    return path


def listing(hostile: Hostile, tmp_path: Path, *args: str, **env: str) -> Run:
    home = tmp_path / "home"
    run = hostile.cli(
        "models", *args, env={"HOME": str(home), "XDG_CACHE_HOME": str(home / "c"), **env}
    )
    hostile.succeeded(run)
    assert "unexpected" not in run.stderr and "Recursion" not in run.stdout, run
    return run


def line_of(run: Run, label: str) -> str:
    (line,) = [x for x in run.stdout.splitlines() if f" {label} " in x or x.endswith(label)]
    return line


def test_a_gguf_array_nested_deep_is_listed_with_its_reason(
    tmp_path: Path, hostile: Hostile
) -> None:
    folder = tmp_path / "models"
    write_gguf(folder / "good.gguf", name="Good Model")
    nested_array_gguf(folder / "nested.gguf")
    run = listing(hostile, tmp_path, "--no-servers", TIEBREAK_MODEL_PATH=str(folder))
    assert "Good Model" in line_of(run, "good.gguf")
    assert "cannot be used:" in line_of(run, "nested.gguf") and "array" in run.stdout
    refused = hostile.cli("profile", "add", "mine", "--gguf", folder / "nested.gguf")
    hostile.refused(refused, says=(f"{folder / 'nested.gguf'}: ", "array"))


def test_an_ollama_manifest_of_brackets_is_listed_with_its_reason(
    tmp_path: Path, hostile: Hostile
) -> None:
    store = tmp_path / "ollama"
    folder = store / "manifests" / "registry.ollama.ai" / "library" / "deep"
    folder.mkdir(parents=True)
    (store / "blobs").mkdir()
    (folder / "latest").write_text("[" * ((1 << 20) - 1))
    models = tmp_path / "models"
    write_gguf(models / "good.gguf", name="Good Model")
    run = listing(
        hostile,
        tmp_path,
        "--no-servers",
        OLLAMA_MODELS=str(store),
        TIEBREAK_MODEL_PATH=str(models),
    )
    assert "Good Model" in line_of(run, "good.gguf")
    deep = line_of(run, "deep:latest")
    assert "cannot be used:" in deep and "nested too deeply" in deep, deep


def test_a_server_s_model_list_nested_deep_is_listed_with_its_reason(
    tmp_path: Path, hostile: Hostile
) -> None:
    deep = b'{"models": ' + b"[" * DEPTH + b"]" * DEPTH + b"}"
    models = tmp_path / "models"
    write_gguf(models / "good.gguf", name="Good Model")
    with serving(lambda handler: send(handler, deep)) as (port, _):
        run = listing(hostile, tmp_path, TIEBREAK_MODEL_PATH=str(models), **ports_env(ollama=port))
        as_json = listing(
            hostile, tmp_path, "--json", TIEBREAK_MODEL_PATH=str(models), **ports_env(ollama=port)
        )
    assert "Good Model" in line_of(run, "good.gguf")
    (server,) = [x for x in run.stdout.splitlines() if f"http://127.0.0.1:{port}/v1" in x]
    assert server.startswith("     Ollama ") and server.endswith(
        "(answers, but its model list cannot be read: nested too deeply"
        " (more than about 900 levels of [ and {))"
    ), server
    (listed,) = json.loads(as_json.stdout)["servers"]
    assert listed["models"] == [] and "nested too deeply" in listed["problem"], listed
