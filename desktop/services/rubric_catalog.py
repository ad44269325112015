"""Which rubric files exist, loaded and checked: the built-ins in ``prompts/`` and a user's
own folder of files. Looking a rubric up for a project is ``project_rubrics``.

Built-ins come first and keep their names: a user file cannot silently replace the
published prompt that results are compared against. One broken user file is reported,
not allowed to hide every other rubric.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from desktop.adapters.rubric_files import load_rubric
from desktop.domain.errors import RubricError
from desktop.domain.rubric import Rubric
from desktop.resources import builtin_rubric_files

_cache: dict[Path, tuple[tuple[int, int], Rubric]] = {}


@dataclass
class Catalog:
    rubrics: dict[str, Rubric] = field(default_factory=dict)
    origins: dict[str, Path] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # one line per file that failed
    failed: dict[str, str] = field(default_factory=dict)  # file stem -> its problem

    @property
    def names(self) -> list[str]:
        return list(self.rubrics)


def scan(user_dir: Path | None = None) -> Catalog:
    """Every rubric file, built-in then user, with the ones that failed to load."""
    catalog = Catalog()
    builtin = builtin_rubric_files()
    user = sorted(user_dir.glob("*.toml")) if user_dir is not None and user_dir.is_dir() else []
    for path in [*builtin, *user]:
        try:
            rubric = _load(path, shipped=path in builtin)
        except RubricError as exc:
            if path in builtin:
                raise  # a broken shipped file is a bug, not a user's typo
            catalog.problems.append(str(exc))
            catalog.failed.setdefault(path.stem, str(exc))
            continue
        if rubric.name in catalog.rubrics:
            catalog.problems.append(
                f"{path}: rubric name {rubric.name!r} is already used by"
                f" {catalog.origins[rubric.name]}; this file is ignored"
            )
            continue
        catalog.rubrics[rubric.name] = rubric
        catalog.origins[rubric.name] = path
    return catalog


@functools.cache
def shipped_hashes() -> frozenset[str]:
    """The content hashes of the rubrics shipped with the app: known templates."""
    return frozenset(_load(path, shipped=True).content_hash for path in builtin_rubric_files())


def list_rubrics(user_dir: Path | None = None) -> list[Rubric]:
    """The usable rubrics, built-ins first."""
    return list(scan(user_dir).rubrics.values())


def get(name: str, user_dir: Path | None = None) -> Rubric:
    """The rubric of that name; an unknown name's error lists the known ones."""
    catalog = scan(user_dir)
    if name in catalog.rubrics:
        return catalog.rubrics[name]
    if name in catalog.failed:
        raise RubricError(catalog.failed[name])
    raise RubricError(f"unknown rubric {name!r} (known: {', '.join(catalog.names)})")


def _load(path: Path, *, shipped: bool) -> Rubric:
    """Load a file once per change (size and mtime), since the list is asked for often.
    Shipped files' templates are checked by the test suite, not at every start."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise RubricError(f"{path}: cannot be read ({exc.strerror})") from None
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _cache.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    rubric = load_rubric(path, check_templates=not shipped)
    _cache[path] = (stamp, rubric)
    return rubric
