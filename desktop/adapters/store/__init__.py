"""The project file: one SQLite database per project, opened through sqlite-utils."""

from desktop.adapters.store.project import ProjectStore, open_project

__all__ = ["ProjectStore", "open_project"]
