"""A chart drawn by matplotlib as SVG text, painted by QtSvg at the scale that makes its
text the window's font size (a module of its own so QtSvg loads when a chart is first
shown, not while the window opens)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray
from PySide6.QtSvgWidgets import QSvgWidget


class SvgChart(QSvgWidget):
    """One chart, ``scale`` times the size it was drawn at: the Figures dock draws each as
    wide as the dock holds, so at that scale it fills the dock's width and its text (drawn
    at ``charts.TEXT`` points) is the window's size."""

    def __init__(self, svg: str, scale: float) -> None:
        super().__init__()
        self.svg = svg  # matplotlib's text: what the chart says, e.g. to a test
        self.scale = scale
        self.load(QByteArray(svg.encode("utf-8")))
        self.drawn = self.renderer().defaultSize()
        self.setFixedSize(round(self.drawn.width() * scale), round(self.drawn.height() * scale))
