"""Rubrics as a project sees them: the one place that looks a rubric up by name.

A project's own rubric (added with `rubric add`, or recorded when it judged) comes before
a built-in or user file of the same name (``rubric_catalog``). Opening a project needs only
the names on offer and the chosen rubric's dimensions, so those are read without loading
any rubric: loading parses and checks a whole file and brings in the rubric machinery
(Jinja2 templates, answer formats), which the window loads only once it judges or shows a
prompt. A project records every rubric it has used, dimensions included; a shipped
rubric's name is its file's name and its dimensions are one key of that file. The test
suite checks both against the full load of every shipped file.
"""

from __future__ import annotations

import tomllib
from collections.abc import Collection
from typing import TYPE_CHECKING

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import (
    latest_rubric,
    own_rubric_names,
    record_rubric,
    rubric_names,
)
from desktop.resources import builtin_rubric_files, prompts_dir

if TYPE_CHECKING:
    from desktop.domain.rubric import Rubric


def rubric_choices(store: ProjectStore) -> list[str]:
    """The built-ins first, then the project's own rubrics and any other it has verdicts
    for (imported ones among them)."""
    names = [path.stem for path in builtin_rubric_files()]
    for extra in own_rubric_names(store) + rubric_names(store):
        if extra not in names:
            names.append(extra)
    return names


def dimensions_for(store: ProjectStore, name: str) -> tuple[str, ...]:
    """The dimensions a rubric name has in this project: as recorded when it was used or
    imported, else the shipped file's, else (a user's rubric) from loading it."""
    stored = latest_rubric(store, name)
    if stored is not None:
        return stored.dimensions
    shipped = prompts_dir() / f"{name}.toml"
    if shipped.is_file():
        return tuple(tomllib.loads(shipped.read_text(encoding="utf-8-sig"))["dimensions"])
    return find_rubric(store, name).dimensions


def find_rubric(store: ProjectStore | None, name: str) -> Rubric:
    """The project's own rubric of that name, else the built-in or user one."""
    if store is not None:
        stored = latest_rubric(store, name)
        if stored is not None and stored.kind == "rubric":
            from desktop.adapters.rubric_files import rubric_from_text

            return rubric_from_text(stored.text, origin=f"{store.path} rubric {name}")
    from desktop.services import rubric_catalog

    return rubric_catalog.get(name)


def own_rubrics(store: ProjectStore, besides: Collection[str] = ()) -> list[Rubric]:
    """The rubrics kept in the project (added by a user or used to judge), loaded, but for
    those named in ``besides`` (already listed): `tiebreak rubrics --project`."""
    return [find_rubric(store, name) for name in own_rubric_names(store) if name not in besides]


def rubric_text(rubric: Rubric) -> str:
    """A rubric as its TOML file writes it: `tiebreak rubric show`."""
    from desktop.adapters.rubric_files import dump_rubric

    return dump_rubric(rubric)


def add_rubric(store: ProjectStore, rubric: Rubric) -> None:
    """Keep a user's rubric inside the project, so the file carries everything it needs."""
    from desktop.adapters.rubric_files import dump_rubric

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
