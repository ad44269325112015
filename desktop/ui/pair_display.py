"""The right side of the window: the pair on screen (PairView) above its verdicts
(VerdictPanel), shown as the session has them."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSplitter

from desktop.ui.context import WindowContext
from desktop.ui.pair_browser import PairBrowser
from desktop.ui.pair_view import PairView
from desktop.ui.verdict_panel import VerdictPanel


class PairDisplay(QSplitter):
    def __init__(self, context: WindowContext, pairs: PairBrowser) -> None:
        super().__init__(Qt.Orientation.Vertical)
        self.context = context
        self.pairs = pairs
        self.pair_view = PairView()
        self.verdicts = VerdictPanel()
        self.addWidget(self.pair_view)
        self.addWidget(self.verdicts)
        self.setStretchFactor(0, 5)
        self.setStretchFactor(1, 1)
        self.pair_view.set_linked(context.settings.link_scrolling)

    def show_pair(self, pair_id: int | None) -> None:
        """Show the pair ``pair_id`` (None: none), the focus on its first dimension."""
        session = self.context.session
        pair = session.load_pair(pair_id) if pair_id is not None else None
        self.pair_view.show_pair(pair)
        self.verdicts.focus_first()
        self.show_verdicts()

    def show_verdicts(self) -> None:
        """The shown pair's verdicts, note and judge as the project has them now; its row
        in the list follows."""
        session = self.context.session
        views = session.verdict_views()
        self.verdicts.show_views(views, blind=self.context.settings.blind)
        self.verdicts.note.setText(next(iter(views.notes.values()), "") if views else "")
        self.verdicts.judge_info.setText(session.judge_summary(views))
        note = session.judge_note()
        self.verdicts.judge_note.setText(note)
        self.verdicts.judge_note.setVisible(bool(note))
        if session.current:
            self.pairs.update_row(session.list_row(session.current.id))
