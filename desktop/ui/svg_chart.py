"""A chart drawn by matplotlib as SVG text, painted by QtSvg at the width it is given (the
Figures dock's; a module of its own so QtSvg loads when a chart is first shown, not while
the window opens)."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QSize, Qt
from PySide6.QtSvgWidgets import QSvgWidget

WIDTH = 520  # the charts' width when the dock opens; they scale with the dock


class SvgChart(QSvgWidget):
    """One chart, as tall as its drawing's proportions make it at the width it is given:
    at most its drawn size (its text as big as the report's), smaller in a narrow dock."""

    def __init__(self, svg: str) -> None:
        super().__init__()
        self.svg = svg  # matplotlib's text: what the chart says, e.g. to a test
        self.load(QByteArray(svg.encode("utf-8")))
        self.drawn = self.renderer().defaultSize()
        self.renderer().setAspectRatioMode(Qt.AspectRatioMode.KeepAspectRatio)
        self.setMaximumWidth(self.drawn.width())
        policy = self.sizePolicy()
        policy.setHeightForWidth(True)  # the scroll area's column asks for it
        self.setSizePolicy(policy)

    def hasHeightForWidth(self) -> bool:
        return True

    def heightForWidth(self, width: int) -> int:
        if self.drawn.width() <= 0:
            return 0
        return round(width * self.drawn.height() / self.drawn.width())

    def sizeHint(self) -> QSize:
        width = min(WIDTH, self.drawn.width())
        return QSize(width, self.heightForWidth(width))
