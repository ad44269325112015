"""The window's spot-check tools: the agreement dock and the review queue (Q walks the
pairs most worth a human look). Both are computed off the GUI thread."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QDockWidget


class ReviewTools:
    """Mixed into MainWindow; uses its session (``ctl``), runner and status bar."""

    def _build_review_tools(self) -> None:
        self.stats_panel: Any = None  # built when first shown, so it costs start-up nothing
        self.stats_dock: Any = None
        self.stats_timer = QTimer(self, singleShot=True, interval=600)
        self.stats_timer.timeout.connect(self.refresh_stats)
        self._stats_task: Any = None
        self._queue: list[int] | None = None
        self._queue_task: Any = None

    def _ensure_stats_dock(self) -> None:
        if self.stats_dock is not None:
            return
        from PySide6.QtCore import Qt  # not at start-up: see desktop/ui/qt_by_name.py

        from desktop.ui.stats_panel import StatsPanel

        self.stats_panel = StatsPanel()
        self.stats_panel.refreshRequested.connect(self.refresh_stats)
        self.stats_panel.savePng.connect(self.save_stats_png)
        self.stats_dock = QDockWidget("Agreement", self)
        self.stats_dock.setObjectName("agreement")
        self.stats_dock.setWidget(self.stats_panel)
        self.stats_dock.hide()
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.stats_dock)
        self.stats_dock.visibilityChanged.connect(self._stats_visibility)
        if self.dock_state is not None:  # where the reviewer last had it, and its width
            self.restoreState(self.dock_state)

    def verdicts_changed(self) -> None:
        """After an edit or a judged pair: figures follow, the queue is recomputed."""
        self._queue = None
        if self.stats_dock is not None and self.stats_dock.isVisible():
            self.stats_timer.start()

    def toggle_stats(self) -> None:
        self.show_stats_dock(self.actions_by_name["toggle_stats"].isChecked())

    def show_stats_dock(self, shown: bool) -> None:
        self._ensure_stats_dock()
        self.stats_dock.setVisible(shown)

    def _stats_visibility(self, shown: bool) -> None:
        self.actions_by_name["toggle_stats"].setChecked(shown)
        if shown:
            self.refresh_stats()

    def refresh_stats(self) -> None:
        if self._stats_task is not None:
            self.stats_timer.start()  # one at a time; try again shortly
            return

        def done(stats: Any) -> None:
            self._stats_task = None
            if stats is not None:
                self.stats_panel.show_stats(stats)

        def failed(message: str) -> None:
            self._stats_task = None
            self.stats_panel.heading.setText(message)

        self._stats_task = self.runner.start(self.ctl.stats_work(), on_done=done, on_error=failed)

    def save_stats_png(self) -> None:
        from desktop.ui.dialogs import save_file

        default = self.ctl.path.with_name(self.ctl.path.stem + "-agreement.png")
        path = save_file(self, "Save figures", default, "PNG (*.png)")
        if path and not self.stats_panel.grab().save(str(path), "PNG"):
            self.error(f"{path}: could not be written")
        elif path:
            self.statusBar().showMessage(f"saved {path.name}", 4000)

    def next_in_queue(self) -> None:
        if self._queue is None:
            if self._queue_task is None:
                self.statusBar().showMessage("ordering pairs by how much a look is worth…")
                self._queue_task = self.runner.start(
                    self.ctl.queue_work(), on_done=self._queue_ready, on_error=self._queue_failed
                )
            return
        current = self.ctl.current.id if self.ctl.current else None
        while self._queue and self._queue[0] == current:
            self._queue.pop(0)
        if not self._queue:
            self.statusBar().showMessage("the review queue is empty", 4000)
            self._queue = None
            return
        target = self._queue.pop(0)
        self.search.clear()
        self.filter.setCurrentText("all")
        self.reload_list(keep=target)
        self.statusBar().showMessage(f"review queue: {len(self._queue):,} more", 3000)

    def _queue_ready(self, ids: list[int]) -> None:
        self._queue_task = None
        self._queue = list(ids)
        self.next_in_queue()

    def _queue_failed(self, message: str) -> None:
        self._queue_task = None
        self.error(message)
