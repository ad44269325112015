"""Rubrics as a project sees them: its own (added with `rubric add`) over the built-ins."""

from __future__ import annotations

from desktop.adapters.rubric_files import dump_rubric, rubric_from_text
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import latest_rubric, record_rubric
from desktop.domain.rubric import Rubric
from desktop.services import rubric_catalog


def add_rubric(store: ProjectStore, rubric: Rubric) -> None:
    """Keep a user's rubric inside the project, so the file carries everything it needs."""
    with store.transaction():
        record_rubric(
            store,
            hash=rubric.content_hash,
            name=rubric.name,
            title=rubric.title,
            dimensions=rubric.dimensions,
            kind="rubric",
            text=dump_rubric(rubric),
        )


def find_rubric(store: ProjectStore | None, name: str) -> Rubric:
    """The project's own rubric of that name, else the built-in or user one."""
    if store is not None:
        stored = latest_rubric(store, name)
        if stored is not None and stored.kind == "rubric":
            return rubric_from_text(stored.text, origin=f"{store.path} rubric {name}")
    return rubric_catalog.get_rubric(name)
