"""The pair: instruction on top, Response A and B side by side at equal width, and the
human reference and source text below when the pair has them.

A conversation pair is shown as two transcripts, turn by turn: its compared turn is the
instruction and the two responses (titled with the turn, and framed as the one compared),
the turns before it above them and any the data kept after it below them
(desktop/ui/transcript_view.py), each folded to a line until unfolded (H, or moving onto
it with [ and ]). Folded by default: the reviewer judges the compared turn, which is then
in view at once with its request, and opens the history when the answers point to it (as
MT-bench's second turn does); folded turns cost a line each, and only the twenty nearest
the compared turn are made at first, so a pair of twenty turns, or of 5,000, shows as
quickly as one. A single-turn pair looks as it always has.

Two trajectories (two runs of an agent on one task) are shown step by step instead
(desktop/ui/trajectory_view.py): the task as the instruction, the two runs' steps side by
side under it, lined up, each tool call a card folded to a line, and the final answers,
the compared responses, under them.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import QGroupBox, QScrollBar, QSplitter, QVBoxLayout, QWidget

from desktop.domain.pair_turns import pair_turns
from desktop.domain.pairs import Pair
from desktop.domain.transcript import Transcript
from desktop.ui.diff_marks import DiffMarks
from desktop.ui.notice_bar import NoticeBar
from desktop.ui.plain_text import PlainLabel
from desktop.ui.response_view import ResponseView
from desktop.ui.search_marks import SearchMarks
from desktop.ui.trajectory_view import TrajectoryView
from desktop.ui.transcript_turn import TurnBox
from desktop.ui.transcript_view import TranscriptView
from desktop.ui.workers import TaskRunner

_COMPARED = (  # the compared turn's panes, framed in the highlight colour
    "QGroupBox#compared { border: 2px solid palette(highlight); border-radius: 4px;"
    " margin-top: 1.3em; padding-top: 2px; }"
    " QGroupBox#compared::title { subcontrol-origin: margin; left: 8px; padding: 0 4px;"
    " color: palette(highlight); font-weight: bold; }"
)
FOLDED_LINES = 4  # folded turns shown at most before the list scrolls
UNFOLDED_SHARE = 0.45  # of the pair's height, for the history unfolded


def _words(text: str) -> str:
    return f"{len(text.split()):,} w"


class _Pane(QGroupBox):
    def __init__(self, title: str) -> None:
        super().__init__(title)
        self.title_text = title
        self.view = ResponseView()
        self.generator = PlainLabel()  # the model that wrote a response, where one is named
        self.generator.setObjectName("generator")
        self.generator.setStyleSheet("#generator { color: palette(link); }")
        self.generator.hide()
        self.notice = NoticeBar(self.view)  # for a text too long to show at once
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.generator)
        layout.addWidget(self.notice)
        layout.addWidget(self.view)

    def show_text(self, text: str | None, *, count: bool = False, title: str | None = None) -> None:
        if text is not None:  # before the pane shows: a text it held hidden is not laid out
            self.view.set_text(text)
            title = title or self.title_text
            self.setTitle(f"{title}    {_words(text)}" if count else title)
        self.setVisible(text is not None)

    def mark_compared(self, compared: bool) -> None:
        """Framed as the compared turn's (a conversation pair), or as it always was."""
        if (self.objectName() == "compared") != compared:
            self.setObjectName("compared" if compared else "")
            self.setStyleSheet(_COMPARED if compared else "")

    def show_generator(self, name: str | None, hidden: str | None) -> None:
        """The model that wrote the response, or why it is not shown (``hidden``)."""
        self.generator.setVisible(bool(name))
        if name:
            self.generator.setText(f"model: hidden ({hidden})" if hidden else f"model: {name}")


