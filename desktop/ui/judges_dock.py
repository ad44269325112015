"""Which judge to trust (Shift+G), in a dock on the right: every judge of the rubric on
screen (each way of using its orders) and every kept jury, ranked against the reviewers'
consensus or the gold labels imported with the data, with paired-bootstrap intervals:
`tiebreak judges --against`'s table, computed off the GUI thread. Built when first shown;
it follows the rubric chosen and, once edits pause, the reviewers' verdicts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget

from desktop.services import background
from desktop.services.changes import Change
from desktop.ui.context import WindowContext
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.workers import Refresher

if TYPE_CHECKING:
    from desktop.services.background import ProjectStore
    from desktop.services.judge_selection import Selection
    from desktop.ui.judges_panel import JudgesPanel


class JudgesDock(QObject):
    shown_setting = "judges_shown"  # open at the close: opens again at the next start

    def __init__(self, context: WindowContext) -> None:
        super().__init__(context.window)
        self.context = context
        self.dock: QDockWidget | None = None
        self.panel: JudgesPanel | None = None
        self.edit_timer = QTimer(self, singleShot=True, interval=600)
        self.edit_timer.timeout.connect(self.refresh)
        self._table = Refresher(
            context.runner, self._work, self._show, self._failed, key=self._asked
        )
        context.changed.connect(self._changed)

    def bind(self, shortcuts: Shortcuts) -> None:
        self.action: QAction = shortcuts.bind_toggle("toggle_judges", self.show)

    def is_open(self) -> bool:
        return self.dock is not None and self.dock.isVisible()

    def show(self, shown: bool) -> None:
        self._dock().setVisible(shown)

    def refresh(self) -> None:
        """Compute the table again now (the last request wins)."""
        if self.panel is not None:
            self.panel.computing()
        self._table.request()

    def _asked(self) -> object:
        session = self.context.session
        chosen = self.panel.chosen() if self.panel is not None else None
        return session.path, session.rubric_name, chosen

    def _work(self) -> background.Work[Selection]:
        """Every judge and jury of the rubric on screen scored on the dimension chosen
        against the reviewers or the gold labels, with the profiles' prices (as `tiebreak
        judges --against` prints it)."""
        assert self.panel is not None
        against, dimension = self.panel.chosen()
        rubric = self.context.session.rubric_name

        def selection(store: ProjectStore) -> Selection:
            from desktop.services.judge_selection import judge_selection
            from desktop.services.profiles import load_profiles

            profiles = load_profiles().values()
            return judge_selection(
                store, rubric, dimension=dimension, against=against, profiles=profiles
            )

        return background.reading(self.context.session.project, selection)

    def _changed(self, change: Change) -> None:
        """Another rubric or project: its dimensions and table now. Verdicts written, a
        job ended or an import (judges and gold labels come with data): once edits pause."""
        if not self.is_open():
            return
        if change.rubric or change.project:
            self._dimensions()
            self.refresh()
        elif change.pairs_added or (change.verdicts and not change.more_coming):
            self.edit_timer.start()

    def _dimensions(self) -> None:
        if self.panel is not None:
            self.panel.set_dimensions(list(self.context.session.dimensions))

    def _dock(self) -> QDockWidget:
        if self.dock is not None:
            return self.dock
        from desktop.ui.judges_panel import JudgesPanel  # loaded when first shown

        window = self.context.window
        self.panel = JudgesPanel()
        self._dimensions()
        self.panel.choiceChanged.connect(self.refresh)
        self.dock = QDockWidget("Judges", window)
        self.dock.setObjectName("judges")
        self.dock.setWidget(self.panel)
        self.dock.hide()
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        # A table of figures: half the window wide at first (the reviewer can narrow it).
        window.resizeDocks([self.dock], [window.width() // 2], Qt.Orientation.Horizontal)
        self.dock.visibilityChanged.connect(self._visibility_changed)
        return self.dock

    def _visibility_changed(self, shown: bool) -> None:
        self.action.setChecked(shown)
        if shown:
            self.refresh()

    def _show(self, selection: Selection | None) -> None:
        if selection is not None and self.panel is not None:
            self.panel.show_selection(selection)

    def _failed(self, message: str) -> None:
        if self.panel is not None:
            self.panel.show_failure(message)
