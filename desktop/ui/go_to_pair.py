"""Ctrl+G: a field above the list's filters for a pair's # or its id. Enter selects that
pair in the list as it is, or in the whole list where the search or a filter leaves it
out; Escape, or a name that is no pair's, says so and gives the keys back."""

from __future__ import annotations

from PySide6.QtCore import Signal

from desktop.domain.errors import TiebreakError
from desktop.services.pair_lookup import find_pair
from desktop.ui.context import WindowContext
from desktop.ui.enter_field import EnterField


class GoToPair(EnterField):
    chosen = Signal(int)  # the id of the pair named
    left = Signal()  # the field hidden: the keys go back to the list

    def __init__(self, context: WindowContext) -> None:
        super().__init__()
        self.context = context
        self.setPlaceholderText("go to pair: # or id, then Enter (Escape: back)")
        self.setToolTip("Go to pair (Ctrl+G): its # in the list, or its id")
        self.returnPressed.connect(self._entered)
        self.escaped.connect(self._left)
        self.hide()

    def ask(self) -> None:
        """Ctrl+G: the field shown, its text selected to type over."""
        self.show()
        self.setFocus()
        self.selectAll()

    def _left(self) -> None:
        self.hide()
        self.left.emit()

    def _entered(self) -> None:
        ref = self.text().strip()
        if not ref:
            self._left()
            return
        try:
            pair_id = find_pair(self.context.session.store, ref).id
        except TiebreakError:
            self.context.say(f"go to pair: no pair is #{ref.lstrip('#')} or has the id {ref!r}")
            return
        assert pair_id is not None  # read from the project
        self._left()
        self.chosen.emit(pair_id)