class PairView(QWidget):
    def __init__(self, parent: QWidget | None = None, runner: TaskRunner | None = None) -> None:
        super().__init__(parent)
        self.instruction = _Pane("Instruction")
        self.response_a = _Pane("Response A")
        self.response_b = _Pane("Response B")
        self.reference = _Pane("Human reference")
        self.source = _Pane("Source text")
        self.empty = PlainLabel("No pair selected. Import pairs with File ▸ Import (Ctrl+I).")
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.marks = SearchMarks(pane.view for pane in self.panes())  # the list's search
        # A conversation's history, and the turns after the compared one:
        self.before = TranscriptView(runner, self.marks.add, self._arrange, earlier=True)
        self.after = TranscriptView(runner, self.marks.add, self._arrange, earlier=False)
        self.trajectory = TrajectoryView(runner, self.marks.add)  # two runs, step by step
        sides = QSplitter()  # horizontal
        sides.addWidget(self.response_a)
        sides.addWidget(self.response_b)
        sides.setChildrenCollapsible(False)
        self.extra = extra = QSplitter()  # the reference and the source, where there are any
        extra.addWidget(self.reference)
        extra.addWidget(self.source)
        self.vertical = QSplitter(Qt.Orientation.Vertical)
        for part, stretch in (
            (self.before, 0),
            (self.instruction, 1),
            (self.trajectory, 0),
            (sides, 4),
            (self.after, 0),
            (extra, 1),
        ):
            self.vertical.addWidget(part)
            self.vertical.setStretchFactor(self.vertical.count() - 1, stretch)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        layout.addWidget(self.vertical)
        self._linked = False
        self._pair: Pair | None = None
        self._generators_hidden: str | None = None  # why the generators are not shown
        self.diff = DiffMarks(self.response_a.view, self.response_b.view, runner)
        self.transcript: Transcript | None = None  # a conversation pair's turns
        self.history_unfolded = False  # H: the turns other than the compared one unfolded
        # The turn the reviewer moved to ([ and ]): 0 the compared one, -1 the one before
        # it, 1 the one after it, and so on; and its line, framed.
        self._at = 0
        self._framed: TurnBox | None = None
        self._single_sizes: list[int] | None = None  # the splitter as single-turn pairs had it
        a_bar = self.response_a.view.verticalScrollBar()
        b_bar = self.response_b.view.verticalScrollBar()
        a_bar.valueChanged.connect(lambda v: self._follow(b_bar, a_bar, v))
        b_bar.valueChanged.connect(lambda v: self._follow(a_bar, b_bar, v))
        self.show_pair(None)

    def _follow(self, other: QScrollBar, this: QScrollBar, value: int) -> None:
        if self._linked and this.maximum() > 0:
            other.setValue(round(value / this.maximum() * other.maximum()))

    def set_linked(self, linked: bool) -> None:
        self._linked = linked

    def set_raw(self, raw: bool) -> None:
        for pane in self.panes():
            pane.view.set_raw(raw)
        for part in (self.before, self.after, self.trajectory):
            part.set_raw(raw)
        self.diff.refresh()

    def set_diff(self, on: bool) -> None:
        """D: the words that differ between A and B marked, or not (in every turn)."""
        self.diff.set_enabled(on)
        for part in (self.before, self.after, self.trajectory):
            part.set_diff(on)

    def hide_generators(self, why: str | None) -> None:
        """The generators of A and B hidden (``why``: the mode that hides them), or shown."""
        self._generators_hidden = why
        self._show_generators()

    def _show_generators(self) -> None:
        pair, why = self._pair, self._generators_hidden
        self.response_a.show_generator(pair.model_a if pair else None, why)
        self.response_b.show_generator(pair.model_b if pair else None, why)

    def panes(self) -> tuple[_Pane, ...]:
        return (self.instruction, self.response_a, self.response_b, self.reference, self.source)

    def views(self) -> list[ResponseView]:
        """Every text view showing the pair now, the transcript's included."""
        shown = [pane.view for pane in self.panes()]
        return shown + self.before.views() + self.after.views() + self.trajectory.views()

    @property
    def pair(self) -> Pair | None:
        return self._pair

    def show_pair(self, pair: Pair | None) -> None:
        self._pair = pair
        self.empty.setVisible(pair is None)
        self.vertical.setVisible(pair is not None)
        if pair is None:
            return
        found, runs = pair_turns(pair)
        self.transcript = found
        titles: tuple[str | None, ...] = (None, None, None)
        if runs is not None:
            titles = ("Task (A and B)", "Final answer A", "Final answer B")
        elif found is not None:
            turn = f"Turn {found.turn}"
            titles = (
                f"{turn} of {found.turns}, compared: the request",
                f"{turn}: Response A",
                f"{turn}: Response B",
            )
        for pane in self.panes()[:3]:
            pane.mark_compared(found is not None or runs is not None)
        self.instruction.show_text(pair.instruction, title=titles[0])
        self.response_a.show_text(pair.response_a, count=True, title=titles[1])
        self.response_b.show_text(pair.response_b, count=True, title=titles[2])
        self.reference.show_text(pair.reference)
        self.source.show_text(pair.source)
        self.extra.setVisible(pair.reference is not None or pair.source is not None)
        self.before.show_turns(found.before if found else (), self.history_unfolded)
        self.after.show_turns(found.after if found else (), self.history_unfolded)
        self.trajectory.show_trajectories(runs)
        self._at, self._framed = 0, None
        self._arrange()
        if self.history_unfolded:
            self.before.to_end()  # the turn just before the compared one in view
        self._show_generators()
        self.diff.refresh()

    # ---- a conversation's turns ---------------------------------------------------------
    def set_history_unfolded(self, unfolded: bool) -> None:
        """H: every turn but the compared one unfolded, or folded to a line."""
        self.history_unfolded = unfolded
        for part in (self.before, self.after):
            part.set_unfolded(unfolded)
        self._arrange()
        if unfolded:
            self.before.to_end()

    def move_turn(self, step: int) -> str:
        """Move to the next (``step`` 1) or previous (-1) turn, unfolding it and bringing it
        into view; what the status bar says."""
        if self.trajectory.trajectories is not None:
            return "two trajectories: . and , move step by step (O unfolds a step)"
        if self.transcript is None:
            return "this pair is a single turn: no other turns to move to"
        self._at = max(-self.before.count(), min(self.after.count(), self._at + step))
        part = self.before if self._at < 0 else self.after
        stop = None  # the compared turn
        if self._at:  # made now if it was not (and the turns between it and those made)
            stop = part.box(part.count() + self._at if self._at < 0 else self._at - 1)
        if self._framed is not None:
            self._framed.set_current(False)
        self._framed = stop
        total = self.transcript.turns
        if stop is None:
            self.before.to_end()
            return f"turn {self.transcript.turn} of {total}: the compared turn"
        stop.set_current(True)
        stop.set_unfolded(True)
        self._arrange()
        part.bring(stop)
        where = "before" if part is self.before else "after"
        return f"turn {stop.turn.number} of {total}: {where} the compared turn ([ and ] move)"

    # ---- two trajectories' steps -----------------------------------------------------------
    def move_step(self, step: int) -> str:
        """. and ,: the next (``step`` 1) or previous (-1) step of both runs at once."""
        if self.trajectory.trajectories is None:
            return "this pair is not two trajectories: no steps to move to ([ and ] move turns)"
        return self.trajectory.go(step)

    def unfold_step(self) -> str:
        """O: the step moved to unfolded or folded (the steps on screen before any)."""
        if self.trajectory.trajectories is None:
            return "this pair is not two trajectories: no steps to unfold"
        return self.trajectory.unfold_here()

    def set_steps_unfolded(self, unfolded: bool) -> None:
        """Shift+O: every step of two trajectories unfolded, or folded to a line a call."""
        self.trajectory.set_unfolded(unfolded)
        self._arrange()

    def current_turn(self) -> int | None:
        """The turn moved to last (None: the compared one, or a single-turn pair)."""
        return self._framed.turn.number if self._framed is not None else None

    def _arrange(self) -> None:
        """Room for the turns around the compared one: a line each while folded, a good
        share of the height once any is unfolded; a single-turn pair's splitter as it was."""
        sizes = self.vertical.sizes()
        total = sum(sizes)
        if total <= 0:
            return  # not laid out yet: arranged when shown
        if self.trajectory.trajectories is not None:
            if self._single_sizes is None:
                self._single_sizes = sizes
            shares = [0, 1, 9, 4, 0, 1 if self.extra.isVisibleTo(self) else 0]
            self.vertical.setSizes([total * share // sum(shares) for share in shares])
            return
        if self.transcript is None:
            if self._single_sizes is not None:
                self.vertical.setSizes(self._single_sizes)
                self._single_sizes = None
            return
        if self._single_sizes is None:
            self._single_sizes = sizes
        heights = [self._room(part, total) for part in (self.before, self.after)]
        rest = max(0, total - sum(heights))
        extra = 1 if self.extra.isVisibleTo(self) else 0
        shares = [1, 4, extra]
        parts = [rest * share // sum(shares) for share in shares]
        self.vertical.setSizes([heights[0], parts[0], 0, parts[1], heights[1], parts[2]])

    def _room(self, part: TranscriptView, total: int) -> int:
        if not part.boxes:
            return 0
        if part.any_unfolded():
            return min(int(total * UNFOLDED_SHARE), part.wanted_height() + 8)
        return part.folded_height(FOLDED_LINES) + 4

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._arrange()
