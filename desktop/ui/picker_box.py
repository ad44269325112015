"""A combo box that says when its list closes (an entry chosen, or the list left with
Escape, which closes it without telling the box), so the part that owns it can give the
keys back to the pair list: J, K, F, Q, U and the verdict keys then act on pairs again, not
on the box or its list."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Signal
from PySide6.QtWidgets import QComboBox


class PickerBox(QComboBox):
    closed = Signal()

    def showPopup(self) -> None:
        super().showPopup()
        popup = self.view().window()
        if not popup.property("tiebreak_watched"):
            popup.setProperty("tiebreak_watched", True)
            popup.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Hide:
            self.closed.emit()
        return False
