"""Charts as SVG text, drawn by matplotlib: the report's (``services/report``) and, next, the
window's (QtSvg draws the same text). Built with matplotlib's object-oriented API (a
``Figure`` on the SVG canvas, never pyplot), so a chart can be made off the GUI thread,
and with no network or file at all: text is SVG text (``svg.fonttype`` "none": no glyphs
embedded, a font family named), no image, no link.

Each chart's ids are made unique in a page (``_svg``): several charts inline in one HTML
file must not share an id. Text from data (a model's or a judge's name) is never read as
mathtext (``text.parse_math`` off) and reaches the SVG escaped by matplotlib.

A chart's text is ``TEXT`` points (none smaller) and its width is given in units of that
text (``width``, ems: the report's 57.6, 7.2 inches): the window draws a chart as many ems
wide as its dock holds of the window's font and paints it at the scale that makes the
chart's text the window's size (``ui/figures_dock.py``), so the text stays readable and the
chart follows the dock.

The interval chart is also the ratings' forest plot: one row per generator, its rating and
interval (``services/ratings.py``; the coordinator wires it into the report).
"""

from __future__ import annotations

import io
import itertools
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.typing import RcKeyType

    from desktop.domain.calibration import Calibration
    from desktop.domain.prediction_powered import MeanInterval, WinRateEstimates

#: Matplotlib's settings for every chart, set once when the first chart is drawn (no chart
#: changes them after, so two threads drawing at once see the same ones).
STYLE: dict[RcKeyType, str | float | bool] = {
    "svg.fonttype": "none",  # text as <text>, in the viewer's font: small, selectable
    "svg.hashsalt": "tiebreak",  # ids the same from run to run (then made unique: _svg)
    "text.parse_math": False,  # a "$" in a model's name is a dollar sign
    "font.family": "sans-serif",
    "font.size": 9.0,  # TEXT
    "axes.spines.top": False,
    "axes.spines.right": False,
}
COLOURS = ("#3b6ea8", "#c0712b", "#4f9a5b", "#8c5aa8", "#b0473f", "#5f6b73")
LABELS = ("A", "B", "tie")
TEXT = 9.0  # points: every chart's text, the smallest it has
REPORT_WIDTH = 57.6  # ems of TEXT: the report's charts, 7.2 inches wide
_POINTS = 72.0  # an inch
_styled = threading.Lock()
_ready = False
_ids = itertools.count(1)
_ID = re.compile(r'\bid="([^"]+)"')


@dataclass(frozen=True)
class Interval:
    """One row of an interval chart: an estimate with its interval (None: not known)."""

    label: str
    estimate: float | None
    low: float | None
    high: float | None
    note: str = ""  # shown beside the row (a count, why it is missing)


def interval_chart(
    rows: Sequence[Interval],
    *,
    title: str,
    axis: str,
    limits: tuple[float, float] | None = None,
    reference: float | None = None,
    width: float = REPORT_WIDTH,
) -> str:
    """Each row's estimate as a dot on its interval, top to bottom, its label above it and
    its note below (so the plot keeps the chart's width however narrow); ``reference`` a
    dashed line (a win rate's 50%, a rating's mean)."""
    figure, ax = _figure(width, 0.7 * len(rows) + 1.0)
    ys = list(range(len(rows)))[::-1]
    for y, row, colour in zip(ys, rows, itertools.cycle(COLOURS), strict=False):
        _row_text(ax, _short(row.label), y, above=True)
        _row_text(ax, row.note, y, above=False)
        if row.estimate is None:
            continue
        if row.low is not None and row.high is not None:
            ax.hlines(y, row.low, row.high, colors=colour, linewidth=2.5)
        ax.plot([row.estimate], [y], "o", color=colour, markersize=6)
    if reference is not None:
        ax.axvline(reference, color="#999999", linestyle="--", linewidth=0.8)
    if limits is not None:
        ax.set_xlim(*limits)
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    ax.set_ylim(-0.75, len(rows) - 0.25)
    _xlabel(ax, axis)
    _title(figure, title)
    return _svg(figure)


