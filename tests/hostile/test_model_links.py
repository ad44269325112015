"""`tiebreak models` reads nothing outside the model folders, and prints no file's bytes.

A link in a model folder (``m/passwd.gguf -> /etc/passwd``, an Ollama blob or a Hugging
Face snapshot file linking out of its cache) was read, and a file that was not a model was
listed with its first bytes. Each case puts, outside the folders, a real GGUF file whose
name would show in the listing if it were read, and a text file whose words would show if
its bytes were printed; a Hugging Face snapshot's link into its own ``blobs/`` is still read.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.gguf_files import write_gguf
from tests.hostile.conftest import Hostile, Run

SECRET = "root:x:0:0:SECRET-WORDS"


@pytest.fixture
def outside(tmp_path: Path) -> dict[str, Path]:
    """Files where no model folder is: a GGUF model and a secret."""
    elsewhere = tmp_path / "elsewhere"
    model = write_gguf(elsewhere / "private.gguf", name="Outside Model")
    secret = elsewhere / "passwd"
    secret.write_text(SECRET + "\n")
    return {"model": model, "secret": secret}


def listing(hostile: Hostile, home: Path, **env: str) -> Run:
    run = hostile.cli(
        "models", "--no-servers", env={"HOME": str(home), "XDG_CACHE_HOME": str(home / "c"), **env}
    )
    hostile.succeeded(run)
    return run


def nothing_outside_read(run: Run) -> None:
    assert "Outside Model" not in run.stdout, run.stdout
    assert "SECRET" not in run.stdout and "root:" not in run.stdout, run.stdout
    assert "b'" not in run.stdout, run.stdout


def test_links_out_of_a_model_folder_are_not_read(
    tmp_path: Path, outside: dict[str, Path], hostile: Hostile
) -> None:
    folder = tmp_path / "models"
    write_gguf(folder / "good.gguf", name="Good Model")
    (folder / "passwd.gguf").symlink_to(outside["secret"])
    (folder / "private.gguf").symlink_to(outside["model"])
    (folder / "sub").mkdir()
    (folder / "sub" / "up.gguf").symlink_to(Path("../..") / "elsewhere" / "private.gguf")
    run = listing(hostile, tmp_path / "home", TIEBREAK_MODEL_PATH=str(folder))
    nothing_outside_read(run)
    lines = run.stdout.splitlines()
    assert any("Good Model" in line for line in lines), run.stdout
    for name in ("passwd.gguf", "private.gguf", "up.gguf"):
        (line,) = [x for x in lines if f" {name} " in x or f"/{name} " in x]
        assert "a link to a file outside the model folders; not read" in line, line
    hostile.held()


def test_a_file_that_is_not_a_model_is_listed_without_its_bytes(
    tmp_path: Path, hostile: Hostile
) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "notes.gguf").write_text(SECRET)
    run = listing(hostile, tmp_path / "home", TIEBREAK_MODEL_PATH=str(folder))
    nothing_outside_read(run)
    assert "notes.gguf  cannot be used:" in run.stdout
    assert "not a GGUF model file" in run.stdout


def test_an_ollama_blob_linking_out_is_not_read(
    tmp_path: Path, outside: dict[str, Path], hostile: Hostile
) -> None:
    store = tmp_path / "ollama"
    for tag, target in (("a", outside["model"]), ("b", outside["secret"])):
        digest = hashlib.sha256(tag.encode()).hexdigest()
        (store / "blobs").mkdir(parents=True, exist_ok=True)
        (store / "blobs" / f"sha256-{digest}").symlink_to(target)
        manifest = store / "manifests" / "registry.ollama.ai" / "library" / "m" / tag
        manifest.parent.mkdir(parents=True, exist_ok=True)
        layer = {"mediaType": "application/vnd.ollama.image.model", "digest": f"sha256:{digest}"}
        manifest.write_text(json.dumps({"layers": [layer]}))
    run = listing(hostile, tmp_path / "home", OLLAMA_MODELS=str(store))
    nothing_outside_read(run)
    for label in ("m:a", "m:b"):
        (line,) = [x for x in run.stdout.splitlines() if f" {label} " in x]
        assert "a link to a file outside the model folders; not read" in line, line


def test_a_hugging_face_snapshot_reads_its_own_blobs_only(
    tmp_path: Path, outside: dict[str, Path], hostile: Hostile
) -> None:
    hub = tmp_path / "hub"
    repo = hub / "models--org--Hub-GGUF"
    write_gguf(repo / "blobs" / ("ab" * 32), name="Hub Model")
    other = hub / "models--org--Other"
    write_gguf(other / "blobs" / ("ef" * 32), name="Other Repo Model")
    snapshot = repo / "snapshots" / ("cd" * 20)
    snapshot.mkdir(parents=True)
    (snapshot / "own.gguf").symlink_to(Path("../../blobs") / ("ab" * 32))
    (snapshot / "out.gguf").symlink_to(outside["model"])
    (snapshot / "passwd.gguf").symlink_to(outside["secret"])
    (snapshot / "theirs.gguf").symlink_to(other / "blobs" / ("ef" * 32))
    run = listing(hostile, tmp_path / "home", HF_HUB_CACHE=str(hub))
    nothing_outside_read(run)
    lines = run.stdout.splitlines()
    (own,) = [x for x in lines if "/own.gguf " in x]
    assert "Hub Model" in own, own
    (theirs,) = [x for x in lines if "/theirs.gguf " in x]
    assert "outside" in theirs and "Other Repo Model" not in theirs, theirs
    for name in ("out.gguf", "passwd.gguf"):
        (line,) = [x for x in lines if f" {name} " in x or f"/{name} " in x]
        assert "a link to a file outside the model folders; not read" in line, line
