"""The review window: the pair list on the left, the pair and its verdicts on the right,
the three choices top right, the agreement dock, the status bar.

The window is a composition: each part is a small object it owns, given the shared
WindowContext and typed references to the parts it calls, and binding its own actions
from the SHORTCUTS table. What one part's change means for the others (a verdict written,
another judge shown, a project opened) is wired here, in one place.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from PySide6.QtCore import QByteArray, QSettings, QTimer
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QPaintEvent
from PySide6.QtWidgets import QMainWindow, QSplitter

from desktop.domain.errors import TiebreakError
from desktop.services.app_settings import AppSettings, save_settings
from desktop.services.session import ReviewSession
from desktop.ui.agreement_dock import AgreementDock
from desktop.ui.choices import Choices
from desktop.ui.context import WindowContext
from desktop.ui.counts_label import CountsLabel
from desktop.ui.file_actions import FileActions
from desktop.ui.judge_actions import JudgeActions
from desktop.ui.pair_browser import PairBrowser
from desktop.ui.pair_display import PairDisplay
from desktop.ui.plain_text import PlainLabel
from desktop.ui.queue_actions import QueueActions
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.verdict_actions import VerdictActions
from desktop.ui.view_actions import ViewActions

WARM_UP_MS = 400  # after the first frame: the judge engine loads while the reviewer reads


class MainWindow(QMainWindow):
    def __init__(self, session: ReviewSession, settings: AppSettings) -> None:
        super().__init__()
        self.context = context = WindowContext(self, session, settings)
        self._after_paint: list[Callable[[], None]] | None = []  # None once painted
        self._excepthook = sys.excepthook
        sys.excepthook = self._unhandled
        self.setAcceptDrops(True)
        self.setWindowTitle("Tiebreak")
        state = QSettings("tiebreak", "tiebreak")
        docks = state.value("docks")

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
        self.judging = JudgeActions(
            context, self.display, self.pairs, self.counts, self.choices, bar
        )
        self.agreement = AgreementDock(context, docks if isinstance(docks, QByteArray) else None)
        self.queue = QueueActions(context, self.pairs)
        for part in (
            self.pairs,
            self.choices,
            self.editing,
            self.viewing,
            self.files,
            self.judging,
            self.agreement,
            self.queue,
        ):
            part.bind(self.shortcuts)
        self.shortcuts.check_all_bound()

        self.splitter = QSplitter()  # horizontal: the list, then the pair
        self.splitter.addWidget(self.pairs)
        self.splitter.addWidget(self.display)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setSizes([300, 1100])
        self.setCentralWidget(self.splitter)

        # What follows what.
        self.pairs.pairChosen.connect(self.display.show_pair)
        self.choices.judge_box.closed.connect(self._keys_to_the_list)
        self.choices.rubricChanged.connect(self._rubric_changed)
        self.choices.judgeChanged.connect(self._shown_verdicts_changed)
        self.choices.profileChanged.connect(self._profile_changed)
        self.editing.changed.connect(self._verdicts_changed)
        self.judging.finished.connect(self._verdicts_changed)
        self.files.openRequested.connect(self.open_path)
        self.files.imported.connect(self._pairs_added)
        self.files.settingsSaved.connect(lambda: self.open_session(self.session))

        self._restore(state)
        self.open_session(session)
        self.after_first_paint(lambda: context.later(WARM_UP_MS, self.judging.warm_up))

    @property
    def session(self) -> ReviewSession:
        """The open project's review session."""
        return self.context.session

    # ---- project ------------------------------------------------------------------------
    def open_session(self, session: ReviewSession) -> None:
        """Show ``session``'s project: its choices, its dimensions, where the reviewer was."""
        self.context.session = session
        self.editing.undo_stack.clear()
        if self.context.settings.remember(session.path):
            save_settings(self.context.settings)
        self.files.fill_recent()
        self.project_label.setText(session.path.name)
        self.setWindowTitle(f"{session.path.name} — Tiebreak")
        self.choices.fill()
        self.after_first_paint(self.choices.find_models)
        self.display.verdicts.set_dimensions(session.dimensions)
        self.pairs.reload(keep=session.saved_position())
        self.after_first_paint(self.counts.refresh)  # the pair shows first, then the figures
        self.after_first_paint(self.choices.refresh_judges)
        self.pairs.focus()  # the keys act on pairs from the start, not on the search box
        self.after_first_paint(
            lambda: self.context.runner.start(session.check_work(), on_error=self.context.error)
        )

    def open_path(self, path: Path) -> None:
        try:
            session = ReviewSession.open(path, self.context.settings)
        except TiebreakError as exc:
            self.context.error(str(exc))
            return
        self.session.close()
        self.open_session(session)

    # ---- what follows what --------------------------------------------------------------
    def _verdicts_changed(self) -> None:
        """A verdict was written or judged: the pair's verdicts, the counts and the
        spot-check tools follow."""
        self.display.show_verdicts()
        self.counts.refresh()
        self.queue.forget()
        self.agreement.verdicts_changed()

    def _shown_verdicts_changed(self) -> None:
        """Another rubric or judge is shown: the list, the pair's verdicts (the same pair
        stays), the counts and the figures all follow at once."""
        self.queue.forget()
        self.pairs.reload()
        self.display.show_verdicts()
        self.counts.refresh()
        if self.agreement.is_open():
            self.agreement.refresh()

    def _rubric_changed(self) -> None:
        self.display.verdicts.set_dimensions(self.session.dimensions)
        self._shown_verdicts_changed()

    def _profile_changed(self) -> None:
        if self.session.shown_judge is None:  # nothing answered yet: show whom Ctrl+J asks
            self._shown_verdicts_changed()
        else:
            self.display.show_verdicts()

    def _pairs_added(self) -> None:
        self.pairs.reload()
        self.counts.refresh()

    def _keys_to_the_list(self) -> None:
        """The judge picker's list closed: once Qt has put the focus back where it opened
        from, the keys go back to the pair list."""

        def back() -> None:
            self.activateWindow()  # the list was a window of its own while open
            self.pairs.focus()

        self.context.later(0, back)

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
        """Size and splitter as the reviewer left them; the agreement dock, if it was open,
        opens again once the first pair is painted, so it never delays that."""
        geometry = state.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 900)
        splitters = state.value("splitters")
        if isinstance(splitters, QByteArray):
            self.splitter.restoreState(splitters)
        if state.value("agreement_shown") in (True, "true"):
            self.after_first_paint(lambda: self.agreement.show(True))

    def after_first_paint(self, work: Callable[[], None]) -> None:
        """Run ``work`` once the window's first frame is on screen (soon, if it is)."""
        if self._after_paint is None:
            self.context.later(0, work)
        else:
            self._after_paint.append(work)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._after_paint is not None:  # the first frame: the children paint next
            pending, self._after_paint = self._after_paint, None
            for work in pending:
                self.context.later(0, work)  # after this frame is on screen

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
        state.setValue("agreement_shown", self.agreement.is_open())
        self.context.runner.shutdown()
        self.session.save_position()
        self.session.close()
        if sys.excepthook == self._unhandled:
            sys.excepthook = self._excepthook
        super().closeEvent(event)
