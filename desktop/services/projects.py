"""Opening a project file, for the command line, the window's callers and scripts: the one
door to the store above the services, so nothing above them imports the adapters.
``ProjectStore`` is the type a caller holds; what it does with it goes through a service."""

from __future__ import annotations

import os

from desktop.adapters.store import open_project as _open_project
from desktop.adapters.store.project import ProjectStore

__all__ = ["ProjectStore", "open_project"]


def open_project(
    path: str | os.PathLike[str], *, create: bool = False, readonly: bool = False
) -> ProjectStore:
    """Open (or with ``create``, make) a project, refusing any file that is not fit, in one
    line naming it. ``readonly`` needs no write access anywhere and leaves nothing beside the
    file. The store is a context manager: leaving it lets go of the file."""
    return _open_project(path, create=create, readonly=readonly)
