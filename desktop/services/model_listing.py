"""What ``tiebreak models`` lists and the window's "ask" list offers: GGUF files already on
this machine, each described from its header, and the models of servers running on their
default loopback ports; and a profile made from any one of them.

A header is read once per file: what it said is kept in the user's cache folder under the
file's path, size, time and inode, so a listing of a thousand files is mostly ``stat``."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from desktop.adapters.gguf_file import GgufError, read_header
from desktop.adapters.model_file import cache_dir, holds_bundled_weights
from desktop.adapters.model_places import HUGGING_FACE, label_of, model_files, model_places
from desktop.adapters.model_servers import RunningServer, ServedModel, running_servers
from desktop.adapters.profiles_file import load_profiles, save_profile
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import LOCAL_PROFILE, ModelProfile, gguf_profile, local_profile

CACHE_NAME = "model-headers.json"
CACHE_VERSION = 2  # 2: no file's bytes in a problem; bounded headers


@dataclass(frozen=True)
class FoundFile:
    source: str  # "LM Studio", "Ollama", ...
    label: str  # the file's name, or Ollama's "name:tag"
    path: str
    size: int
    name: str | None = None  # from the header
    architecture: str | None = None
    parameters: int | None = None
    quantization: str | None = None
    context_length: int | None = None
    chat_template: bool = False
    problem: str | None = None  # why it cannot be used (not a GGUF, cut short)


@dataclass(frozen=True)
class FoundServerModel:
    source: str  # "Ollama", "LM Studio", "llama.cpp server"
    base_url: str
    model: ServedModel


@dataclass(frozen=True)
class FoundModels:
    files: list[FoundFile]
    servers: list[RunningServer]

    def entries(self) -> list[FoundFile | FoundServerModel]:
        """Everything found, numbered from 1 in this order by ``tiebreak models``."""
        served = [
            FoundServerModel(s.kind, s.base_url, model) for s in self.servers for model in s.models
        ]
        return [*self.files, *served]


def find_models(
    env: Mapping[str, str] | None = None, *, servers: bool = True, cache: Path | None = None
) -> FoundModels:
    """The GGUF files in the usual places and, with ``servers``, the running servers."""
    places = model_places(env)
    headers = _HeaderCache(cache or cache_dir() / CACHE_NAME)
    files: list[FoundFile] = []
    seen: set[tuple[int, int]] = set()
    for found in model_files(places):
        if found.real is None:  # a link out of its folder: listed, never read
            files.append(
                FoundFile(found.source, found.label, str(found.path), 0, problem=found.problem)
            )
            continue
        try:
            stat = found.real.stat()
        except OSError:
            continue
        if (stat.st_dev, stat.st_ino) in seen:  # one file reached by two names
            continue
        seen.add((stat.st_dev, stat.st_ino))
        files.append(headers.describe(found.source, found.label, found.path, found.real, stat))
    headers.save()
    return FoundModels(files, running_servers(env) if servers else [])


class _HeaderCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.changed = False
        try:
            data = json.loads(path.read_text())
            ok = isinstance(data, dict) and data.get("version") == CACHE_VERSION
            self.entries: dict[str, dict[str, Any]] = data["files"] if ok else {}
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            self.entries = {}

    def describe(
        self, source: str, label: str, path: Path, real: Path, stat: os.stat_result
    ) -> FoundFile:
        stamp = [stat.st_size, stat.st_mtime_ns, stat.st_ino]
        known = self.entries.get(str(path))
        if isinstance(known, dict) and known.get("stamp") == stamp:
            try:
                return FoundFile(source=source, label=label, **known["file"])
            except TypeError:
                pass
        found = _read(source, label, path, real, stat.st_size)
        file = {k: v for k, v in asdict(found).items() if k not in ("source", "label")}
        self.entries[str(path)] = {"stamp": stamp, "file": file}
        self.changed = True
        return found

    def save(self) -> None:
        if not self.changed:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_name(self.path.name + ".partial")
            partial.write_text(json.dumps({"version": CACHE_VERSION, "files": self.entries}))
            os.replace(partial, self.path)
        except OSError:  # a read-only cache: the next listing reads the headers again
            pass


def _read(source: str, label: str, path: Path, real: Path, size: int) -> FoundFile:
    try:
        header = read_header(path, real=real)
    except GgufError as exc:
        return FoundFile(source, label, str(path), size, problem=str(exc))
    return FoundFile(
        source,
        label,
        str(path),
        size,
        name=header.name,
        architecture=header.architecture,
        parameters=header.parameters,
        quantization=header.quantization,
        context_length=header.context_length,
        chat_template=header.chat_template is not None,
    )


def not_yet_profiles(
    entries: Iterable[FoundFile | FoundServerModel], profiles: Iterable[ModelProfile]
) -> list[FoundFile | FoundServerModel]:
    """The usable entries that no profile already serves (by file, or by server and model)."""
    served = {p.gguf for p in profiles if p.gguf} | {
        f"{p.base_url}|{p.model}" for p in profiles if p.base_url
    }
    left: list[FoundFile | FoundServerModel] = []
    for entry in entries:
        if isinstance(entry, FoundFile):
            if not entry.problem and str(Path(entry.path).resolve()) not in served:
                left.append(entry)
        elif f"{entry.base_url}|{entry.model.name}" not in served:
            left.append(entry)
    return left


def entry_label(entry: FoundFile | FoundServerModel) -> str:
    """How the "ask" list offers a found model."""
    if isinstance(entry, FoundFile):
        return f"{entry.label} · {entry.source} file"
    return f"{entry.model.name} · {entry.source}"


def profile_name(label: str, taken: set[str]) -> str:
    """A profile name from a model's label: ``llama3.2:3b`` -> ``llama3.2-3b``; a number
    is added where the name is taken."""
    stem = label[: -len(".gguf")] if label.lower().endswith(".gguf") else label
    base = re.sub(r"[^a-z0-9._-]+", "-", stem.lower()).strip("-.") or "model"
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def add_found(entry: FoundFile | FoundServerModel, name: str | None = None) -> ModelProfile:
    """Save a profile for a found model: a GGUF profile for a file (checked as ``profile add
    --gguf`` checks it), a server profile for a running server's model."""
    taken = set(load_profiles())
    if isinstance(entry, FoundFile):
        if entry.problem:
            raise TiebreakError(entry.problem)
        # A hub file's profile is named by its file, not the repository before it.
        short = Path(entry.label).name if entry.source == HUGGING_FACE else entry.label
        chosen = name or profile_name(short, taken)
        return add_gguf_profile(chosen, Path(entry.path), label=entry.label)
    chosen = name or profile_name(entry.model.name, taken)
    profile = ModelProfile(
        name=chosen, model=entry.model.name, base_url=entry.base_url, needs_key=False
    )
    save_profile(profile)
    return profile


