"""Where GGUF model files already are on this machine: the folders llama.cpp, LM Studio, the
Hugging Face hub and Ollama download into, and any named in ``$TIEBREAK_MODEL_PATH``.
Nothing outside these folders is read: symbolic links to folders are not followed, and a
link to a file is read only where it leads inside its folder (for a Hugging Face
snapshot, into its own repository's ``blobs/``; for an Ollama manifest, into ``blobs/``);
any other is listed as not read.

The layouts, as each tool writes them:
- llama.cpp (``-hf``): files in ``$LLAMA_CACHE``, else ``~/.cache/llama.cpp``
  (``~/Library/Caches/llama.cpp`` on macOS, ``%LOCALAPPDATA%\\llama.cpp`` on Windows).
- LM Studio: ``~/.lmstudio/models/<publisher>/<model>/<file>.gguf`` (lmstudio.ai/docs,
  "Import Models": "LM Studio's expected models directory structure"); releases before
  0.3 used ``~/.cache/lm-studio/models`` in the same layout.
- Hugging Face hub cache: ``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else
  ``$XDG_CACHE_HOME/huggingface/hub`` or ``~/.cache/huggingface/hub``; files under
  ``models--<org>--<name>/snapshots/<revision>/``, each a link into ``blobs/`` (a blob is
  named by its hash, so a file is named by its repository and its path in it,
  ``org/name/file.gguf``, as the hub names it).
- Ollama: ``$OLLAMA_MODELS``, else ``~/.ollama/models`` (and, for Linux's system service,
  ``/usr/share/ollama/.ollama/models``). A model is a manifest,
  ``manifests/<registry>/<namespace>/<model>/<tag>``, a JSON object whose ``layers`` each
  have a ``mediaType``, a ``digest`` ("sha256:<hex>") and a ``size``; the layer of media
  type ``application/vnd.ollama.image.model`` is the GGUF weights, stored as
  ``blobs/sha256-<hex>`` (ollama/ollama, ``server/internal/manifest/manifest.go``, which
  documents the manifest format; ``docs/faq.md`` for where models are stored).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from desktop.adapters.formats.json_stream import loads_whole

GGUF_SUFFIX = ".gguf"
HUGGING_FACE = "Hugging Face"
_HUB_REPO = "models--"
OLLAMA_MODEL_LAYER = "application/vnd.ollama.image.model"
OLLAMA_REGISTRY = "registry.ollama.ai"
OLLAMA_LIBRARY = "library"
MAX_DEPTH = 8  # folders below a place: HF snapshots sit 4 deep, LM Studio's files 3
MANIFEST_LIMIT = 1 << 20  # a manifest is a few hundred bytes; a bigger file is not one
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")  # a blob's name, never a path elsewhere
OUTSIDE = "a link to a file outside the model folders; not read"
HUGGING_FACE = "Hugging Face"


@dataclass(frozen=True)
class Place:
    source: str  # "llama.cpp", "LM Studio", "Hugging Face", "Ollama", "TIEBREAK_MODEL_PATH"
    folder: Path


@dataclass(frozen=True)
class ModelFile:
    source: str
    path: Path  # the file to read (for Ollama, the weights blob)
    # How the tool that owns it names it: a file name, the hub's "org/repo/file.gguf", or
    # Ollama's "name:tag".
    label: str
    real: Path | None = None  # the file ``path`` leads to, inside its folder: the one read
    problem: str | None = None  # why it is not read (a link out of the folder)


def model_places(env: Mapping[str, str] | None = None, home: Path | None = None) -> list[Place]:
    """The folders to look in, for this environment and home folder, those that exist."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or Path.home()) if home is None else home
    places: list[Place] = []
    for folder in env.get("TIEBREAK_MODEL_PATH", "").split(os.pathsep):
        if folder.strip():
            places.append(Place("TIEBREAK_MODEL_PATH", Path(folder).expanduser()))
    places.append(Place("llama.cpp", _llama_cpp_cache(env, home)))
    places.append(Place("LM Studio", home / ".lmstudio" / "models"))
    places.append(Place("LM Studio", home / ".cache" / "lm-studio" / "models"))
    places.append(Place(HUGGING_FACE, _hf_hub_cache(env, home)))
    if env.get("OLLAMA_MODELS"):
        places.append(Place("Ollama", Path(env["OLLAMA_MODELS"]).expanduser()))
    else:
        places.append(Place("Ollama", home / ".ollama" / "models"))
        if sys.platform.startswith("linux"):
            places.append(Place("Ollama", Path("/usr/share/ollama/.ollama/models")))
    seen: set[Path] = set()
    found = []
    for place in places:
        if place.folder in seen or not place.folder.is_dir():
            continue
        seen.add(place.folder)
        found.append(place)
    return found


