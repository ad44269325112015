"""The review window: pair list, the pair side by side, the verdict panel, status bar."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QByteArray, QSettings, QTimer
from PySide6.QtGui import QAction, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLineEdit,
    QMainWindow,
    QProgressBar,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.domain.errors import TiebreakError
from desktop.services.app_settings import AppSettings, save_settings
from desktop.services.heap import settle
from desktop.services.review import FILTERS
from desktop.services.session import ReviewSession as ReviewController
from desktop.ui.choices import Choices
from desktop.ui.file_actions import FileActions
from desktop.ui.judge_actions import JudgeActions
from desktop.ui.pair_list import COLUMN_WIDTHS, PairListModel, header_labels
from desktop.ui.pair_view import PairView
from desktop.ui.plain_text import PlainLabel
from desktop.ui.qt_by_name import build_qt_namespace, set_properties
from desktop.ui.review_tools import ReviewTools
from desktop.ui.shortcuts import SHORTCUTS
from desktop.ui.verdict_actions import VerdictActions
from desktop.ui.verdict_panel import VerdictPanel
from desktop.ui.view_actions import ViewActions
from desktop.ui.workers import TaskRunner

if TYPE_CHECKING:
    from PySide6.QtGui import QPaintEvent


class MainWindow(
    VerdictActions, ViewActions, FileActions, JudgeActions, ReviewTools, Choices, QMainWindow
):
    def __init__(self, controller: ReviewController, settings: AppSettings) -> None:
        super().__init__()
        self.ctl = controller
        self.settings = settings
        self.runner = TaskRunner(self)
        self.undo_stack = QUndoStack(self)
        self._closed = False
        self._counts_task: Any = None
        self._counts_again = False
        self._after_paint: list[Callable[[], None]] | None = []  # None once painted
        self._excepthook = sys.excepthook
        sys.excepthook = self._unhandled
        self.setAcceptDrops(True)
        self.setWindowTitle("Tiebreak")
        self._build()
        self._build_review_tools()
        self._build_judge_actions()
        self._build_actions()
        self._restore_window()
        self.open_controller(controller)
        self.after_first_paint(build_qt_namespace)
        self.after_first_paint(settle)  # the start-up's objects: never walked again
        self.after_first_paint(lambda: self.later(400, self.warm_judge_engine))

    # ---- layout ---------------------------------------------------------------------
    def _build(self) -> None:
        self.search = QLineEdit()
        self.search.setPlaceholderText("search…")
        self.search.setClearButtonEnabled(True)
        self.search_timer = QTimer(self, singleShot=True, interval=200)
        self.search_timer.timeout.connect(self.new_query)
        self.search.textChanged.connect(lambda _: self.search_timer.start())
        self.filter = QComboBox()
        self.filter.addItems(FILTERS)
        self.filter.currentTextChanged.connect(lambda _: self.new_query())
        self.model = PairListModel(self._fetch_rows)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setModel(header_labels(self))  # the same columns as self.model
        # Fixed sizes: sizing to contents would read every loaded row on each change.
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setMinimumSectionSize(32)  # the stretched status column may be narrow
        header.setDefaultSectionSize(60)
        header.setStretchLastSection(True)
        for column, width in enumerate(COLUMN_WIDTHS):
            self.table.setColumnWidth(column, width)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.selectionModel().currentRowChanged.connect(
            lambda cur, _: self._row_chosen(cur.row())
        )
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.filter)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(4, 4, 0, 4)
        left_layout.addLayout(top)
        left_layout.addWidget(self.table)
        self.pair_view = PairView()
        self.verdicts = VerdictPanel()
        self.verdicts.verdictChosen.connect(self.set_verdict)
        self.verdicts.noteEdited.connect(self.save_note)
        self.verdicts.showRaw.connect(self.show_raw_completion)
        self.verdicts.showPrompt.connect(self.show_prompt)
        right = QSplitter()
        set_properties(right, orientation="Vertical")
        right.addWidget(self.pair_view)
        right.addWidget(self.verdicts)
        right.setStretchFactor(0, 5)
        right.setStretchFactor(1, 1)
        self.splitter = QSplitter()  # horizontal
        self.splitter.addWidget(left)
        self.splitter.addWidget(right)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setSizes([300, 1100])
        self.setCentralWidget(self.splitter)
        self._build_choices()
        self.project_label = PlainLabel()
        self.counts_label = PlainLabel()
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setFormat("judging %v/%m")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_job)
        bar = self.statusBar()
        # Permanent: a passing message (left) never hides which project this is or its counts.
        bar.addPermanentWidget(self.project_label)
        bar.addPermanentWidget(self.counts_label)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        self.progress.hide()
        self.cancel_button.hide()

    def _build_actions(self) -> None:
        self.actions_by_name: dict[str, QAction] = {}
        menus = {
            name: self.menuBar().addMenu(name) for name in ("File", "Edit", "View", "Judge", "Help")
        }
        self.recent_menu = menus["File"].addMenu("Recent projects")
        for name, keys, menu, description in SHORTCUTS:
            action = QAction(self)  # QAction(text, parent) would weigh QIcon's overloads too
            action.setText(description)
            action.setShortcuts([QKeySequence(k) for k in keys])
            action.setAutoRepeat(False)
            action.triggered.connect(lambda _=False, n=name: getattr(self, n)())
            if name.startswith("toggle_"):
                action.setCheckable(True)
            menus[menu].addAction(action)
            self.actions_by_name[name] = action
        self.actions_by_name["toggle_blind"].setChecked(self.settings.blind)
        self.actions_by_name["toggle_link"].setChecked(self.settings.link_scrolling)
        self.pair_view.set_linked(self.settings.link_scrolling)

    # ---- project ----------------------------------------------------------------------
    def open_controller(self, controller: ReviewController) -> None:
        self.ctl = controller
        self.undo_stack.clear()
        if self.settings.remember(controller.path):
            save_settings(self.settings)
        self._fill_recent()
        self.project_label.setText(controller.path.name)
        self.setWindowTitle(f"{controller.path.name} — Tiebreak")
        self._fill_choices()
        self.verdicts.set_dimensions(controller.dimensions)
        self.reload_list(keep=controller.saved_position())
        self.after_first_paint(self.refresh_judges)  # the pair shows first, then the counts
        self.table.setFocus()  # the keys act on pairs from the start, not on the search box
        self.after_first_paint(
            lambda: self.runner.start(controller.check_work(), on_error=self.error)
        )

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.settings.recent:
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_path(Path(p)))

    def open_path(self, path: Path) -> None:
        try:
            controller = ReviewController.open(path, self.settings)
        except TiebreakError as exc:
            self.error(str(exc))
            return
        self.ctl.close()
        self.open_controller(controller)

    # ---- list and navigation ----------------------------------------------------------
    def _fetch_rows(self, after: int, limit: int) -> list[Any]:
        return self.ctl.rows(
            search=self.search.text().strip(),
            filter_name=self.filter.currentText(),
            after_id=after,
            limit=limit,
        )

    def new_query(self) -> None:
        """A changed search or filter starts at its first match, as a search does."""
        self.reload_list(keep=0)

    def reload_list(self, keep: int | None = None) -> None:
        keep = keep if keep is not None else (self.ctl.current.id if self.ctl.current else None)
        self.model.reset()
        # Rows come in id order: stop at the first id past the one to keep, so a pair the
        # search or filter leaves out never makes the list load every page.
        row = self.model.fetch_all_until(lambda r: r.id >= keep, 0) if keep else None
        if row is not None and self.model.row_at(row).id != keep:
            row = 0
        self._select(row if row is not None else 0)
        self.after_first_paint(self.refresh_counts)  # the pair shows first, then the figures

    def _select(self, row: int) -> None:
        if self.model.rowCount() == 0:
            self._show_pair(None)
            return
        row = max(0, min(row, self.model.rowCount() - 1))
        self.table.selectRow(row)
        self.table.scrollTo(self.model.index(row, 0))
        self._row_chosen(row)

    def _row_chosen(self, row: int) -> None:
        list_row = self.model.row_at(row)
        if list_row is None or (self.ctl.current and self.ctl.current.id == list_row.id):
            return
        self._show_pair(list_row.id)

    def _show_pair(self, pair_id: int | None) -> None:
        pair = self.ctl.load_pair(pair_id) if pair_id is not None else None
        self.pair_view.show_pair(pair)
        self.verdicts.focus_first()
        self.refresh_verdicts()

    def refresh_verdicts(self) -> None:
        views = self.ctl.verdict_views()
        self.verdicts.show_views(views, blind=self.settings.blind)
        note = next(iter(views.notes.values()), "") if views else ""
        self.verdicts.note.setText(note)
        self.verdicts.judge_info.setText(self.ctl.judge_summary(views))
        if self.ctl.current:
            self.model.replace_row(self.ctl.list_row(self.ctl.current.id))

    def refresh_counts(self) -> None:
        """Counted off the GUI thread, one count at a time; a request made while one runs
        is served when it ends, so the figures shown are never older than the last edit."""
        if self._closed:  # a deferred refresh may arrive after the project closed
            return
        if self._counts_task is not None:
            self._counts_again = True
            return
        asked = (self.ctl, self.ctl.rubric_name, self.ctl.judge_model)
        self._counts_again = False
        self._counts_task = self.runner.start(
            self.ctl.counts_work(),
            on_done=lambda counts: self._show_counts(asked, counts),
            on_error=lambda message: self._show_counts(asked, None, message),
        )

    def _show_counts(self, asked: tuple, counts: Any, message: str = "") -> None:
        self._counts_task = None
        if self._closed:
            return
        if self._counts_again or asked != (self.ctl, self.ctl.rubric_name, self.ctl.judge_model):
            self.refresh_counts()
            return
        if counts is None:
            self.counts_label.setText(f"counts unavailable: {message}")
            return
        total, judged, reviewed = counts
        self.counts_label.setText(
            f"{total:,} pairs · {judged:,} judged · {reviewed:,} reviewed ·"
            f" {total - reviewed:,} left"
        )

    def _step(self, predicate=None, step: int = 1) -> None:
        current = self.table.currentIndex().row()
        if predicate is None:
            target = current + step
            if (
                step > 0
                and target >= self.model.rowCount()
                and self.model.canFetchMore(self.table.rootIndex())
            ):
                self.model.fetchMore(self.table.rootIndex())
        else:
            found = self.model.fetch_all_until(predicate, current + 1)
            if found is None:
                self.statusBar().showMessage("no further pair of that kind", 3000)
                return
            target = found
        if 0 <= target < self.model.rowCount():
            self._select(target)

    def next_pair(self) -> None:
        self._step()

    def previous_pair(self) -> None:
        self._step(step=-1)

    def next_unreviewed(self) -> None:
        self._step(lambda r: not r.mine)

    def next_flagged(self) -> None:
        self._step(lambda r: r.flagged)

    # ---- window -----------------------------------------------------------------------
    def error(self, message: str) -> None:
        from desktop.ui.dialogs import warn

        warn(self, message)

    def _unhandled(self, kind: type[BaseException], exc: BaseException, tb: Any) -> None:
        """Qt hands an exception raised in a slot to sys.excepthook: a TiebreakError met
        on the GUI thread (a read of a damaged file, say) is its one line, shown."""
        if isinstance(exc, TiebreakError) and not self._closed:
            self.error(str(exc))
        else:
            self._excepthook(kind, exc, tb)

    def _restore_window(self) -> None:
        """Size, splitters and docks as the reviewer left them; a dock that was open opens
        again once the first pair is painted, so it never delays that."""
        state = QSettings("tiebreak", "tiebreak")
        geometry = state.value("geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        else:
            self.resize(1400, 900)
        splitters = state.value("splitters")
        if isinstance(splitters, QByteArray):
            self.splitter.restoreState(splitters)
        docks = state.value("docks")
        self.dock_state = docks if isinstance(docks, QByteArray) else None
        if state.value("agreement_shown") in (True, "true"):
            self.after_first_paint(lambda: self.show_stats_dock(True))

    def after_first_paint(self, work: Callable[[], None]) -> None:
        """Run ``work`` once the window's first frame is on screen (soon, if it is)."""
        if self._after_paint is None:
            self.later(0, work)
        else:
            self._after_paint.append(work)

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self._after_paint is not None:  # the first frame: the children paint next
            pending, self._after_paint = self._after_paint, None
            for work in pending:
                self.later(0, work)  # after this frame is on screen

    def later(self, msec: int, work: Callable[[], None]) -> None:
        """Run ``work`` after ``msec``, unless the window has closed by then."""
        QTimer.singleShot(msec, lambda: None if self._closed else work())

    def closeEvent(self, event: Any) -> None:
        if self._closed:  # Qt may deliver a second close (quit after close): nothing left to do
            return super().closeEvent(event)
        self._closed = True
        for timer in self.findChildren(QTimer):  # a pending search must not reach a closed file
            timer.stop()
        state = QSettings("tiebreak", "tiebreak")
        state.setValue("geometry", self.saveGeometry())
        state.setValue("splitters", self.splitter.saveState())
        state.setValue("docks", self.saveState())
        state.setValue("agreement_shown", bool(self.stats_dock and self.stats_dock.isVisible()))
        self.runner.shutdown()
        self.ctl.save_position()
        self.ctl.close()
        if sys.excepthook == self._unhandled:
            sys.excepthook = self._excepthook
        super().closeEvent(event)
