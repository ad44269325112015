"""One row per rubric dimension: the judge's verdict, confidence, order-swap agreement,
the reviewer's A / B / tie, and the final verdict. Keys act on the focused row."""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QFont, QPainter, QPainterPath
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QGridLayout,
    QHBoxLayout,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.domain.dimension_view import DimensionView
from desktop.domain.labels import Label
from desktop.domain.pair_record import ReviewerVerdict
from desktop.domain.verdicts import ACCEPTED, ADJUDICATED, Mark, Verdict
from desktop.services.pair_verdicts import PairVerdicts
from desktop.ui.enter_field import EnterField
from desktop.ui.plain_text import PlainLabel, plain_tooltip

if TYPE_CHECKING:
    from PySide6.QtGui import QPaintEvent

Answer = Verdict | Mark
CHOICES: tuple[Answer, ...] = (Verdict.A, Verdict.B, Verdict.TIE, Mark.BOTH_BAD)
BUTTON_TEXT: dict[Answer, str] = {
    Mark.BOTH_BAD: "both bad"
}  # the others show their value: A, B, tie
NOTE_LIMIT = 4_000  # a one-line field lays all of its text out on every key (10 ms here)


class _Row(NamedTuple):
    name: PlainLabel
    judge: PlainLabel
    conf: PlainLabel
    swap: PlainLabel
    group: QButtonGroup
    final: PlainLabel


class ShownRow(NamedTuple):
    """One dimension's row as the reviewer reads it."""

    judge: str
    conf: str
    swap: str
    mine: str | None  # the verdict button the reviewer has chosen, if any
    final: str


HEADINGS = ("dimension", "judge", "conf", "swap", "you", "final")
NOT_SAVED = "not saved"  # the "final" column of a verdict the project refused


class VerdictButton(QToolButton):
    """One verdict choice. The chosen one is filled with the palette's highlight, so your
    verdict is plain at a glance and follows the system's light or dark colours. Painted
    here rather than by a style sheet, which would restyle the whole panel at every paint."""

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self.isChecked():
            super().paintEvent(event)
            return
        palette = self.palette()
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        fill = QPainterPath()  # filled without a pen: no outline
        fill.addRoundedRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5), 3, 3)
        painter.fillPath(fill, palette.highlight())
        font = self.font()
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(palette.highlightedText().color())
        painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.text())
        painter.end()


