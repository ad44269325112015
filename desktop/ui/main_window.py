"""The review window: the pair list on the left, the pair and its verdicts on the right,
the three choices top right, the docks, the status bar.

The window is a composition: each part is a small object it owns, given the shared
WindowContext and typed references to the parts it calls, and binding its own actions
from the SHORTCUTS table. A change (a verdict written, another judge shown, a project
opened) is published once on the context by whoever made it, and each part follows it
on its own (desktop/services/changes.py); the docks come from one table
(desktop/ui/docks.py), so a new one needs no edit here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Protocol, TypeVar

from PySide6.QtCore import QByteArray, QSettings, QTimer
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QPaintEvent
from PySide6.QtWidgets import QMainWindow, QSplitter

from desktop.domain.errors import TiebreakError
from desktop.domain.shown_text import shown
from desktop.services import background
from desktop.services.app_settings import AppSettings, save_settings
from desktop.services.changes import Change
from desktop.services.review_position import save_position
from desktop.services.session import ReviewSession
from desktop.ui import dialogs, docks
from desktop.ui.agreement_dock import AgreementDock
from desktop.ui.choices import Choices
from desktop.ui.context import WindowContext
from desktop.ui.counts_label import CountsLabel
from desktop.ui.file_actions import FileActions
from desktop.ui.file_guard import FileGuard
from desktop.ui.guidance_dock import GuidanceDock
from desktop.ui.judge_actions import JudgeActions
from desktop.ui.pair_browser import PairBrowser
from desktop.ui.pair_display import PairDisplay
from desktop.ui.plain_text import PlainLabel
from desktop.ui.queue_actions import QueueActions
from desktop.ui.seen_keeper import SeenKeeper
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.verdict_actions import VerdictActions
from desktop.ui.view_actions import ViewActions

D = TypeVar("D")


class Bound(Protocol):
    """A part of the window that binds the actions of the shortcut table it handles."""

    def bind(self, shortcuts: Shortcuts) -> None: ...


WARM_UP_MS = 400  # after the first frame: the judge engine loads while the reviewer reads


class MainWindow(QMainWindow):
    def __init__(self, session: ReviewSession, settings: AppSettings) -> None:
        super().__init__()
        self.context = context = WindowContext(self, session, settings)
        self._excepthook = sys.excepthook
        sys.excepthook = self._unhandled
        self.setAcceptDrops(True)
        self.setWindowTitle("Tiebreak")
        state = QSettings("tiebreak", "tiebreak")

        # The parts, each given what it uses.
        self.pairs = PairBrowser(context)
        self.display = PairDisplay(context, self.pairs)
        self.project_label = PlainLabel()
        self.counts = CountsLabel(context)
        bar = self.statusBar()
        # Permanent: a passing message (left) never hides which project this is or its counts.
        bar.addPermanentWidget(self.project_label)
        bar.addPermanentWidget(self.counts)
        self.shortcuts = Shortcuts(self)
        self.choices = Choices(context, self.menuBar())
        self.editing = VerdictActions(context, self.display, self.pairs)
        self.viewing = ViewActions(context, self.display)
        self.files = FileActions(context)
        self.judging = JudgeActions(context, self.choices, self.pairs, bar)
        self.queue = QueueActions(context, self.pairs)
        self.docks = [dock(context) for dock in docks.DOCKS]
        self.guard = FileGuard(context)
        self.seen = SeenKeeper(context)  # what the judge showed, kept for blind mode
        parts: tuple[Bound, ...] = (
            self.pairs,
            self.display,
            self.choices,
            self.editing,
            self.viewing,
            self.files,
            self.judging,
            self.queue,
            *self.docks,
        )
        for part in parts:
            part.bind(self.shortcuts)
        self.shortcuts.check_all_bound()

        self.splitter = QSplitter()  # horizontal: the list, then the pair
        self.splitter.addWidget(self.pairs)
        self.splitter.addWidget(self.display)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setSizes([300, 1100])
        self.setCentralWidget(self.splitter)

        # What follows what, besides the changes each part follows.
        self.pairs.pairChosen.connect(self.display.show_pair)
        self.pairs.searchChanged.connect(self.display.pair_view.marks.set_text)
        self.choices.judge_box.closed.connect(self.pairs.keys_back)
        self.files.openRequested.connect(self.open_path)
        self.files.settingsSaved.connect(lambda: self.open_session(self.session))
        self.guard.lost.connect(self._file_lost)

        self._restore(state)
        self.open_session(session)
        self.after_first_paint(self.display.reasoning.first_frame_painted)
        self.after_first_paint(lambda: context.later(WARM_UP_MS, self.judging.warm_up))

    @property
    def session(self) -> ReviewSession:
        """The open project's review session."""
        return self.context.session

    def dock(self, kind: type[D]) -> D:
        """The window's dock of that class (one of docks.DOCKS)."""
        return next(d for d in self.docks if isinstance(d, kind))

    # The docks that were attributes before the table, for what reads them by name.
    @property
    def agreement(self) -> AgreementDock:
        return self.dock(AgreementDock)

    @property
    def guidance(self) -> GuidanceDock:
        return self.dock(GuidanceDock)

    # ---- project ------------------------------------------------------------------------
    def open_session(self, session: ReviewSession) -> None:
        """Show ``session``'s project: its choices, its dimensions, where the reviewer was."""
        self.context.session = session
        if self.context.settings.remember(session.path):
            save_settings(self.context.settings)
        self.project_label.setText(session.path.name)
        self.setWindowTitle(f"{shown(session.path.name)} — Tiebreak")
        self.guard.watch()
        self.choices.fill()
        self.after_first_paint(self.choices.find_models)
        self.context.publish(Change(project=True))  # the list, the pair, the counts, the docks
        self.after_first_paint(self.choices.refresh_judges)
        self.after_first_paint(
            lambda: self.context.runner.start(
                background.reading(session.project, lambda store: store.ensure_sound()),
                on_done=session.checked,
                on_error=self.context.error,
            )
        )

    def open_path(self, path: Path) -> None:
        self.guard.check()  # a file moved or replaced is let go of first, so it can reopen
        try:
            session = ReviewSession.open(path, self.context.settings)
        except TiebreakError as exc:
            self.context.error(str(exc))
            return
        self.session.close()
        self.open_session(session)

    def _file_lost(self, line: str) -> None:
        """The project file was moved or replaced while open: said once in a box, and in
        the status bar (by the file's name) until a project is opened. The pair shown stays,
        with any verdict given since marked as not saved; the list stops moving."""
        path = self.session.path
        self.project_label.setText(line.replace(str(path), path.name, 1))
        self.counts.setText("")
        self.pairs.setEnabled(False)
        self.setWindowTitle(f"{path.name} (moved or replaced) — Tiebreak")
        dialogs.warn(self, line)

    # ---- window -------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        self.files.drop(event.mimeData().urls())

    def _unhandled(
        self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        """Qt hands an exception raised in a slot to sys.excepthook: a TiebreakError met
        on the GUI thread (a read of a damaged file, say) is its one line, shown."""
        if isinstance(exc, TiebreakError) and not self.context.closed:
            self.context.error(str(exc))
        else:
            self._excepthook(kind, exc, tb)

    def _restore(self, state: QSettings) -> None:
        """Size and splitter as the reviewer left them; a dock that was open (one that
        remembers it: ``shown_setting``) opens again once the first pair is painted, so it
        never delays that."""
        geometry = state.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 900)
        splitters = state.value("splitters")
        if isinstance(splitters, QByteArray):
            self.splitter.restoreState(splitters)
        for dock in self.docks:
            setting = getattr(dock, "shown_setting", None)
            if setting and state.value(setting) in (True, "true"):
                self.after_first_paint(partial(dock.show, True))

    def after_first_paint(self, work: Callable[[], object]) -> None:
        """Run ``work`` once the window's first frame is on screen (soon, if it is)."""
        self.context.after_first_paint(work)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        self.context.painted()  # the first frame: the children paint next

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.context.closed:  # Qt may deliver a second close (quit after close)
            return super().closeEvent(event)
        self.context.closed = True
        for timer in self.findChildren(QTimer):  # a pending search must not reach a closed file
            timer.stop()
        state = QSettings("tiebreak", "tiebreak")
        state.setValue("geometry", self.saveGeometry())
        state.setValue("splitters", self.splitter.saveState())
        state.setValue("docks", self.saveState())
        for dock in self.docks:
            setting = getattr(dock, "shown_setting", None)
            if setting:
                state.setValue(setting, dock.is_open())
        self.context.runner.shutdown()
        save_position(self.session.store, self.session.current)
        self.session.close()
        if sys.excepthook == self._unhandled:
            sys.excepthook = self._excepthook
        super().closeEvent(event)
