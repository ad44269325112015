"""The built-in demo project, made on first run from the pairs shipped in resources/: 20
single-turn pairs (``demo_pairs.jsonl``, which the judge quality check also reads), then a
few two-turn conversation pairs of both shapes (``demo_conversations.jsonl``)."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

from desktop.adapters.store import open_project
from desktop.resources import resources_dir

DEMO_NAME = "demo.tiebreak"
DEMO_FILES = ("demo_pairs.jsonl", "demo_conversations.jsonl")


def data_dir() -> Path:
    override = os.environ.get("TIEBREAK_DATA_DIR")
    return Path(override) if override else Path(platformdirs.user_data_dir("tiebreak"))


def ensure_demo_project() -> Path:
    """The demo project's path, importing the demo pairs into a new file if there is none."""
    path = data_dir() / DEMO_NAME
    if path.exists():
        return path
    from desktop.services.importing import import_file  # only the first run imports

    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(DEMO_NAME + ".new")
    for stale in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
        stale.unlink(missing_ok=True)
    with open_project(partial, create=True) as store:
        for name in DEMO_FILES:
            import_file(store, resources_dir() / name)
        store.checkpoint()
    os.replace(partial, path)
    return path
