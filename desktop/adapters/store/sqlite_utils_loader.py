"""sqlite-utils, loaded only when the schema must change (a new or older project file).

sqlite-utils imports pandas and numpy when they are installed, only to accept their
scalar types, which Tiebreak never passes; that costs start-up time and tens of megabytes.
Where neither is loaded yet, they are hidden while sqlite-utils loads.
"""

import sys

if "sqlite_utils.db" not in sys.modules:
    _hidden = [name for name in ("pandas", "numpy") if name not in sys.modules]
    for _name in _hidden:
        sys.modules[_name] = None  # type: ignore[assignment]  # makes the import fail
    try:
        import sqlite_utils.db  # noqa: F401
    finally:
        for _name in _hidden:
            del sys.modules[_name]

from sqlite_utils import Database, Migrations

__all__ = ["Database", "Migrations"]
