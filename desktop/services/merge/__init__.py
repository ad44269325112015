"""Merge another reviewer's human verdicts into a project, from their project file
(``from_project``) or from a CSV/JSONL file written by ``tiebreak export``
(``from_export``).

Pairs are matched as import matches them: by the external id where the pair has one (and
then its texts must be the same, and its generators where both name one, or the merge
stops), else by its texts and generators. A pair the project lacks is
added. All or nothing: one transaction, and any problem leaves the project as it was.
Merging the same file again adds nothing. Judge results are not merged; rubric texts the
project lacks are, so every merged verdict still traces to its prompt.
"""

from __future__ import annotations

import os
from pathlib import Path

from desktop.adapters.file_kinds import refuse_special
from desktop.adapters.store import open_project
from desktop.adapters.store.connection import SQLITE_HEADER
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError
from desktop.services.merge.report import MergeReport

__all__ = ["MergeReport", "merge_file"]


def merge_file(
    store: ProjectStore,
    other: str | os.PathLike[str],
    *,
    reviewer: str | None = None,
    rubric: str | None = None,
) -> MergeReport:
    """``reviewer`` and ``rubric`` apply to an export, which says neither who reviewed
    (default: the file's name without extension) nor, if exported without one, which
    rubric (default: its ``rubric`` column)."""
    path = Path(other)
    refuse_special(path, expected="a project file or an export to merge")
    if not path.is_file():
        raise TiebreakError(f"{path}: no such file")
    if store.path.exists() and os.path.samefile(path, store.path):
        raise TiebreakError(f"{path}: is the project itself; nothing to merge")
    if _is_sqlite(path):
        from desktop.services.merge.from_project import merge_project

        with open_project(path, readonly=True) as source, store.transaction():
            return merge_project(store, source)
    from desktop.services.merge.from_export import merge_export

    with store.transaction():
        return merge_export(store, path, reviewer=reviewer or path.stem, rubric=rubric)


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError as exc:
        raise TiebreakError(f"{path}: cannot be read ({exc.strerror})") from None
