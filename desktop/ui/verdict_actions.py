"""The window's verdict edits: A / B / tie on the focused dimension, accept the judge's
verdicts, notes, and undo/redo. Every edit goes through the undo stack and is written to
the project at once (an append to the verdict history)."""

from __future__ import annotations

from typing import Any

from desktop.domain.errors import TiebreakError
from desktop.domain.verdicts import Verdict
from desktop.ui.undo import VerdictCommand


class VerdictActions:
    """Mixed into MainWindow; uses its session (``ctl``), verdict panel and undo stack."""

    def dimension_down(self) -> None:
        self.verdicts.move_focus(1)

    def dimension_up(self) -> None:
        self.verdicts.move_focus(-1)

    def _verdict_key(self, value: str | None) -> None:
        dim = self.verdicts.focused_dimension
        if dim is None or self.ctl.current is None:
            return
        self.set_verdict(dim, Verdict(value) if value else None)
        last = self.verdicts.dimensions.index(dim) == len(self.verdicts.dimensions) - 1
        if value and not last:  # on to the next dimension, as a reviewer reads down
            self.verdicts.move_focus(1)

    def verdict_a(self) -> None:
        self._verdict_key("A")

    def verdict_b(self) -> None:
        self._verdict_key("B")

    def verdict_tie(self) -> None:
        self._verdict_key("tie")

    def verdict_clear(self) -> None:
        self._verdict_key(None)

    def set_verdict(self, dim: str, verdict: Any) -> None:
        if self.ctl.current is None:
            return
        previous = self.ctl.my_verdict(dim)
        if previous == verdict:
            self.refresh_verdicts()
            return
        self.undo_stack.push(VerdictCommand(self, self.ctl.current.id, dim, previous, verdict))

    def apply_verdict(self, pair_id: int, dim: str, verdict: Any) -> None:
        """Called by undo commands: write, and show the pair it belongs to."""
        try:
            self.ctl.set_verdict(pair_id, dim, verdict, note=None)
        except TiebreakError as exc:
            self.error(str(exc))
            return
        if self.ctl.current is None or self.ctl.current.id != pair_id:
            self.reload_list(keep=pair_id)
        self.refresh_verdicts()
        self.refresh_counts()
        self.verdicts_changed()

    def accept_next(self) -> None:
        if self.ctl.current is None:
            return
        views = self.ctl.verdict_views()
        if views:
            self.undo_stack.beginMacro("accept judge verdicts")
            for dim, view in views.dimensions.items():
                if dim not in views.mine and view.judge is not None:
                    self.undo_stack.push(
                        VerdictCommand(self, self.ctl.current.id, dim, None, view.judge)
                    )
            self.undo_stack.endMacro()
        self.next_pair()

    def undo(self) -> None:
        self.undo_stack.undo()

    def redo(self) -> None:
        self.undo_stack.redo()

    def note(self) -> None:
        self.verdicts.note.setFocus()
        self.verdicts.note.selectAll()

    def save_note(self, text: str) -> None:
        dim = self.verdicts.focused_dimension
        if self.ctl.current is None or dim is None:
            return
        try:
            self.ctl.set_note(dim, text)
        except TiebreakError as exc:
            self.error(str(exc))
        self.statusBar().showMessage("note saved", 2000)
        self.table.setFocus()
