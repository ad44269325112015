"""The reviewer's edits: A / B / tie / both bad on the focused dimension, accepting the
judge's verdicts, skipping a pair, marking it broken, notes, adjudicating a dispute, and
undo/redo. Every edit is an undo command holding the whole state of the reviewer's row
before and after (``services/review_edits``), written to the project at once (an append to
the verdict history): an undo brings back the verdict, mark, note and mode exactly."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QObject
from PySide6.QtGui import QUndoStack

from desktop.domain.errors import TiebreakError
from desktop.domain.verdicts import GUI, Mark, Verdict
from desktop.services.changes import Change
from desktop.services.review_edits import NO_ROW, Answer, ReviewState
from desktop.ui import dialogs
from desktop.ui.adjudication_dialog import AdjudicationDialog
from desktop.ui.context import WindowContext
from desktop.ui.pair_browser import PairBrowser
from desktop.ui.pair_display import PairDisplay
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.undo import VerdictCommand
from desktop.ui.verdict_panel import NOTE_LIMIT

Edit = tuple[str, ReviewState, ReviewState]  # (dimension, before, after)


class VerdictActions(QObject):
    def __init__(self, context: WindowContext, display: PairDisplay, pairs: PairBrowser) -> None:
        super().__init__(context.window)
        self.context = context
        self.display = display
        self.panel = display.verdicts
        self.pairs = pairs
        self.undo_stack = QUndoStack(self)
        self.adjudication: AdjudicationDialog | None = None
        self._written = True  # whether the last edit reached the project
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
        shortcuts.bind("verdict_a", lambda: self._answer_key(Verdict.A))
        shortcuts.bind("verdict_b", lambda: self._answer_key(Verdict.B))
        shortcuts.bind("verdict_tie", lambda: self._answer_key(Verdict.TIE))
        shortcuts.bind("verdict_bothbad", lambda: self._answer_key(Mark.BOTH_BAD))
        shortcuts.bind("verdict_clear", lambda: self._answer_key(None))
        shortcuts.bind("accept_next", self.accept_next)
        shortcuts.bind("skip_pair", self.skip_pair)
        shortcuts.bind("mark_broken", self.mark_broken)
        shortcuts.bind("adjudicate", self.adjudicate)
        shortcuts.bind("undo", self.undo_stack.undo)
        shortcuts.bind("redo", self.undo_stack.redo)
        shortcuts.bind("note", self.edit_note)

    # ---- answers ---------------------------------------------------------------------------
    def _answer_key(self, answer: Answer | None) -> None:
        dim = self.panel.focused_dimension
        if dim is None or self.context.session.current is None:
            return
        self.set_verdict(dim, answer)
        last = self.panel.dimensions.index(dim) == len(self.panel.dimensions) - 1
        if answer is not None and not last:  # on to the next dimension, as a reviewer reads down
            self.panel.move_focus(1)

    def set_verdict(self, dim: str, answer: Answer | None) -> None:
        """The reviewer's answer on ``dim`` of the pair shown, as one undoable edit; their
        note on it stays."""
        pair_id = self._pair_id()
        if pair_id is None:
            return
        edits = self.context.session.edits
        try:
            before = edits.state(pair_id, dim)
            after = edits.answered(pair_id, dim, answer)
        except TiebreakError as exc:
            self._not_saved(dim, answer, str(exc))
            return
        if (before.answer, before.mode) == (after.answer, after.mode):
            self.display.show_verdicts()
            return
        self._push(pair_id, [(dim, before, after)])

    def apply_state(self, pair_id: int, dim: str, state: ReviewState) -> None:
        """Write a row's state (an undo command's, or its undoing) and show the pair it is
        on."""
        session = self.context.session
        try:
            session.edits.write(pair_id, dim, state)
        except TiebreakError as exc:
            self._written = False
            if session.current is not None and session.current.id == pair_id:
                self._not_saved(dim, state.answer, str(exc))
            else:
                self.context.error(str(exc))
            return
        self._written = True
        if session.current is None or session.current.id != pair_id:
            self.pairs.reload(keep=pair_id)
        self.context.publish(Change.verdicts_of([pair_id], reviewers=[session.reviewer()]))

    def _push(self, pair_id: int, edits: Iterable[Edit], text: str | None = None) -> bool:
        """``edits`` as one undo step (a macro where there are several); whether every one
        was written."""
        edits = list(edits)
        if not edits:
            return True
        written = True
        macro = len(edits) > 1
        if macro:
            self.undo_stack.beginMacro(text or "edits")
        for dim, before, after in edits:
            shown = None if macro else text
            self.undo_stack.push(
                VerdictCommand(self.apply_state, pair_id, dim, before, after, shown)
            )
            written = written and self._written
        if macro:
            self.undo_stack.endMacro()
        return written

    def _my_states(self) -> tuple[int, dict[str, ReviewState]] | None:
        """The pair shown and the reviewer's state on each of its dimensions with a row
        (None: no pair, or it could not be read, said in the status bar)."""
        pair_id = self._pair_id()
        if pair_id is None:
            return None
        try:
            return pair_id, self.context.session.edits.states(pair_id)
        except TiebreakError as exc:
            self.context.error(str(exc))
            return None

    def _pair_id(self) -> int | None:
        current = self.context.session.current
        return None if current is None else current.id

    def _not_saved(self, dim: str, answer: Answer | None, message: str) -> None:
        """A refused verdict stays on screen, marked as not saved, and the refusal is said."""
        self.panel.show_not_saved(dim, answer)
        self.context.error(message)

    # ---- whole pairs -----------------------------------------------------------------------
    def accept_next(self) -> None:
        """Enter: the judge's verdicts on screen become the reviewer's where they gave none,
        recorded as accepted (never as their own judgement: figures comparing people with
        the judge leave them out); then on to the next pair. A verdict blind mode hides is
        never taken: the pair stays, and the status bar says why."""
        session = self.context.session
        pair_id = self._pair_id()
        if pair_id is None:
            return
        views = session.verdict_views()
        held: list[str] = []
        edits: list[Edit] = []
        if views:
            hidden = session.hidden_judge(views)
            for dim, view in views.dimensions.items():
                if dim in views.mine or view.judge is None:
                    continue
                if dim in hidden:
                    held.append(dim)
                    continue
                before = session.edits.state(pair_id, dim)
                after = session.edits.answered(pair_id, dim, view.judge, accepted=True)
                edits.append((dim, before, after))
        if not self._push(pair_id, edits, "accept judge verdicts"):
            return
        if held:
            self.context.say(
                "blind mode: Enter takes no hidden judge verdict; give yours with A, B or T"
                f" ({', '.join(held)})",
                10_000,
            )
            return
        self.pairs.next_pair()

    def skip_pair(self) -> None:
        """W: decide later. The pair is marked skipped on the dimensions the reviewer has
        not decided; U comes back to it once the pairs not yet looked at are done."""
        session = self.context.session
        mine = self._my_states()
        if mine is None:
            return
        pair_id, states = mine
        edits: list[Edit] = []
        for dim in session.dimensions:
            before = states.get(dim, NO_ROW)
            if before.verdict is None and before.mark is not Mark.BROKEN:
                edits.append((dim, before, ReviewState(None, Mark.SKIP, before.note, GUI)))
        if not edits:
            self.context.say("skip: you have decided every dimension of this pair", 4000)
            return
        if self._push(pair_id, edits, "skip pair"):
            self.context.say("skipped: U comes back to it after the pairs not yet reviewed", 4000)
            self.pairs.next_pair()

    def mark_broken(self) -> None:
        """Ctrl+Shift+B: the pair cannot be judged (a truncated response, the wrong prompt):
        marked broken on every dimension with the reason given, out of every figure and
        export. Pressed on a pair the reviewer marked broken, it takes the mark back."""
        session = self.context.session
        mine = self._my_states()
        if mine is None:
            return
        pair_id, states = mine
        if any(s.mark is Mark.BROKEN for s in states.values()):
            edits = [
                (dim, s, ReviewState(None, None, s.note, GUI))
                for dim, s in states.items()
                if s.mark is Mark.BROKEN
            ]
            if self._push(pair_id, edits, "not broken"):
                self.context.say("no longer marked broken", 4000)
            return
        reason = dialogs.ask_text(
            self.context.window,
            "Broken pair",
            "Why can this pair not be judged? (kept as the note; the pair leaves every"
            " figure and export)",
        )
        if reason is None or not reason.strip():
            self.context.say("not marked broken: a broken pair needs its reason", 4000)
            return
        note = reason.strip()
        edits = [
            (dim, states.get(dim, NO_ROW), ReviewState(None, Mark.BROKEN, note, GUI))
            for dim in session.dimensions
        ]
        if self._push(pair_id, edits, "broken pair"):
            self.context.say("marked broken: left out of every figure and export", 4000)

    # ---- adjudication ----------------------------------------------------------------------
    def adjudicate(self) -> None:
        """V: every reviewer's verdict, note, mode and time on the pair shown, side by side;
        A, B, T or X there settles the selected dimension as adjudicator."""
        pair_id = self._pair_id()
        views = self.context.session.verdict_views()
        if pair_id is None or views is None:
            return
        if self.adjudication is not None:
            self.adjudication.close()
        dialog = AdjudicationDialog(self.context.window, self.context.session.dimensions)
        dialog.show_reviews(views.reviews, views.labels)
        dialog.settled.connect(lambda dim, answer: self.settle(pair_id, dim, answer))
        self.adjudication = dialog
        dialog.open()

    def settle(self, pair_id: int, dim: str, answer: Answer) -> None:
        """The adjudicator's verdict on ``dim``: mode adjudicated, the dimension's label."""
        edits = self.context.session.edits
        try:
            before = edits.state(pair_id, dim)
            after = edits.adjudicated(pair_id, dim, answer)
        except TiebreakError as exc:
            self.context.error(str(exc))
            return
        if self._push(pair_id, [(dim, before, after)], f"adjudicate {dim}"):
            self.context.say(f"{dim}: settled as {answer.value} (adjudicated)", 4000)
        views = self.context.session.verdict_views()
        if self.adjudication is not None and views is not None:
            self.adjudication.show_reviews(views.reviews, views.labels)

    # ---- notes -----------------------------------------------------------------------------
    def edit_note(self) -> None:
        self.panel.note.setFocus()
        self.panel.note.selectAll()

    def save_note(self, text: str) -> None:
        """The note on the focused dimension, as an undoable edit that keeps the verdict,
        mark and mode it rides on."""
        dim = self.panel.focused_dimension
        pair_id = self._pair_id()
        if pair_id is None or dim is None:
            return
        edits = self.context.session.edits
        try:
            before = edits.state(pair_id, dim)
            after = edits.noted(pair_id, dim, text)
        except TiebreakError as exc:
            self.context.error(str(exc))
            return
        written = before.note == after.note or self._push(
            pair_id, [(dim, before, after)], f"note on {dim}"
        )
        if written:
            self.context.say("note saved" if after.note else "note cleared", 2000)
        self.pairs.focus()