def _row_text(ax: Axes, text: str, y: float, *, above: bool) -> None:
    """A row's label (above its line, black) or note (below it, grey), from the left."""
    ax.annotate(
        text,
        (0, y),
        xycoords=("axes fraction", "data"),
        xytext=(0, 4 if above else -6),
        textcoords="offset points",
        va="bottom" if above else "top",
        fontsize=TEXT,
        color="black" if above else "#555555",
    )


def win_rate_chart(
    estimates: WinRateEstimates, *, title: str, alpha: float, width: float = REPORT_WIDTH
) -> str:
    """B's win rate three ways (the judge alone, the humans alone, PPI++), in percent."""
    level = f"{100 * (1 - alpha):g}%"

    def row(label: str, m: MeanInterval | None, missing: str, more: str = "") -> Interval:
        if m is None:
            return Interval(label, None, None, None, missing)
        text = f"{100 * m.estimate:.1f}% ({100 * m.lower:.1f}–{100 * m.upper:.1f}), n {m.n:,}"
        return Interval(label, 100 * m.estimate, 100 * m.lower, 100 * m.upper, text + more)

    combined = estimates.combined
    rows = [
        row("judge alone", estimates.judge, "no judge verdicts"),
        row("humans alone", estimates.humans, "fewer than two reviewed pairs"),
        row(
            "PPI++ (judge + humans)",
            combined,
            "needs reviewed pairs and others",
            f" + {combined.n_unlabeled:,} judged only" if combined is not None else "",
        ),
    ]
    return interval_chart(
        rows,
        title=title,
        axis=f"B's win rate, % (a tie counts half), {level} intervals",
        limits=(0, 100),
        reference=50,
        width=width,
    )


def calibration_chart(calibration: Calibration, *, title: str, width: float = REPORT_WIDTH) -> str:
    """Agreement with the reviewers per confidence bin against the bin's mean confidence
    (the diagonal: a judge whose 0.8 is right 80% of the time); a dot's area its count."""
    figure, ax = _figure(min(width, 33.6), 3.6)  # 4.2 inches at most: a square plot
    ax.plot([0, 1], [0, 1], color="#999999", linestyle="--", linewidth=0.8)
    bins = calibration.bins
    if bins:
        largest = max(b.count for b in bins)
        ax.plot([b.confidence for b in bins], [b.agreement for b in bins], color=COLOURS[0])
        ax.scatter(
            [b.confidence for b in bins],
            [b.agreement for b in bins],
            s=[20 + 120 * b.count / largest for b in bins],
            color=COLOURS[0],
            zorder=3,
        )
    ax.set_xlim(0, 1.03)  # room for a dot at 1
    ax.set_ylim(0, 1.05)
    _xlabel(ax, "the judge's confidence")
    ax.set_ylabel("share the reviewers agreed with")
    ece = "–" if calibration.ece is None else f"{calibration.ece:.3f}"
    _title(figure, f"{title}\ncalibration: ECE {ece} over {calibration.n:,} verdicts")
    return _svg(figure)


def confusion_chart(
    matrix: Sequence[Sequence[int]],
    *,
    title: str,
    rows: str = "judge",
    columns: str = "reviewers",
    labels: Sequence[str] = LABELS,
    width: float = REPORT_WIDTH,
) -> str:
    """Counts of (row's verdict, column's verdict), the diagonal where they agree."""
    figure, ax = _figure(min(width, 28.8), 3.2)  # 3.6 inches at most: square cells
    values = [list(r) for r in matrix]
    largest = max((v for r in values for v in r), default=0) or 1
    # Cells as vector rectangles (imshow would embed a bitmap); row 0 at the top.
    ax.pcolormesh(values, cmap="Blues", vmin=0, vmax=largest, edgecolors="white")
    ax.invert_yaxis()
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            colour = "white" if value > largest / 2 else "black"
            ax.text(j + 0.5, i + 0.5, f"{value:,}", ha="center", va="center", color=colour)
    ax.set_xticks([k + 0.5 for k in range(len(labels))], list(labels))
    ax.set_yticks([k + 0.5 for k in range(len(labels))], list(labels))
    ax.set_aspect("equal")
    _xlabel(ax, columns)
    ax.set_ylabel(rows)
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)
    _title(figure, f"{title}\n{rows} (rows) against {columns} (columns)")
    return _svg(figure)


