"""A one-line text field that keeps Enter while it has the focus, and says when Escape
is pressed in it.

The window's Enter (accept the judge's verdicts and go to the next pair) is a shortcut of
the whole window, and Qt offers a shortcut every key a focused QLineEdit does not claim:
Enter in the note or the search box would accept verdicts instead of saving the note or
running the search. This field claims Enter, so its ``returnPressed`` is what Enter does;
``escaped`` lets the part that owns it give the keys back to the pair list.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit

ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class EnterField(QLineEdit):
    escaped = Signal()  # Escape pressed in the field

    def event(self, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.ShortcutOverride
            and isinstance(event, QKeyEvent)
            and event.key() in ENTER_KEYS
        ):
            event.accept()  # delivered to the field as a key press, not as a shortcut
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and not event.modifiers():
            self.escaped.emit()
            return
        super().keyPressEvent(event)
