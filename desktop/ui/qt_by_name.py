"""Qt settings given by name or number, so the first frame never builds the ``Qt`` namespace.

The first time anything touches ``PySide6.QtCore.Qt``, PySide makes a Python enum of each
of its 98 enums (1,229 members): 124M instructions, a fifth of what a bare QMainWindow
runs to its first frame. The window's first frame needs none of them. A property set by
its key name goes through Qt's meta-object system, and item roles and drawing flags are
plain ints in the bindings; the namespace is built once the window is on screen instead.
tests/test_gui_startup.py checks that the first frame is painted without it, and
tests/test_qt_by_name.py checks these numbers against Qt's own.
"""

from __future__ import annotations

from PySide6.QtCore import QObject

DISPLAY_ROLE = 0  # Qt.ItemDataRole.DisplayRole
TOOLTIP_ROLE = 3  # Qt.ItemDataRole.ToolTipRole
ALIGN_CENTER = 0x84  # Qt.AlignmentFlag.AlignCenter (AlignHCenter | AlignVCenter)


def set_properties(obj: QObject, **values: str) -> None:
    """Set Qt properties by their enum keys, e.g. ``orientation="Vertical"``.

    Raises on a misspelt property or key, which Qt would take as a new dynamic property or
    ignore."""
    for name, key in values.items():
        if not obj.setProperty(name, key):
            raise ValueError(f"{type(obj).__name__} has no property {name}={key!r}")


def build_qt_namespace() -> None:
    """Build ``Qt`` now, while the reviewer reads the first pair, not on their first key."""
    from PySide6 import QtCore

    QtCore.Qt  # noqa: B018  (the attribute access is what builds it)