def agreement_chart(
    rows: Sequence[tuple[str, float | None, float | None]],
    *,
    title: str,
    width: float = REPORT_WIDTH,
) -> str:
    """Per judge (or juror): agreement with the reviewers and Cohen's kappa, side by side
    under its name (a missing figure is no bar)."""
    figure, ax = _figure(min(width, 51.2), 0.75 * len(rows) + 1.0)  # 6.4 inches at most
    ys = list(range(len(rows)))[::-1]
    for y, (label, share, kappa) in zip(ys, rows, strict=True):
        _row_text(ax, _short(label), y + 0.24, above=True)
        if share is None and kappa is None:
            _note(ax, "no pairs with a reviewer's verdict", (0, y), grey=True)
        if share is not None:
            ax.barh(y + 0.12, share, height=0.22, color=COLOURS[0])
            _note(ax, f"{100 * share:.1f}%", (share, y + 0.12))
        if kappa is not None:
            ax.barh(y - 0.12, kappa, height=0.22, color=COLOURS[1])
            _note(ax, f"κ {kappa:.2f}", (max(kappa, 0), y - 0.12))
    ax.set_yticks([])
    ax.spines["left"].set_visible(False)
    ax.set_ylim(-0.45, len(rows) - 0.35)
    ax.set_xlim(min([0.0, *(k for _, _, k in rows if k is not None)]), 1.12)
    ax.axvline(0, color="#999999", linewidth=0.6)
    _xlabel(ax, "agreement with the reviewers (blue) and Cohen's κ (orange)")
    _title(figure, title)
    return _svg(figure)


def _title(figure: Figure, title: str) -> None:
    """The chart's title, left, over the whole figure, in lines as wide as the figure."""
    figure.suptitle(_wrapped(figure, title), x=0.01, ha="left", fontsize=TEXT + 0.5)


def _xlabel(ax: Axes, text: str) -> None:
    ax.set_xlabel(_wrapped(ax.get_figure(), text))  # type: ignore[arg-type]


def _wrapped(figure: Figure, text: str) -> str:
    """``text`` in lines that fit the figure's width (a text of 0.58 em a character, about the
    widest of the usual sans-serif fonts' averages), the figure taller by each line added."""
    import textwrap

    ems = figure.get_figwidth() * _POINTS / TEXT
    most = max(12, int((ems - 1) / 0.58))
    lines = [line for part in text.split("\n") for line in textwrap.wrap(part, most) or [""]]
    added = len(lines) - len(text.split("\n"))
    if added:
        figure.set_figheight(figure.get_figheight() + added * 1.25 * TEXT / _POINTS)
    return "\n".join(lines)


def _short(label: str, most: int = 36) -> str:
    """A tick label no longer than ``most`` characters (a name can be any length)."""
    return label if len(label) <= most else label[: most - 1] + "…"


def _note(ax: Axes, text: str, xy: tuple[float, float], *, grey: bool = False) -> None:
    """A small text just right of ``xy``."""
    ax.annotate(
        text,
        xy,
        xytext=(5, 0),
        textcoords="offset points",
        va="center",
        fontsize=TEXT,
        color="#555555" if grey else "black",
    )


def _figure(width: float, height: float) -> tuple[Figure, Axes]:
    """A figure ``width`` ems of TEXT wide and ``height`` inches high."""
    _style()
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width * TEXT / _POINTS, height), layout="constrained")
    return figure, figure.add_subplot()


def _style() -> None:
    global _ready
    with _styled:
        if not _ready:
            import matplotlib

            matplotlib.rcParams.update(STYLE)
            _ready = True


def _svg(figure: Figure) -> str:
    """The figure as an ``<svg>`` element to put in a page: no XML prolog, no DOCTYPE, no
    metadata, and every id given this chart's own prefix."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    FigureCanvasSVG(figure)  # the figure's canvas: SVG, no GUI and no pyplot
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata=_NO_METADATA)
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"<metadata>.*?</metadata>\s*", "", text, flags=re.S)
    prefix = f"c{next(_ids)}-"
    ids = set(_ID.findall(text))
    if ids:
        names = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
        text = re.sub(rf'(id="|#)({names})(?=["\)])', lambda m: m[1] + prefix + m[2], text)
    return text


_NO_METADATA: dict[str, str | None] = {"Creator": None, "Date": None, "Format": None, "Type": None}
