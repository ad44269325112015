"""The figures as pictures (P), in a dock on the right: per dimension, B's win rate three
ways with its intervals (the judge alone, the humans alone, PPI++), the generators' ratings
as a forest plot, the judge's calibration curve, the judge × human confusion matrix, and a
jury's jurors. The charts are drawn off the GUI thread (``services/figure_charts``, SVG
text from matplotlib) and painted by QtSvg; until new ones arrive the last ones stay, under
a heading that says they are being computed. The dock is built the first time it is shown.

Each chart is drawn as many ems of the window's font wide as the dock's column holds and
painted at the scale that makes its text the window's size: a resize of the dock or a new
font size (Ctrl+plus) draws the charts again, from the figures already computed."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QFontInfo
from PySide6.QtWidgets import (
    QComboBox,
    QDockWidget,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.domain.shown_text import shown
from desktop.services import background
from desktop.services.changes import Change
from desktop.services.charts import TEXT
from desktop.ui.context import WindowContext
from desktop.ui.plain_text import PlainLabel
from desktop.ui.shortcuts import Shortcuts
from desktop.ui.workers import Refresher

if TYPE_CHECKING:
    from desktop.services.figure_charts import WindowFigures


NARROWEST = 24.0  # ems: a chart narrower than this is not drawn (the column scrolls)


class FiguresPanel(QWidget):
    """A dimension chooser, a heading, and that dimension's charts one under another."""

    resized = Signal()  # the column's width or the font changed: the charts' size with it
    undrawn = Signal()  # the dimension chosen has figures but its charts are not drawn yet

    def __init__(self, refresh: QPushButton) -> None:
        super().__init__()
        self.heading = PlainLabel("Computing the figures…")
        self.heading.setWordWrap(True)
        self.dimension = QComboBox()
        self.dimension.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # the keys stay on the pairs
        self.dimension.currentIndexChanged.connect(lambda _: self._show_dimension())
        self.charts = QWidget()
        self.column = QVBoxLayout(self.charts)
        self.column.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.scroller = QScrollArea()
        self.scroller.setWidgetResizable(True)
        self.scroller.setWidget(self.charts)
        self.scroller.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.scroller.viewport().installEventFilter(self)
        top = QHBoxLayout()
        top.addWidget(self.dimension, 1)
        top.addWidget(refresh)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.heading)
        layout.addWidget(self.scroller, 1)
        self.figures: WindowFigures | None = None
        self.scale = 1.0  # the charts' on screen: their text at the window's size

    def chart_size(self) -> tuple[float, float]:
        """The charts' width in ems of the window's font (what the column holds), and the
        scale that paints their text at the window's size."""
        pixels = max(1, QFontInfo(self.font()).pixelSize())
        margins = self.column.contentsMargins()
        room = self.scroller.viewport().width() - margins.left() - margins.right()
        return max(NARROWEST, room / pixels), pixels / TEXT

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.resized.emit()
        return False

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self.resized.emit()
        super().changeEvent(event)

    def show_figures(self, figures: WindowFigures) -> None:
        self.figures = figures
        self.scale = self.chart_size()[1]
        self.heading.setText(figures.heading)
        chosen = self.dimension.currentData()
        self.dimension.blockSignals(True)
        self.dimension.clear()
        for d in figures.dimensions:  # a dimension's name is the rubric author's text
            self.dimension.addItem(shown(d.dimension), d.dimension)
        self.dimension.setCurrentIndex(max(0, self.dimension.findData(chosen)))
        self.dimension.blockSignals(False)
        self._show_dimension()

    def _show_dimension(self) -> None:
        while self.column.count():
            item = self.column.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        figures = self.figures
        if figures is None:
            return
        name = self.dimension.currentData()
        chosen = next((d for d in figures.dimensions if d.dimension == name), None)
        if chosen is not None and chosen.charts is None:
            self.column.addWidget(PlainLabel("Drawing the charts…"))
            self.undrawn.emit()
            return
        if chosen is None or not chosen.charts:
            self.column.addWidget(PlainLabel("No figures for this dimension yet."))
            return
        from desktop.ui.svg_chart import SvgChart  # QtSvg: loaded when a chart is shown

        for svg in chosen.charts:
            self.column.addWidget(SvgChart(svg, self.scale))
        self.column.addStretch(1)  # what height is left goes under the charts


