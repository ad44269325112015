"""The rubric names and dimensions a project opens with, read without loading rubrics.

Loading a rubric parses and checks its whole file and brings in the rubric machinery
(Jinja2 templates, answer formats); opening a project needs only the names on offer and
the chosen rubric's dimensions. A project records every rubric it has used, dimensions
included; a shipped rubric's name is its file's name and its dimensions are one key of
that file. The test suite checks both against the full load of every shipped file.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import latest_rubric, own_rubric_names, rubric_names
from desktop.resources import prompts_dir

#: The order the built-ins are offered in; any other shipped file follows by name.
BUILTIN_ORDER = (
    "href-four",
    "href-four-corrected",
    "href-overall",
    "href-correctness",
    "just-eval",
    "text-grounded",
)


def builtin_key(path: Path) -> tuple[int, str]:
    stem = path.stem
    return (BUILTIN_ORDER.index(stem) if stem in BUILTIN_ORDER else len(BUILTIN_ORDER), stem)


def builtin_files() -> list[Path]:
    return sorted(prompts_dir().glob("*.toml"), key=builtin_key)


def rubric_choices(store: ProjectStore) -> list[str]:
    """The built-ins first, then the project's own rubrics and any other it has verdicts
    for (imported ones among them)."""
    names = [path.stem for path in builtin_files()]
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
        return tuple(tomllib.loads(shipped.read_text(encoding="utf-8"))["dimensions"])
    from desktop.services.project_rubrics import find_rubric

    return find_rubric(store, name).dimensions