def _llama_cpp_cache(env: Mapping[str, str], home: Path) -> Path:
    if env.get("LLAMA_CACHE"):
        return Path(env["LLAMA_CACHE"]).expanduser()
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "llama.cpp"
    if sys.platform == "win32" and env.get("LOCALAPPDATA"):
        return Path(env["LOCALAPPDATA"]) / "llama.cpp"
    return Path(env.get("XDG_CACHE_HOME") or home / ".cache") / "llama.cpp"


def _hf_hub_cache(env: Mapping[str, str], home: Path) -> Path:
    if env.get("HF_HUB_CACHE"):
        return Path(env["HF_HUB_CACHE"]).expanduser()
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]).expanduser() / "hub"
    return Path(env.get("XDG_CACHE_HOME") or home / ".cache") / "huggingface" / "hub"


def model_files(places: list[Place]) -> Iterator[ModelFile]:
    """Every GGUF file in the places: Ollama's through its manifests, the others by name."""
    for place in places:
        if (place.folder / "manifests").is_dir() and (place.folder / "blobs").is_dir():
            yield from ollama_models(place)
        else:
            hub = place.source == HUGGING_FACE
            for path in _gguf_files(place.folder, 0):
                label = hub_label(place.folder, path) if hub else None
                yield _checked(place.source, path, label or path.name, _link_root(place, path))


def _link_root(place: Place, path: Path) -> Path:
    """The folder a link at ``path`` may lead into: a Hugging Face snapshot's own
    repository's ``blobs/`` (``models--org--name/blobs``), else the place itself."""
    if place.source != HUGGING_FACE:
        return place.folder
    parts = path.relative_to(place.folder).parts
    return place.folder / parts[0] / "blobs" if len(parts) > 1 else place.folder


def _checked(source: str, path: Path, label: str, root: Path) -> ModelFile:
    """``path`` with the file it really is, where that lies inside ``root`` (links
    resolved, the place's own included); else with the problem, and nothing to read."""
    real = Path(os.path.realpath(path))
    if not real.is_relative_to(os.path.realpath(root)):
        return ModelFile(source, path, label, problem=OUTSIDE)
    return ModelFile(source, path, label, real=real)


def hub_label(hub: Path, path: Path) -> str | None:
    """``org/repo/file.gguf`` for a file of a snapshot in the hub cache ``hub``
    (``models--org--repo/snapshots/<revision>/file.gguf``); None for any other path. The
    cache writes a repository ``org/repo`` as ``models--org--repo``, and the hub allows no
    ``--`` in a name."""
    try:
        parts = path.relative_to(hub).parts
    except ValueError:
        return None
    if len(parts) < 4 or not parts[0].startswith(_HUB_REPO) or parts[1] != "snapshots":
        return None
    repo = parts[0][len(_HUB_REPO) :].replace("--", "/")
    return "/".join((repo, *parts[3:]))