class FiguresDock(QObject):
    shown_setting = "figures_shown"  # open at the close: opens again at the next start

    def __init__(self, context: WindowContext) -> None:
        super().__init__(context.window)
        self.context = context
        self.dock: QDockWidget | None = None
        self.panel: FiguresPanel | None = None
        self.edit_timer = QTimer(self, singleShot=True, interval=600)
        self.edit_timer.timeout.connect(self.refresh)
        self.resize_timer = QTimer(self, singleShot=True, interval=150)
        self.resize_timer.timeout.connect(self._redraw)
        self._figures = Refresher(
            context.runner,
            self._work,
            self._show,
            self._failed,
            key=lambda: (context.session.path, context.session.rubric_name, self._judge()),
        )
        self._drawn = Refresher(
            context.runner,
            self._redraw_work,
            self._show_redrawn,
            self._failed,
            lambda: (self._width(), self._dimension()),
        )
        context.changed.connect(self._changed)

    def _judge(self) -> object:
        return self.context.session.judge_model

    def _dimension(self) -> str | None:
        """The dimension the dock shows (None before the first figures)."""
        return self.panel.dimension.currentData() if self.panel is not None else None

    def _width(self) -> float:
        return self.panel.chart_size()[0] if self.panel is not None else 0.0

    def _redraw(self) -> None:
        """The charts drawn again at the column's width and the window's font, where the
        figures shown were drawn for another."""
        panel = self.panel
        if panel is None or panel.figures is None or not self.is_open():
            return
        width, scale = panel.chart_size()
        if abs(width - panel.figures.width) >= 0.5 or abs(scale - panel.scale) > 1e-6:
            self._drawn.request()

    def _work(self) -> background.Work[WindowFigures]:
        """The charts of the rubric and judge on screen, as wide as the column, the
        dimension chosen drawn: computed in a process of their own, and kept while the
        project is unchanged (``services.kept_figures``)."""
        session = self.context.session
        project, rubric, model = session.project, session.rubric_name, session.judge_model
        width, dimension = self._width(), self._dimension()

        def work(progress: background.Progress, cancel: threading.Event) -> WindowFigures:
            from desktop.services.figure_sources import DEFAULT_ALPHA
            from desktop.services.kept_figures import kept_figures

            project.check()
            return kept_figures().figures(
                project.path,
                rubric,
                model,
                alpha=DEFAULT_ALPHA,
                width=width,
                cancel=cancel,
                dimension=dimension,
            )

        return work

    def _redraw_work(self) -> background.Work[WindowFigures | None]:
        """The figures shown at the column's width (drawn again where it changed) with the
        dimension chosen drawn."""
        figures, width = self.panel.figures if self.panel is not None else None, self._width()
        dimension = self._dimension()

        def work(progress: background.Progress, cancel: threading.Event) -> WindowFigures | None:
            from desktop.services.kept_figures import kept_figures

            return kept_figures().drawn(figures, width, dimension) if figures else None

        return work

    def _show_redrawn(self, figures: WindowFigures | None) -> None:
        shown_ = self.panel.figures if self.panel is not None else None
        if figures is not None and shown_ is not None and figures.source is shown_.source:
            self._show(figures)  # the figures on screen, not older ones drawn again

    def bind(self, shortcuts: Shortcuts) -> None:
        self.action: QAction = shortcuts.bind_toggle("toggle_figures", self.show)

    def is_open(self) -> bool:
        return self.dock is not None and self.dock.isVisible()

    def show(self, shown_: bool) -> None:
        self._dock().setVisible(shown_)

    def refresh(self) -> None:
        """Draw the charts again (their last request wins); the old ones stay till then."""
        if self.panel is not None:
            self.panel.heading.setText(
                "Computing the figures…"
                + (" (the last ones shown until then)" if self.panel.figures else "")
            )
        self._figures.request()

    def _changed(self, change: Change) -> None:
        """Another rubric, judge or project, or a sample drawn: the figures now. A verdict
        written or a job ended: once edits pause."""
        if not self.is_open():
            return
        if change.shown or change.sample:
            self.refresh()
        elif change.verdicts and not change.more_coming:
            self.edit_timer.start()

    def _dock(self) -> QDockWidget:
        if self.dock is not None:
            return self.dock
        window = self.context.window
        refresh = QPushButton("Refresh")
        refresh.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        refresh.clicked.connect(self.refresh)
        self.panel = FiguresPanel(refresh)
        self.panel.resized.connect(self.resize_timer.start)
        self.panel.undrawn.connect(self._drawn.request)
        self.dock = QDockWidget("Figures", window)
        self.dock.setObjectName("figures")
        self.dock.setWidget(self.panel)
        self.dock.hide()
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.visibilityChanged.connect(self._visibility_changed)
        return self.dock

    def _visibility_changed(self, shown_: bool) -> None:
        self.action.setChecked(shown_)
        if shown_:
            self.refresh()

    def _show(self, figures: WindowFigures | None) -> None:
        if figures is not None and self.panel is not None:
            self.panel.show_figures(figures)
            self.resize_timer.start()  # the dock's width may have moved while they were drawn

    def _failed(self, message: str) -> None:
        if self.panel is not None:
            self.panel.heading.setText(message)
