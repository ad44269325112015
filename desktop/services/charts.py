"""Charts as SVG text, drawn by matplotlib: the report's (``services/report``) and, next, the
window's (QtSvg draws the same text). Built with matplotlib's object-oriented API (a
``Figure`` on the SVG canvas, never pyplot), so a chart can be made off the GUI thread,
and with no network or file at all: text is SVG text (``svg.fonttype`` "none": no glyphs
embedded, a font family named), no image, no link.

Each chart's ids are made unique in a page (``_svg``): several charts inline in one HTML
file must not share an id. Text from data (a model's or a judge's name) is never read as
mathtext (``text.parse_math`` off) and reaches the SVG escaped by matplotlib.

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
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from desktop.domain.calibration import Calibration
    from desktop.domain.prediction_powered import MeanInterval, WinRateEstimates

#: Matplotlib's settings for every chart, set once when the first chart is drawn (no chart
#: changes them after, so two threads drawing at once see the same ones).
STYLE: dict[str, Any] = {
    "svg.fonttype": "none",  # text as <text>, in the viewer's font: small, selectable
    "svg.hashsalt": "tiebreak",  # ids the same from run to run (then made unique: _svg)
    "text.parse_math": False,  # a "$" in a model's name is a dollar sign
    "font.family": "sans-serif",
    "font.size": 9.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
COLOURS = ("#3b6ea8", "#c0712b", "#4f9a5b", "#8c5aa8", "#b0473f", "#5f6b73")
LABELS = ("A", "B", "tie")
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
) -> str:
    """Each row's estimate as a dot on its interval, top to bottom; ``reference`` a dashed
    line (a win rate's 50%, a rating's mean)."""
    figure, ax = _figure(7.2, 0.55 * len(rows) + 1.1)
    ys = list(range(len(rows)))[::-1]
    for y, row, colour in zip(ys, rows, itertools.cycle(COLOURS), strict=False):
        if row.estimate is None:
            continue
        if row.low is not None and row.high is not None:
            ax.hlines(y, row.low, row.high, colors=colour, linewidth=2.5)
        ax.plot([row.estimate], [y], "o", color=colour, markersize=6)
    if reference is not None:
        ax.axvline(reference, color="#999999", linestyle="--", linewidth=0.8)
    if limits is not None:
        ax.set_xlim(*limits)
    ax.set_yticks(ys, [_short(row.label) for row in rows])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    notes = ax.secondary_yaxis("right")  # each row's note, beside the plot
    notes.set_yticks(ys, [row.note for row in rows])
    notes.tick_params(length=0, labelsize=8, labelcolor="#555555")
    notes.spines["right"].set_visible(False)
    ax.set_xlabel(axis)
    _title(figure, title)
    return _svg(figure)


def win_rate_chart(estimates: WinRateEstimates, *, title: str, alpha: float) -> str:
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
    )


def calibration_chart(calibration: Calibration, *, title: str) -> str:
    """Agreement with the reviewers per confidence bin against the bin's mean confidence
    (the diagonal: a judge whose 0.8 is right 80% of the time); a dot's area its count."""
    figure, ax = _figure(4.2, 3.6)
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
    ax.set_xlabel("the judge's confidence")
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
) -> str:
    """Counts of (row's verdict, column's verdict), the diagonal where they agree."""
    figure, ax = _figure(3.6, 3.2)
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
    ax.set_xlabel(columns)
    ax.set_ylabel(rows)
    for side in ("left", "bottom"):
        ax.spines[side].set_visible(False)
    _title(figure, f"{title}\n{rows} (rows) against {columns} (columns)")
    return _svg(figure)


def agreement_chart(rows: Sequence[tuple[str, float | None, float | None]], *, title: str) -> str:
    """Per judge (or juror): agreement with the reviewers and Cohen's kappa, side by side
    (a missing figure is no bar)."""
    figure, ax = _figure(6.4, 0.5 * len(rows) + 1.2)
    ys = list(range(len(rows)))[::-1]
    for y, (_, share, kappa) in zip(ys, rows, strict=True):
        if share is None and kappa is None:
            _note(ax, "no pairs with a reviewer's verdict", (0, y), grey=True)
        if share is not None:
            ax.barh(y + 0.18, share, height=0.34, color=COLOURS[0])
            _note(ax, f"{100 * share:.1f}%", (share, y + 0.18))
        if kappa is not None:
            ax.barh(y - 0.18, kappa, height=0.34, color=COLOURS[1])
            _note(ax, f"κ {kappa:.2f}", (max(kappa, 0), y - 0.18))
    ax.set_yticks(ys, [_short(label) for label, _, _ in rows])
    ax.set_xlim(min([0.0, *(k for _, _, k in rows if k is not None)]), 1.12)
    ax.axvline(0, color="#999999", linewidth=0.6)
    ax.set_xlabel("agreement with the reviewers (blue) and Cohen's κ (orange)")
    _title(figure, title)
    return _svg(figure)


def _title(figure: Figure, title: str) -> None:
    """The chart's title, left, over the whole figure (a long one is not cut at the axes)."""
    figure.suptitle(title, x=0.01, ha="left", fontsize=9.5)


def _short(label: str, most: int = 36) -> str:
    """A tick label no longer than ``most`` characters (a name can be any length)."""
    return label if len(label) <= most else label[: most - 1] + "…"


def _note(ax: Axes, text: str, xy: tuple[float, float], *, grey: bool = False, **more: Any) -> None:
    """A small text just right of ``xy``."""
    ax.annotate(
        text,
        xy,
        xytext=(5, 0),
        textcoords="offset points",
        va="center",
        fontsize=8,
        color="#555555" if grey else "black",
        **more,
    )


def _figure(width: float, height: float) -> tuple[Figure, Axes]:
    _style()
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    return figure, figure.add_subplot()


def _style() -> None:
    global _ready
    with _styled:
        if not _ready:
            import matplotlib

            settings: Any = matplotlib.rcParams  # typed for literal keys only
            settings.update(STYLE)
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


_NO_METADATA: dict[str, Any] = {"Creator": None, "Date": None, "Format": None, "Type": None}
