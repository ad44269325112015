"""Review edits as undoable commands: each writes the whole state of the reviewer's row on
one dimension (verdict, mark, note, mode), so an undo appends exactly what was there before
and a redo exactly what it undid; nothing is deleted."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand

from desktop.services.review_edits import ReviewState

Apply = Callable[[int, str, ReviewState], None]  # (pair id, dimension, state): written


class VerdictCommand(QUndoCommand):
    def __init__(
        self,
        apply: Apply,
        pair_id: int,
        dimension: str,
        before: ReviewState,
        after: ReviewState,
        text: str | None = None,
    ) -> None:
        super().__init__(text or f"{dimension} = {after.shown()}")
        self.apply, self.pair_id, self.dimension = apply, pair_id, dimension
        self.before, self.after = before, after

    def redo(self) -> None:
        self.apply(self.pair_id, self.dimension, self.after)

    def undo(self) -> None:
        self.apply(self.pair_id, self.dimension, self.before)
