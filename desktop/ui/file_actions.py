"""Projects and files: new, open (also from the recent list), import (also by dropping a
file on the window), export, settings, quit."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QUrl, Signal

from desktop.domain.errors import TiebreakError
from desktop.services import background
from desktop.services.changes import Change
from desktop.services.projects import open_project
from desktop.services.session import ReviewSession
from desktop.ui import dialogs
from desktop.ui.context import WindowContext
from desktop.ui.shortcuts import Shortcuts

if TYPE_CHECKING:
    from desktop.services.background import ProjectStore
    from desktop.services.exporting import ExportReport
    from desktop.services.importing import ImportReport
    from desktop.services.inspect_import import RunsReport

PROJECT_SUFFIXES = (".tiebreak", ".db", ".sqlite")


def _import_work(session: ReviewSession, source: Path) -> background.Work[ImportReport]:
    def write(
        store: ProjectStore, progress: background.Progress, cancel: threading.Event
    ) -> ImportReport:
        from desktop.services.importing import import_file

        return import_file(store, source, progress=progress)

    return background.writing(session.project, write)


def _import_runs_work(
    session: ReviewSession, log_a: Path, log_b: Path
) -> background.Work[RunsReport]:
    """Two Inspect AI logs of one task as pairs (``inspect_import.import_runs``)."""

    def write(
        store: ProjectStore, progress: background.Progress, cancel: threading.Event
    ) -> RunsReport:
        from desktop.services.inspect_import import import_runs

        return import_runs(store, log_a, log_b, progress=progress)

    return background.writing(session.project, write)


def export_work(session: ReviewSession, out: Path) -> background.Work[ExportReport]:
    """Export what the window shows: this rubric, and the verdicts of the judge shown."""
    project, rubric, judge = session.project, session.rubric_name, session.shown_judge

    def work(progress: background.Progress, cancel: threading.Event) -> ExportReport:
        from desktop.services.exporting import export_project, format_for

        fmt = format_for(out)
        with project.open(readonly=True) as store:
            return export_project(
                store, out, rubric=rubric, fmt=fmt, judge_model=judge, progress=progress
            )

    return work


class FileActions(QObject):
    openRequested = Signal(object)  # the Path of a project to open in the window
    settingsSaved = Signal()  # the session's settings changed: show it anew

    def __init__(self, context: WindowContext) -> None:
        super().__init__(context.window)
        self.context = context
        context.changed.connect(self._changed)

    def _changed(self, change: Change) -> None:
        if change.project:
            self.fill_recent()

    def bind(self, shortcuts: Shortcuts) -> None:
        shortcuts.bind("new_project", self.new_project)
        shortcuts.bind("open_project", self.open_project)
        shortcuts.bind("import_file", self.import_file)
        shortcuts.bind("import_runs", self.import_runs)
        shortcuts.bind("export_file", self.export_file)
        shortcuts.bind("open_settings", self.open_settings)
        shortcuts.bind("quit", self.context.window.close)
        self.recent_menu = shortcuts.recent_menu

    def fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.context.settings.recent:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.openRequested.emit(Path(p)))

    def new_project(self) -> None:
        window = self.context.window
        path = dialogs.save_file(
            window, "New project", Path.home(), "Tiebreak projects (*.tiebreak)"
        )
        if path:
            target = path if path.suffix == ".tiebreak" else Path(f"{path}.tiebreak")
            try:
                open_project(target, create=True).close()
            except TiebreakError as exc:
                self.context.error(str(exc))
                return
            self.openRequested.emit(target)

    def open_project(self) -> None:
        window = self.context.window
        path = dialogs.open_file(
            window, "Open project", "Tiebreak projects (*.tiebreak);;All files (*)"
        )
        if path:
            self.openRequested.emit(path)

    def import_file(self, path: Path | None = None) -> None:
        """Import ``path`` (none: ask for it) off the GUI thread."""
        if path is None:
            path = dialogs.open_file(
                self.context.window,
                "Import pairs",
                "Data (*.csv *.jsonl *.json *.tsv);;All files (*)",
            )
            if path is None:
                return
        self.context.say(f"importing {path.name}…")
        self.context.runner.start(
            _import_work(self.context.session, path),
            on_done=self._imported,
            on_error=self.context.error,
        )

    def _imported(self, report: ImportReport) -> None:
        self.context.say(
            f"imported {report.added:,} pairs ({report.present:,} already there)", 6000
        )
        if report.unindexed:  # the search finds them meanwhile, reading them whole
            from desktop.services.search_indexing import index_in_background

            index_in_background(self.context.session.path)
        self.context.publish(Change(pairs_added=True))

    def import_runs(self) -> None:
        """Two Inspect AI logs of one task, asked for one after the other (run A, then run
        B), imported off the GUI thread as pairs of their samples' trajectories."""
        logs = []
        for side in ("A", "B"):
            path = dialogs.open_file(
                self.context.window,
                f"Import two Inspect AI runs: the log of run {side}",
                "Inspect AI logs (*.eval *.json);;All files (*)",
            )
            if path is None:
                return
            logs.append(path)
        log_a, log_b = logs
        self.context.say(f"importing {log_a.name} and {log_b.name}…")
        self.context.runner.start(
            _import_runs_work(self.context.session, log_a, log_b),
            on_done=self._imported_runs,
            on_error=self.context.error,
        )

    def _imported_runs(self, report: RunsReport) -> None:
        self.context.say(report.summary(), 10000)
        self.context.publish(Change(pairs_added=True))

    def export_file(self) -> None:
        session = self.context.session
        default = session.path.with_suffix(".csv")
        from desktop.services.exporting import export_columns

        columns = export_columns(session.dimensions)
        path = dialogs.confirm_export(self.context.window, columns, default)
        if path is None:
            return

        def done(report: ExportReport) -> None:
            self.context.say(f"exported {report.rows:,} rows to {path}{report.guard_note}", 8000)

        self.context.runner.start(
            export_work(session, path), on_done=done, on_error=self.context.error
        )

    def open_settings(self) -> None:
        from desktop.ui.settings_dialog import SettingsDialog  # loads the keyring: on demand

        if SettingsDialog(self.context.window, self.context.session).exec():
            self.settingsSaved.emit()

    def drop(self, urls: list[QUrl]) -> None:
        """Files dropped on the window: a project opens, a data file is imported."""
        for url in urls:
            path = Path(url.toLocalFile())
            if path.suffix.lower() in PROJECT_SUFFIXES:
                self.openRequested.emit(path)
            elif path.is_file():
                self.import_file(path)
