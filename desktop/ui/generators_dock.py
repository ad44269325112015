"""The generators' leaderboard (Shift+M), in a dock on the right: `tiebreak stats --by
model`'s table for the rubric and judge on screen, one row per generator against its
baseline, with AlpacaEval 2.0's length-controlled win rate (the leaderboard's variant where
the settings name the folder of AlpacaEval's df_gamed.csv, else the minimal one, named under
the table), computed off the GUI thread. Built when first shown; it follows the rubric and
judge chosen and, once edits pause, the reviewers' verdicts."""

from __future__ import annotations

from pathlib import Path
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
    from desktop.services.leaderboard import Leaderboard
    from desktop.ui.generators_panel import GeneratorsPanel


class GeneratorsDock(QObject):
    shown_setting = "generators_shown"  # open at the close: opens again at the next start

    def __init__(self, context: WindowContext) -> None:
        super().__init__(context.window)
        self.context = context
        self.dock: QDockWidget | None = None
        self.panel: GeneratorsPanel | None = None
        self.edit_timer = QTimer(self, singleShot=True, interval=600)
        self.edit_timer.timeout.connect(self.refresh)
        self._table = Refresher(
            context.runner, self._work, self._show, self._failed, key=self._asked
        )
        context.changed.connect(self._changed)

    def bind(self, shortcuts: Shortcuts) -> None:
        self.action: QAction = shortcuts.bind_toggle("toggle_leaderboard", self.show)

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
        return session.path, session.rubric_name, session.judge_model, self._lc_files()

    def _lc_files(self) -> str:
        return self.context.settings.lc_files

    def _work(self) -> background.Work[Leaderboard]:
        """`stats --by model` for the rubric and judge on screen, with AlpacaEval 2.0's
        length-controlled win rate: the leaderboard's variant where ``lc_files`` names the
        folder of AlpacaEval's df_gamed.csv, else minimal."""
        session, lc_files = self.context.session, self._lc_files()
        rubric, model = session.rubric_name, session.judge_model

        def board(store: ProjectStore) -> Leaderboard:
            from desktop.domain.length_control import MINIMAL, V1, read_gamed
            from desktop.services.leaderboard import leaderboard

            gamed = read_gamed(Path(lc_files)) if lc_files else None
            return leaderboard(store, rubric, model, lc=V1 if gamed else MINIMAL, gamed=gamed)

        return background.reading(session.project, board)

    def _changed(self, change: Change) -> None:
        """Another rubric, judge or project: its table now. Verdicts written, a job ended
        or an import: once edits pause."""
        if not self.is_open():
            return
        if change.rubric or change.project or change.judge:
            self.refresh()
        elif change.pairs_added or (change.verdicts and not change.more_coming):
            self.edit_timer.start()

    def _dock(self) -> QDockWidget:
        if self.dock is not None:
            return self.dock
        from desktop.ui.generators_panel import GeneratorsPanel  # loaded when first shown

        window = self.context.window
        self.panel = GeneratorsPanel()
        self.panel.refreshAsked.connect(self.refresh)
        self.dock = QDockWidget("Generators", window)
        self.dock.setObjectName("generators")
        self.dock.setWidget(self.panel)
        self.dock.hide()
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        # A wide table of figures: half the window at first (the reviewer can narrow it).
        window.resizeDocks([self.dock], [window.width() // 2], Qt.Orientation.Horizontal)
        self.dock.visibilityChanged.connect(self._visibility_changed)
        return self.dock

    def _visibility_changed(self, shown: bool) -> None:
        self.action.setChecked(shown)
        if shown:
            self.refresh()

    def _show(self, board: Leaderboard | None) -> None:
        if board is not None and self.panel is not None:
            self.panel.show_board(board)

    def _failed(self, message: str) -> None:
        if self.panel is not None:
            self.panel.show_failure(message)
