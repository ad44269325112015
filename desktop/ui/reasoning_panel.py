"""The judge's reasoning under the verdict table: what it wrote around its verdict in each
order, as plain text (never read as HTML or markdown), folded and unfolded by its header
(or E). Shown as a response's raw text is (desktop/ui/response_view.py), in the view's own
font: up to 20,000 characters of scripts that change at every letter, with no space, took
0.5 s to lay out in one go in a plain text box; here a long one is laid out a part at a
time, with breaks in long runs. In blind mode it stays hidden while any of the judge's
verdicts on the pair is: the reasoning names the verdict."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QToolButton, QVBoxLayout, QWidget

from desktop.domain.shown_text import shown
from desktop.services.pair_verdicts import JudgeDetail
from desktop.ui.notice_bar import NoticeBar
from desktop.ui.response_view import ResponseView

LINES = 7  # the box's height in lines; a longer reasoning scrolls
HIDDEN = "hidden in blind mode until you give your verdicts on this pair"


def reasoning_text(details: Sequence[JudgeDetail]) -> str:
    """Each order's reasoning, the order said (in BA the judge's "A" is the pair's B)."""
    if not any(d.raw_completion for d in details):
        return ""
    from desktop.domain.judge_reasoning import reasoning  # the answer parser's JSON reader

    read = [(d.order, reasoning(d.raw_completion)) for d in details]
    found = [(order, text) for order, text in read if text]
    if not found:
        return ""
    if len(found) == 1 and found[0][0] == "AB":
        return shown(found[0][1], lines=True)
    parts = []
    for order, text in found:
        head = (
            "asked as A, B:"
            if order == "AB"
            else 'asked with A and B swapped (its "A" is Response B, its "B" Response A):'
        )
        parts.append(f"{head}\n{shown(text, lines=True)}")
    return "\n\n".join(parts)


class ReasoningPanel(QWidget):
    foldedChanged = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.header = QToolButton()
        self.header.setCheckable(True)
        self.header.setChecked(True)
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.header.setAutoRaise(True)
        self.header.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keys stay on the pairs
        self.header.toggled.connect(self._toggled)
        self.text = ResponseView(fixed_pitch=False)
        self.text.set_raw(True)
        self.notice = NoticeBar(self.text)  # for a reasoning too long to show at once
        self._notice = ""
        self.text.noticeChanged.connect(lambda notice: setattr(self, "_notice", notice))
        self.text.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        lines = QFontMetrics(self.text.font()).lineSpacing() * LINES
        self.text.setMaximumHeight(lines + 2 * self.text.frameWidth() + 8)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.header)
        layout.addWidget(self.notice)
        layout.addWidget(self.text)
        self._shown = ""
        self._title = ""
        self._waiting: tuple[Sequence[JudgeDetail], bool] | None = None
        self.ready = False  # until the window's first frame: the parser loads after it
        self.hide()

    def first_frame_painted(self) -> None:
        """From now on the reasoning shows with the verdicts; the first pair's, now."""
        self.ready = True
        if self._waiting is not None:
            self.show_details(*self._waiting)

    @property
    def unfolded(self) -> bool:
        return self.header.isChecked()

    def set_unfolded(self, unfolded: bool) -> None:
        self.header.setChecked(unfolded)

    def _toggled(self, unfolded: bool) -> None:
        self._paint()
        self.foldedChanged.emit(not unfolded)

    def show_details(self, details: Sequence[JudgeDetail], hidden: bool) -> None:
        """The reasoning in the judge's answers on the pair shown (none: the panel goes)."""
        if not self.ready:
            self._waiting = (details, hidden)
            return
        self._waiting = None
        text = reasoning_text(details)
        self._title = "judge's reasoning" + (f" ({HIDDEN})" if hidden and text else "")
        self._shown = "" if hidden else text
        self.setVisible(bool(text))
        self._paint()

    def _paint(self) -> None:
        unfolded = self.unfolded
        self.header.setArrowType(Qt.ArrowType.DownArrow if unfolded else Qt.ArrowType.RightArrow)
        self.header.setText(self._title + ("" if unfolded or not self._shown else " (E shows it)"))
        if self.text.text() != self._shown:
            self.text.set_text(self._shown)  # (a long one is laid out once it shows)
        shown = unfolded and bool(self._shown)
        self.text.setVisible(shown)
        self.notice.setVisible(shown and bool(self._notice))

    def shown_text(self) -> str:
        """What the reviewer reads in the box now ("" when folded or hidden): all of the
        reasoning, or the part of a long one shown."""
        if not self.text.isVisible():
            return ""
        return self.text.text()[slice(*self.text.part_range())]
