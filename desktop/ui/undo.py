"""Verdict edits as undoable commands; undo appends the previous value, never deletes."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from desktop.domain.verdicts import Verdict

Apply = Callable[[int, str, Verdict | None], None]  # (pair id, dimension, verdict): written


class VerdictCommand(QUndoCommand):
    def __init__(
        self,
        apply: Apply,
        pair_id: int,
        dimension: str,
        before: Verdict | None,
        after: Verdict | None,
    ) -> None:
        shown = after.value if after is not None else "cleared"
        super().__init__(f"{dimension} = {shown}")
        self.apply, self.pair_id, self.dimension = apply, pair_id, dimension
        self.before, self.after = before, after

    def redo(self) -> None:
        self.apply(self.pair_id, self.dimension, self.after)

    def undo(self) -> None:
        self.apply(self.pair_id, self.dimension, self.before)
