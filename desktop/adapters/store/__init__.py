"""The project file: one SQLite database per project, opened through sqlite-utils."""

import sys

# sqlite-utils imports pandas and numpy when they are installed, only to accept their
# scalar types, which Tiebreak never passes; that costs a second of start-up and tens of
# megabytes. Where neither is loaded yet, hide them while sqlite-utils loads.
if "sqlite_utils.db" not in sys.modules:
    _hidden = [name for name in ("pandas", "numpy") if name not in sys.modules]
    for _name in _hidden:
        sys.modules[_name] = None  # type: ignore[assignment]  # makes the import fail
    try:
        import sqlite_utils.db  # noqa: F401
    finally:
        for _name in _hidden:
            del sys.modules[_name]

from desktop.adapters.store.project import ProjectStore, open_project

__all__ = ["ProjectStore", "open_project"]
