"""The agreement figures (S) in a dock on the right: how often the judge agrees with the
reviewers, computed off the GUI thread. The dock is built the first time it is shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QObject, QSettings, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDockWidget

from desktop.services import background
from desktop.services.changes import Change
from desktop.ui import dialogs
from desktop.ui.context import WindowContext
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.workers import Refresher

if TYPE_CHECKING:
    from desktop.services.background import ProjectStore
    from desktop.services.stats import Stats
    from desktop.ui.stats_panel import StatsPanel


class AgreementDock(QObject):
    shown_setting = "agreement_shown"  # open at the close: opens again at the next start

    def __init__(self, context: WindowContext) -> None:
        super().__init__(context.window)
        self.context = context
        # The window's docks as the reviewer left them, restored once the dock exists.
        saved = QSettings("tiebreak", "tiebreak").value("docks")
        self.saved_state = saved if isinstance(saved, QByteArray) else None
        self.dock: QDockWidget | None = None
        self.panel: StatsPanel | None = None
        self.edit_timer = QTimer(self, singleShot=True, interval=600)
        self.edit_timer.timeout.connect(self.refresh)
        self._stats = Refresher(context.runner, self._work, self._show, self._failed)
        context.changed.connect(self._changed)

    def bind(self, shortcuts: Shortcuts) -> None:
        self.action: QAction = shortcuts.bind_toggle("toggle_stats", self.show)

    def is_open(self) -> bool:
        return self.dock is not None and self.dock.isVisible()

    def show(self, shown: bool) -> None:
        self._dock().setVisible(shown)

    def _work(self) -> background.Work[Stats]:
        session = self.context.session
        rubric, model = session.rubric_name, session.judge_model

        def stats(store: ProjectStore) -> Stats:
            from desktop.services.stats import rubric_stats  # not at start-up

            return rubric_stats(store, rubric, model)

        return background.reading(session.project, stats)

    def refresh(self) -> None:
        """Compute the figures again now (their last request wins)."""
        self._stats.request()

    def _changed(self, change: Change) -> None:
        """Another rubric, judge or project, or a sample drawn (the figures weigh by it):
        the figures now. A verdict written or a job
        ended: once edits pause. (A job's answers as they arrive: at its end.)"""
        if change.shown or change.sample:
            if self.is_open():
                self.refresh()
        elif change.verdicts and not change.more_coming:
            self.verdicts_changed()

    def verdicts_changed(self) -> None:
        """After an edit or a judged pair: the figures follow once edits pause."""
        if self.is_open():
            self.edit_timer.start()

    def _dock(self) -> QDockWidget:
        if self.dock is not None:
            return self.dock
        from desktop.ui.stats_panel import StatsPanel  # the figures' code: loaded when shown

        window = self.context.window
        self.panel = StatsPanel()
        self.panel.refreshRequested.connect(self.refresh)
        self.panel.savePng.connect(self.save_png)
        self.dock = QDockWidget("Agreement", window)
        self.dock.setObjectName("agreement")
        self.dock.setWidget(self.panel)
        self.dock.hide()
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.visibilityChanged.connect(self._visibility_changed)
        if self.saved_state is not None:  # where the reviewer last had it, and its width
            shown = [d for d in window.findChildren(QDockWidget) if d.isVisible()]
            window.restoreState(self.saved_state)
            for other in shown:  # a dock open now stays open (F's, C's), wherever it was
                other.show()
        return self.dock

    def _visibility_changed(self, shown: bool) -> None:
        self.action.setChecked(shown)
        if shown:
            self.refresh()

    def _show(self, stats: Stats | None) -> None:
        if stats is not None and self.panel is not None:
            self.panel.show_stats(stats)

    def _failed(self, message: str) -> None:
        if self.panel is not None:
            self.panel.heading.setText(message)

    def save_png(self) -> None:
        if self.panel is None:
            return
        session = self.context.session
        default = session.path.with_name(session.path.stem + "-agreement.png")
        path = dialogs.save_file(self.context.window, "Save figures", default, "PNG (*.png)")
        if path and not self.panel.grab().save(str(path), "PNG"):
            self.context.error(f"{path}: could not be written")
        elif path:
            self.context.say(f"saved {path.name}", 4000)