class VerdictPanel(QWidget):
    verdictChosen = Signal(str, object)  # dimension, Verdict | Mark | None
    noteEdited = Signal(str)
    showRaw = Signal()
    showPrompt = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._grid = QGridLayout()
        self._grid.setHorizontalSpacing(14)
        self._rows: dict[str, _Row] = {}
        self._answers: dict[QAbstractButton, Answer] = {}
        self._dims: tuple[str, ...] = ()
        self._focused = 0
        self.note = EnterField()  # Enter saves the note
        self.note.setPlaceholderText("note on this pair (Enter saves)")
        self.note.setMaxLength(NOTE_LIMIT)  # a longer paste is cut (inputRejected says so)
        self.note.returnPressed.connect(self._note_entered)
        raw = QPushButton("Raw completion")
        raw.clicked.connect(self.showRaw.emit)
        prompt = QPushButton("Prompt")
        prompt.clicked.connect(self.showPrompt.emit)
        self.judge_info = PlainLabel("")
        self.judge_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # What the reviewer must know about that judge (a demo model; asked in both orders).
        self.judge_note = PlainLabel("")
        self.judge_note.setWordWrap(True)
        self.judge_note.setObjectName("judgeNote")
        self.judge_note.setStyleSheet("#judgeNote { color: palette(link); }")
        self.judge_note.hide()
        bottom = QHBoxLayout()
        bottom.addWidget(PlainLabel("note:"))
        bottom.addWidget(self.note, 1)
        bottom.addWidget(raw)
        bottom.addWidget(prompt)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.addLayout(self._grid)
        layout.addWidget(self.judge_info)
        layout.addWidget(self.judge_note)
        layout.addLayout(bottom)

    def _note_entered(self) -> None:
        if not self.note.isReadOnly():
            self.noteEdited.emit(self.note.text())

    def show_note(self, note: str) -> None:
        """``note`` in the field; one longer than the field holds (written on the command
        line) is shown in part and cannot be changed here, so Enter never saves it cut."""
        whole = len(note) <= NOTE_LIMIT
        self.note.setText(note[:NOTE_LIMIT])
        if whole and not self.note.isReadOnly():
            return  # (as it was: no tooltip to change, which costs an event)
        self.note.setReadOnly(not whole)
        self.note.setToolTip(
            ""
            if whole
            else plain_tooltip(
                f"A note of {len(note):,} characters, more than this field holds: shown in"
                " part and kept whole (`tiebreak override --note` changes it)."
            )
        )

    @property
    def dimensions(self) -> tuple[str, ...]:
        return self._dims

    @property
    def focused_dimension(self) -> str | None:
        return self._dims[self._focused] if self._dims else None

    def shown(self, dimension: str) -> ShownRow:
        """What the row of ``dimension`` shows now."""
        row = self._rows[dimension]
        mine = next((b.text() for b in row.group.buttons() if b.isChecked()), None)
        return ShownRow(row.judge.text(), row.conf.text(), row.swap.text(), mine, row.final.text())

    def set_dimensions(self, dims: tuple[str, ...]) -> None:
        while self._grid.count():
            item = self._grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget:
                widget.deleteLater()
        self._rows = {}
        self._answers = {}
        self._dims = dims
        self._focused = 0
        bold = QFont()
        bold.setBold(True)
        for col, heading in enumerate(HEADINGS):
            label = PlainLabel(heading)
            label.setFont(bold)
            self._grid.addWidget(label, 0, col)
        for r, dim in enumerate(dims, start=1):
            name = PlainLabel(dim)
            judge, conf, swap, final = (PlainLabel("-") for _ in range(4))
            buttons = QWidget()
            box = QHBoxLayout(buttons)
            box.setContentsMargins(0, 0, 0, 0)
            group = QButtonGroup(buttons)
            group.setExclusive(False)
            for answer in CHOICES:
                button = VerdictButton()
                text = BUTTON_TEXT.get(answer, answer.value)
                button.setText(text)
                button.setCheckable(True)
                button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
                button.setToolTip(plain_tooltip(f"{dim}: {text}"))
                button.clicked.connect(
                    lambda checked, d=dim, v=answer: self._clicked(d, v, checked)
                )
                group.addButton(button)
                self._answers[button] = answer
                box.addWidget(button)
            for col, widget in enumerate((name, judge, conf, swap, buttons, final)):
                self._grid.addWidget(widget, r, col)
            self._rows[dim] = _Row(name, judge, conf, swap, group, final)
        self._grid.setColumnStretch(len(HEADINGS), 1)
        self._paint_focus()

    def _clicked(self, dim: str, verdict: Answer, checked: bool) -> None:
        self._focused = self._dims.index(dim)
        self._paint_focus()
        self.verdictChosen.emit(dim, verdict if checked else None)

    def show_views(
        self, views: PairVerdicts | None, *, hidden: Collection[str] = frozenset()
    ) -> None:
        """The "you" column is this reviewer's own answer; "final" is the dimension's label
        (an adjudicator's verdict, else the reviewers' majority; "dispute" where they split
        with none), else the judge's. On the ``hidden`` dimensions (blind mode, until you
        decide them) neither the judge's verdict nor anyone else's shows."""
        for dim, row in self._rows.items():
            view = views.dimensions.get(dim) if views else None
            mine_row = views.my_rows.get(dim) if views else None
            others = views.others.get(dim, []) if views else []
            concealed = dim in hidden
            judge = view.judge.value if view and view.judge else "-"
            row.judge.setText("hidden" if concealed and judge != "-" else judge)
            conf = view.confidence if view else None
            row.conf.setText("-" if conf is None or concealed else f"{conf:.2f}")
            swap = {True: "ok", False: "flip", None: "-"}[view.consistent if view else None]
            row.swap.setText(swap)
            mine = _answer_of(mine_row)
            for button in row.group.buttons():
                button.setChecked(mine is not None and self._answers.get(button) == mine)
            label = views.labels.get(dim) if views else None
            text, tip = _final(view, label, mine_row, others, broken=bool(views and views.broken))
            row.final.setText("-" if concealed and text != "-" else text)
            row.final.setToolTip(plain_tooltip(tip) if tip and not concealed else "")

    def show_not_saved(self, dimension: str, answer: Answer | None) -> None:
        """The answer the reviewer gave, which the project refused: it stays on screen,
        marked, until the verdicts are shown again from the project."""
        row = self._rows.get(dimension)
        if row is None:
            return
        for button in row.group.buttons():
            button.setChecked(answer is not None and self._answers.get(button) == answer)
        row.final.setText(NOT_SAVED)
        row.final.setToolTip(plain_tooltip("this verdict is not in the project file"))

    def move_focus(self, step: int) -> None:
        if self._dims:
            self._focused = (self._focused + step) % len(self._dims)
            self._paint_focus()

    def focus_first(self) -> None:
        self._focused = 0
        self._paint_focus()

    def _paint_focus(self) -> None:
        for i, (dim, row) in enumerate(self._rows.items()):
            row.name.setText(("▶ " if i == self._focused else "   ") + dim)


def _answer_of(row: ReviewerVerdict | None) -> Answer | None:
    """The button a row checks: its verdict, or "both bad" (a skip or broken mark: none)."""
    if row is None:
        return None
    if row.mark is Mark.BOTH_BAD:
        return Mark.BOTH_BAD
    return row.verdict


def _final(
    view: DimensionView | None,
    label: Label | None,
    mine: ReviewerVerdict | None,
    others: list[str],
    *,
    broken: bool,
) -> tuple[str, str]:
    """The "final" column and its tooltip."""
    if broken:
        return "broken", "marked broken: out of every figure and export (Ctrl+Shift+B)"
    if label is not None and label.disputed:
        return "dispute", "the reviewers split with no majority: V settles it"
    final = view.final if view else None
    if final is None:
        return "-", ""
    shown = "both bad" if label is not None and label.answer == Mark.BOTH_BAD.value else final.value
    if label is None or label.verdict is None:
        return shown, ""  # the judge's
    if label.source == ADJUDICATED:
        who = label.given[-1].reviewer if label.given else ""
        return f"{shown} (adjudicated)", f"settled by {who}" if who else ""
    if label.given and all(r.mode == ACCEPTED for r in label.given):
        return f"{shown} (accepted)", "the judge's verdict, accepted with Enter"
    return f"{shown}{_whose(view, mine.verdict if mine else None, others)}", ""


def _whose(view: DimensionView | None, mine: Verdict | None, others: list[str]) -> str:
    if view is None or view.human is None:
        return ""  # the judge's
    if not others:
        return " (you)"
    if mine is None and len(others) == 1:
        return f" ({others[0]})"
    return f" ({len(others) + (mine is not None)} reviewers)"
