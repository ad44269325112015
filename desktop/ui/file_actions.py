"""The window's file actions: new, open, import (also by drag and drop), export, settings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.domain.errors import TiebreakError
from desktop.services.session import ReviewSession

if TYPE_CHECKING:  # annotations only: the event classes load when a file is dragged in
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

PROJECT_SUFFIXES = (".tiebreak", ".db", ".sqlite")


class FileActions:
    """Mixed into MainWindow; uses its session (``ctl``), runner and status bar."""

    def new_project(self) -> None:
        from desktop.ui.dialogs import save_file

        path = save_file(self, "New project", Path.home(), "Tiebreak projects (*.tiebreak)")
        if path:
            target = path if path.suffix == ".tiebreak" else Path(f"{path}.tiebreak")
            try:
                ReviewSession.create(target)
            except TiebreakError as exc:
                self.error(str(exc))
                return
            self.open_path(target)

    def open_project(self) -> None:
        from desktop.ui.dialogs import open_file

        path = open_file(self, "Open project", "Tiebreak projects (*.tiebreak);;All files (*)")
        if path:
            self.open_path(path)

    def import_file(self, path: Path | None = None) -> None:
        if path is None:
            from desktop.ui.dialogs import open_file

            path = open_file(
                self, "Import pairs", "Data (*.csv *.jsonl *.json *.tsv);;All files (*)"
            )
            if path is None:
                return
        self.statusBar().showMessage(f"importing {path.name}…")
        self.runner.start(self.ctl.import_work(path), on_done=self._imported, on_error=self.error)

    def _imported(self, report: Any) -> None:
        self.statusBar().showMessage(
            f"imported {report.added:,} pairs ({report.duplicates:,} already there)", 6000
        )
        self.reload_list()

    def export_file(self) -> None:
        from desktop.ui.dialogs import confirm_export

        default = self.ctl.path.with_suffix(".csv")
        path = confirm_export(self, self.ctl.export_columns(), default)
        if path is None:
            return
        self.runner.start(
            self.ctl.export_work(path),
            on_error=self.error,
            on_done=lambda r: self.statusBar().showMessage(
                f"exported {r.rows:,} rows to {path}{r.guard_note}", 8000
            ),
        )

    def open_settings(self) -> None:
        from desktop.ui.settings_dialog import SettingsDialog

        if SettingsDialog(self, self.ctl).exec():
            self.open_controller(self.ctl)

    def quit(self) -> None:
        self.close()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        for url in event.mimeData().urls():
            path = Path(url.toLocalFile())
            if path.suffix.lower() in PROJECT_SUFFIXES:
                self.open_path(path)
            elif path.is_file():
                self.import_file(path)