def label_of(path: Path, places: list[Place]) -> str | None:
    """How the tool that keeps ``path`` names it (``model_files``' label): the path as
    given, else the first file of the places that is this file (a hub blob reached through
    a snapshot's link, an Ollama blob through its manifest); None outside every place."""
    path = Path(os.path.abspath(path))  # links kept: a snapshot's name is the label
    for place in places:
        if place.source == HUGGING_FACE and (label := hub_label(place.folder, path)):
            return label
    try:
        wanted = path.stat()
    except OSError:
        return None
    for found in model_files(places):
        try:
            stat = found.path.stat()
        except OSError:
            continue
        if (stat.st_dev, stat.st_ino) == (wanted.st_dev, wanted.st_ino):
            return found.label
    return None


def _gguf_files(folder: Path, depth: int) -> Iterator[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:  # unreadable: skipped, as a file manager would
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue  # partial downloads (LM Studio's, huggingface_hub's .incomplete)
        try:
            if entry.is_dir(follow_symlinks=False):
                if depth < MAX_DEPTH:
                    yield from _gguf_files(Path(entry.path), depth + 1)
            elif entry.name.lower().endswith(GGUF_SUFFIX) and entry.is_file():
                yield Path(entry.path)
        except OSError:
            continue


def ollama_models(place: Place) -> Iterator[ModelFile]:
    """Each manifest's weights blob, named as ``ollama list`` names it (``llama3.2:3b``;
    ``host/namespace/model:tag`` beyond Ollama's own library)."""
    root = place.folder / "manifests"
    for manifest in _files_under(root, 4):
        parts = manifest.relative_to(root).parts
        if len(parts) != 4:
            continue
        host, namespace, model, tag = parts
        if host == OLLAMA_REGISTRY and namespace == OLLAMA_LIBRARY:
            label = f"{model}:{tag}"
        elif host == OLLAMA_REGISTRY:
            label = f"{namespace}/{model}:{tag}"
        else:
            label = f"{host}/{namespace}/{model}:{tag}"
        try:
            digest = _model_digest(manifest)
        except ValueError as exc:  # listed with the reason, the other models still read
            yield ModelFile(place.source, manifest, label, problem=f"{manifest}: {exc}")
            continue
        if digest is None:
            continue
        # "sha256-<hex>"; releases before 0.1.x's move to dashes named it "sha256:<hex>"
        names = (digest.replace(":", "-", 1), digest)
        blob = next((b for b in (place.folder / "blobs" / n for n in names) if b.is_file()), None)
        if blob is None:
            continue
        yield _checked(place.source, blob, label, place.folder / "blobs")


def _files_under(folder: Path, depth: int) -> Iterator[Path]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue  # a file manager's (.DS_Store), a partial write's
        try:
            if entry.is_dir(follow_symlinks=False) and depth > 1:
                yield from _files_under(Path(entry.path), depth - 1)
            elif entry.is_file(follow_symlinks=False) and depth == 1:
                yield Path(entry.path)
        except OSError:
            continue


def _model_digest(manifest: Path) -> str | None:
    """The digest of the manifest's weights layer; None where it names none (or cannot be
    read: the file went away), ValueError where it is not a manifest: too large, not
    JSON, nested too deeply."""
    try:
        size = manifest.stat().st_size
        if size > MANIFEST_LIMIT:
            raise ValueError(
                f"not an Ollama manifest ({size:,} bytes; a manifest is a few hundred)"
            )
        text = manifest.read_bytes()
    except OSError:
        return None
    try:
        data = loads_whole(text)
    except ValueError as exc:
        raise ValueError(f"not an Ollama manifest: {exc}") from None
    layers = data.get("layers") if isinstance(data, dict) else None
    for layer in layers if isinstance(layers, list) else []:
        if not isinstance(layer, dict) or layer.get("mediaType") != OLLAMA_MODEL_LAYER:
            continue
        digest = layer.get("digest")
        if isinstance(digest, str) and _DIGEST.fullmatch(digest):
            return digest
    return None
