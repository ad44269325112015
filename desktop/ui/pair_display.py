"""The right side of the window: the pair on screen (PairView) above its verdicts
(VerdictPanel), shown as the session has them; a conversation's turns moved through
([ and ]) and unfolded (H) here, and two trajectories' steps (. and , O, Shift+O)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter, QVBoxLayout

from desktop.services.app_settings import save_settings
from desktop.services.changes import Change
from desktop.services.judge_shown import judge_note, judge_summary
from desktop.ui.context import WindowContext
from desktop.ui.pair_browser import PairBrowser
from desktop.ui.pair_view import PairView
from desktop.ui.reasoning_panel import ReasoningPanel
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.verdict_panel import VerdictPanel


class PairDisplay(QSplitter):
    def __init__(self, context: WindowContext, pairs: PairBrowser) -> None:
        super().__init__(Qt.Orientation.Vertical)
        self.context = context
        self.pairs = pairs
        self.pair_view = PairView(runner=context.runner)
        self.pair_view.diff.summaryChanged.connect(context.say)
        self.verdicts = VerdictPanel()
        self.reasoning = ReasoningPanel()  # under the table, above the note line
        panel = self.verdicts.layout()
        assert isinstance(panel, QVBoxLayout)  # the panel's own, made in its __init__
        panel.insertWidget(panel.count() - 1, self.reasoning)
        self.addWidget(self.pair_view)
        self.addWidget(self.verdicts)
        self.setStretchFactor(0, 5)
        self.setStretchFactor(1, 1)
        self.pair_view.set_linked(context.settings.link_scrolling)
        self.pair_view.set_history_unfolded(context.settings.history_unfolded)
        context.changed.connect(self._changed)

    def bind(self, shortcuts: Shortcuts) -> None:
        say = self.context.say
        shortcuts.bind("next_turn", lambda: say(self.pair_view.move_turn(1)))
        shortcuts.bind("previous_turn", lambda: say(self.pair_view.move_turn(-1)))
        shortcuts.bind_toggle(
            "toggle_history", self.unfold_history, checked=self.context.settings.history_unfolded
        )
        shortcuts.bind("next_step", lambda: say(self.pair_view.move_step(1)))
        shortcuts.bind("previous_step", lambda: say(self.pair_view.move_step(-1)))
        shortcuts.bind("unfold_step", lambda: say(self.pair_view.unfold_step()))
        shortcuts.bind_toggle("toggle_steps", self.unfold_steps)

    def unfold_steps(self, unfolded: bool) -> None:
        """Shift+O: every step of two trajectories unfolded (for the pairs after this one
        too, until Shift+O again), or folded to a line a tool call."""
        self.pair_view.set_steps_unfolded(unfolded)
        self.context.say(
            "every step of two trajectories unfolded (Shift+O folds them)"
            if unfolded
            else "every step of two trajectories folded to a line a tool call (Shift+O unfolds)"
        )

    def unfold_history(self, unfolded: bool) -> None:
        """H: a conversation's turns around the compared one unfolded, or folded to a line
        each; remembered for the next pair and the next window."""
        settings = self.context.settings
        settings.history_unfolded = unfolded
        save_settings(settings)
        self.pair_view.set_history_unfolded(unfolded)
        self.context.say(
            "turns before and after the compared one unfolded (H folds them)"
            if unfolded
            else "turns before and after the compared one folded to a line each (H unfolds them)"
        )

    def _changed(self, change: Change) -> None:
        """The shown pair's verdicts again where the change may touch them, or where the
        profile Ctrl+J asks changed (the panel names it). A project just opened: the list
        shows the pair it opens on."""
        session = self.context.session
        if change.project:
            self._follow_dimensions()
        elif change.profile or change.touches(session.current.id if session.current else None):
            self.show_verdicts()

    def _follow_dimensions(self) -> None:
        """One row per dimension of the rubric shown (another rubric, another project)."""
        dimensions = self.context.session.dimensions
        if self.verdicts.dimensions != dimensions:
            self.verdicts.set_dimensions(dimensions)

    def show_pair(self, pair_id: int | None) -> None:
        """Show the pair ``pair_id`` (None: none), the focus on its first dimension; then
        say so, for whatever follows the pair on screen (a dock)."""
        session = self.context.session
        pair = session.load_pair(pair_id) if pair_id is not None else None
        self.pair_view.show_pair(pair)
        self.verdicts.focus_first()
        self.show_verdicts()
        self.context.publish(Change(pair_shown=True))

    def show_verdicts(self) -> None:
        """The shown pair's verdicts, note and judge as the project has them now; its row
        in the list follows."""
        session = self.context.session
        self._follow_dimensions()
        views = session.verdict_views()
        hidden = session.hidden_judge(views)
        self.verdicts.show_views(views, hidden=hidden)
        self.reasoning.show_details(views.judge if views else [], bool(hidden))
        self.verdicts.show_note(next(iter(views.notes.values()), "") if views else "")
        judge, profile = session.judge_model, session.profile
        self.verdicts.judge_info.setText(judge_summary(views, judge, profile))
        note = judge_note(judge, profile)
        self.verdicts.judge_note.setText(note)
        self.verdicts.judge_note.setVisible(bool(note))
        if session.current is not None:
            self.pairs.update_row(session.list_rows_for([session.current.id])[0])
