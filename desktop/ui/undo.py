"""Verdict edits as undoable commands; undo appends the previous value, never deletes."""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QUndoCommand


class VerdictCommand(QUndoCommand):
    def __init__(self, window: Any, pair_id: int, dimension: str, before: Any, after: Any) -> None:
        shown = after.value if after is not None else "cleared"
        super().__init__(f"{dimension} = {shown}")
        self.window, self.pair_id, self.dimension = window, pair_id, dimension
        self.before, self.after = before, after

    def redo(self) -> None:
        self.window.apply_verdict(self.pair_id, self.dimension, self.after)

    def undo(self) -> None:
        self.window.apply_verdict(self.pair_id, self.dimension, self.before)
