"""Work the window runs off the GUI thread, typed by what it returns (as Anki's
``QueryOp[T]``) and written beside the feature that runs it, not as a method of the
session. Work opens the project by its path, on a connection of its own, and only while
the window's connection still holds the file that path names: once the file was moved or
replaced, the path may name another file, and work refuses with the one line."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeAlias, TypeVar

from desktop.adapters.store import ProjectStore, open_project
from desktop.domain.errors import ProjectError

__all__ = ["Progress", "ProjectFile", "ProjectStore", "Work", "reading", "writing"]

T = TypeVar("T")

#: Told each progress state (any value: the feature and its window agree on its type).
Progress: TypeAlias = Callable[[object], None]
#: ``work(progress, cancel) -> T``, run by ``ui.workers.TaskRunner`` on a thread of its pool.
Work: TypeAlias = Callable[[Progress, threading.Event], T]


@dataclass(frozen=True)
class ProjectFile:
    """The project a window has open, as background work reaches it."""

    path: Path
    held: ProjectStore  # the window's own connection: it knows when the file was lost

    def check(self) -> None:
        """Refuse once the window's connection let go of the file (moved or replaced)."""
        if self.held.lost is not None:
            raise ProjectError(str(self.held.lost))

    def open(self, *, readonly: bool = False) -> ProjectStore:
        self.check()
        return open_project(self.path, readonly=readonly)


def reading(project: ProjectFile, read: Callable[[ProjectStore], T]) -> Work[T]:
    """Work that reads the project on its own read-only connection."""

    def work(progress: Progress, cancel: threading.Event) -> T:
        with project.open(readonly=True) as store:
            return read(store)

    return work


def writing(
    project: ProjectFile, write: Callable[[ProjectStore, Progress, threading.Event], T]
) -> Work[T]:
    """Work that writes the project (an import, a judge's answers) on its own connection."""

    def work(progress: Progress, cancel: threading.Event) -> T:
        with project.open() as store:
            return write(store, progress, cancel)

    return work
