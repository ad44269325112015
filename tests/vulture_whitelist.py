"""Names in desktop/ that nothing in desktop/ calls by name, yet are used: vulture's
whitelist, read by tests/test_dead_code.py (and importable, which checks every name here
still exists). Each line says who calls it. A name belongs here only for a use vulture
cannot see; a function nothing uses is removed, not listed.

The schema's migrations (``@migrations()``: sqlite-utils runs each in turn) are left out
by the test's ``ignore_decorators`` rather than listed one by one."""

# Each line below is a use of a name, which is all vulture reads: no expression is useless.
# ruff: noqa: B018

from desktop.adapters.formats.compressed import _Inflating
from desktop.adapters.loopback_http import _DeadlineReader, _DeadlineSocket
from desktop.adapters.store.pairs import iter_pairs
from desktop.cli.terminal import _Guarded
from desktop.domain.review_sample import _Key
from desktop.ui.adjudication_dialog import AdjudicationDialog
from desktop.ui.figures_dock import FiguresPanel
from desktop.ui.generators_panel import LeaderboardModel
from desktop.ui.judges_panel import SelectionModel
from desktop.ui.main_window import MainWindow
from desktop.ui.pair_list import PairListModel
from desktop.ui.pair_view import PairView
from desktop.ui.picker_box import PickerBox
from desktop.ui.reasoning_panel import ReasoningPanel
from desktop.ui.response_view import ResponseView, _hand_over_the_copy, _InertDocument
from desktop.ui.shortcuts import markdown_table
from desktop.ui.trajectory_row import _Line
from desktop.ui.view_actions import ViewActions
from desktop.ui.workers import TaskRunner

# ---- Python's own protocols: the standard library calls these -------------------------------
_Inflating.readinto  # io.BufferedReader reads a raw stream through readinto
_DeadlineReader.readinto  # likewise, for http.client's response
_DeadlineSocket.makefile  # http.client reads a response through its socket's makefile
_Guarded.writelines  # sys.stdout's file protocol: any library writing a list of lines
_Key.__lt__  # a Protocol's method: sorted() compares the keys the draw is made in order of
_hand_over_the_copy  # @atexit.register: Python calls it as the process ends

# ---- Qt calls these virtual methods from C++ -------------------------------------------------
LeaderboardModel.columnCount  # QAbstractTableModel: the view asks its shape and headings
LeaderboardModel.headerData
SelectionModel.columnCount
SelectionModel.headerData
PairListModel.columnCount
PairListModel.headerData
FiguresPanel.eventFilter  # installed with installEventFilter(self)
PickerBox.eventFilter
ViewActions.eventFilter
MainWindow.dragEnterEvent  # setAcceptDrops(True): a project or data file dropped on it
MainWindow.dropEvent
_InertDocument.loadResource  # Qt asks the document for an image's bytes: it refuses
ResponseView.loadResource  # and the view likewise
ResponseView.createMimeDataFromSelection  # QTextEdit's copy (Ctrl+C, the context menu)
_Line.mousePressEvent  # a click on a trajectory's step line folds or unfolds it

# ---- Read by tests and tools outside desktop/, to check what the product did -----------------
iter_pairs  # the tests read a project's pairs back through it, after an import or a merge
AdjudicationDialog.row_texts  # what the adjudication table shows (tests, a screen reader)
PairView.current_turn  # which turn of a conversation is shown (tests of moving by turn)
ReasoningPanel.shown_text  # what the judge's reasoning box shows (tests of folding it)
TaskRunner.busy  # docs/screenshot.py and docs/trajectories_screenshot.py wait on it
markdown_table  # README's key table: tests/test_readme_keys.py holds README to it