def gguf_judge_name(path: Path, label: str | None = None) -> str:
    """The judge a GGUF file is, as people name it: the built-in's name for the bundled
    weights (wherever the file is), else the name the tool that keeps it gives it
    (``label``, else looked up: ``org/repo/file`` for a Hugging Face file, whose blob is
    named by a hash; Ollama's ``name:tag``), else the file's name; without ``.gguf``."""
    if holds_bundled_weights(path):
        return local_profile().model
    label = label or label_of(path, model_places())
    if label is None:
        return path.stem
    return label[: -len(".gguf")] if label.lower().endswith(".gguf") else label


def check_gguf_file(path: Path) -> None:
    """Whether a GGUF file can run here: GgufError, in one line naming the file, for one
    that is not a GGUF model, is cut short, or would not fit in memory."""
    from desktop.adapters.gguf_server import check_gguf

    check_gguf(path)


def add_gguf_profile(
    name: str,
    path: Path,
    *,
    n_ctx: int | None = None,
    threads: int | None = None,
    label: str | None = None,
) -> ModelProfile:
    """Check a GGUF file (GgufError in one line naming it where it cannot run here) and save
    a profile that serves it, its judge named by ``gguf_judge_name`` (``label``: how
    ``tiebreak models`` listed it)."""
    from desktop.adapters.gguf_server import check_gguf

    if name == LOCAL_PROFILE:
        raise TiebreakError(f"{LOCAL_PROFILE} is the built-in profile; choose another name")
    check_gguf(path, n_ctx=n_ctx, threads=threads)
    settings = {k: v for k, v in (("n_ctx", n_ctx), ("n_threads", threads)) if v is not None}
    judge = gguf_judge_name(path, label)
    profile = gguf_profile(name, str(path.resolve()), model=judge, **settings)
    save_profile(profile)
    return profile


def describe_gguf(profile: ModelProfile) -> str:
    """What a GGUF profile runs and how, for a person: the file, its model, and the context
    and threads chosen (or set)."""
    from desktop.adapters.gguf_server import check_gguf
    from desktop.domain.model_fit import size_text

    assert profile.gguf is not None
    header, fit = check_gguf(Path(profile.gguf), n_ctx=profile.n_ctx, threads=profile.n_threads)
    template = (
        "the chat template from the file"
        if header.chat_template
        else "no chat template in the file (llama.cpp's fallback format)"
    )
    return (
        f"{profile.gguf} ({header.name}: {header.architecture}, {header.parameter_label}"
        f" parameters, {header.quantization}, {size_text(header.file_size)});"
        f" context {fit.n_ctx:,} tokens, {fit.threads} thread{'s' if fit.threads > 1 else ''},"
        f" {template}"
    )
