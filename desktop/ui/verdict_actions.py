"""The reviewer's verdict edits: A / B / tie on the focused dimension, accept the judge's
verdicts, notes, and undo/redo. Every edit goes through the undo stack and is written to
the project at once (an append to the verdict history)."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QUndoStack

from desktop.domain.errors import TiebreakError
from desktop.domain.verdicts import Verdict
from desktop.services.changes import Change
from desktop.ui.context import WindowContext
from desktop.ui.pair_browser import PairBrowser
from desktop.ui.pair_display import PairDisplay
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.undo import VerdictCommand
from desktop.ui.verdict_panel import NOTE_LIMIT


class VerdictActions(QObject):
    def __init__(self, context: WindowContext, display: PairDisplay, pairs: PairBrowser) -> None:
        super().__init__(context.window)
        self.context = context
        self.display = display
        self.panel = display.verdicts
        self.pairs = pairs
        self.undo_stack = QUndoStack(self)
        self.panel.verdictChosen.connect(self.set_verdict)
        self.panel.noteEdited.connect(self.save_note)
        self.panel.note.inputRejected.connect(
            lambda: context.say(f"a note holds at most {NOTE_LIMIT:,} characters", 4000)
        )
        context.changed.connect(self._changed)

    def _changed(self, change: Change) -> None:
        if change.project:  # an edit of another project is not undone here
            self.undo_stack.clear()

    def bind(self, shortcuts: Shortcuts) -> None:
        shortcuts.bind("dimension_down", lambda: self.panel.move_focus(1))
        shortcuts.bind("dimension_up", lambda: self.panel.move_focus(-1))
        shortcuts.bind("verdict_a", lambda: self._verdict_key(Verdict.A))
        shortcuts.bind("verdict_b", lambda: self._verdict_key(Verdict.B))
        shortcuts.bind("verdict_tie", lambda: self._verdict_key(Verdict.TIE))
        shortcuts.bind("verdict_clear", lambda: self._verdict_key(None))
        shortcuts.bind("accept_next", self.accept_next)
        shortcuts.bind("undo", self.undo_stack.undo)
        shortcuts.bind("redo", self.undo_stack.redo)
        shortcuts.bind("note", self.edit_note)

    def _verdict_key(self, verdict: Verdict | None) -> None:
        dim = self.panel.focused_dimension
        if dim is None or self.context.session.current is None:
            return
        self.set_verdict(dim, verdict)
        last = self.panel.dimensions.index(dim) == len(self.panel.dimensions) - 1
        if verdict is not None and not last:  # on to the next dimension, as a reviewer reads down
            self.panel.move_focus(1)

    def set_verdict(self, dim: str, verdict: Verdict | None) -> None:
        """The reviewer's verdict on ``dim`` of the pair shown, as one undoable edit."""
        session = self.context.session
        if session.current is None or session.current.id is None:
            return
        try:
            previous = session.my_verdict(dim)
        except TiebreakError as exc:
            self._not_saved(dim, verdict, str(exc))
            return
        if previous == verdict:
            self.display.show_verdicts()
            return
        self.undo_stack.push(
            VerdictCommand(self.apply_verdict, session.current.id, dim, previous, verdict)
        )

    def apply_verdict(self, pair_id: int, dim: str, verdict: Verdict | None) -> None:
        """Write a verdict (an undo command's, or its undoing) and show the pair it is on."""
        session = self.context.session
        try:
            session.set_verdict(pair_id, dim, verdict, note=None)
        except TiebreakError as exc:
            if session.current is not None and session.current.id == pair_id:
                self._not_saved(dim, verdict, str(exc))
            else:
                self.context.error(str(exc))
            return
        if session.current is None or session.current.id != pair_id:
            self.pairs.reload(keep=pair_id)
        self.context.publish(Change.verdicts_of([pair_id], reviewers=[session.reviewer()]))

    def _not_saved(self, dim: str, verdict: Verdict | None, message: str) -> None:
        """A refused verdict stays on screen, marked as not saved, and the refusal is said."""
        self.panel.show_not_saved(dim, verdict)
        self.context.error(message)

    def accept_next(self) -> None:
        """Enter: the judge's verdicts on screen become the reviewer's where they gave none;
        then on to the next pair. A verdict blind mode hides is never taken: the pair stays,
        and the status bar says why."""
        session = self.context.session
        if session.current is None or session.current.id is None:
            return
        views = session.verdict_views()
        held: list[str] = []
        if views:
            hidden = session.hidden_judge(views)
            self.undo_stack.beginMacro("accept judge verdicts")
            for dim, view in views.dimensions.items():
                if dim in views.mine or view.judge is None:
                    continue
                if dim in hidden:
                    held.append(dim)
                    continue
                self.undo_stack.push(
                    VerdictCommand(self.apply_verdict, session.current.id, dim, None, view.judge)
                )
            self.undo_stack.endMacro()
        if held:
            self.context.say(
                "blind mode: Enter takes no hidden judge verdict; give yours with A, B or T"
                f" ({', '.join(held)})",
                10_000,
            )
            return
        self.pairs.next_pair()

    def edit_note(self) -> None:
        self.panel.note.setFocus()
        self.panel.note.selectAll()

    def save_note(self, text: str) -> None:
        dim = self.panel.focused_dimension
        if self.context.session.current is None or dim is None:
            return
        try:
            self.context.session.set_note(dim, text)
        except TiebreakError as exc:
            self.context.error(str(exc))
        self.context.say("note saved", 2000)
        self.pairs.focus()
