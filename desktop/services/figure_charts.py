"""Which charts a rubric's figures make, chosen once for both places that draw them: the
report (``services/report``) and the window's Figures dock (P). Per dimension: B's win rate
three ways (the judge alone, the humans alone, PPI++), the generators' ratings with their
intervals as a forest plot (from the judge's verdicts and from the reviewers'), the
judge's calibration curve, the judge × human confusion matrix, and for a jury each juror's
agreement with the reviewers. The drawing is ``services/charts``; the window's figures keep
what they were drawn from, so the dock draws them again at a new width without computing
the figures again (``WindowFigures.redrawn``), and draws a dimension's charts only once it
is shown (``WindowFigures.drawn``): the dock shows one dimension at a time, and drawing a
chart takes a tenth of a second or more, so a rubric of four dimensions drew for seconds
what nobody had asked to see yet."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from desktop.domain.shown_text import shown
from desktop.services import charts
from desktop.services.ratings import HUMANS, GeneratorRatings

if TYPE_CHECKING:
    from desktop.adapters.store.project import ProjectStore
    from desktop.services.jury_stats import JuryStats
    from desktop.services.rubric_choice import Judge
    from desktop.services.stats import Stats


@dataclass
class DimensionCharts:
    """One dimension's charts, as SVG text, in the order they are read."""

    dimension: str
    charts: list[str] | None = field(default_factory=list)  # None: not drawn yet


def judge_charts(
    stats: Stats,
    alpha: float,
    ratings: Mapping[str, list[str]] | None = None,
    *,
    width: float = charts.REPORT_WIDTH,
    only: str | None = None,
) -> list[DimensionCharts]:
    """Per dimension of one judge's figures: the win rates, the ratings drawn for that
    dimension (``ratings``), the calibration curve (where verdicts carry a confidence) and
    the confusion matrix (where reviewers gave verdicts); with ``only``, that dimension's
    alone are drawn (every other one's ``charts`` None)."""
    name = shown(stats.judge_model or "no judge yet")
    out = []
    for d in stats.overall.dimensions:
        if only is not None and d.dimension != only:
            out.append(DimensionCharts(d.dimension, None))
            continue
        where = f"{shown(d.dimension)} · {name}"
        drawn = DimensionCharts(d.dimension)
        assert drawn.charts is not None
        if d.win_rates is not None:
            drawn.charts.append(
                charts.win_rate_chart(d.win_rates, title=where, alpha=alpha, width=width)
            )
        drawn.charts += (ratings or {}).get(d.dimension, [])
        if d.calibration is not None:
            drawn.charts.append(charts.calibration_chart(d.calibration, title=where, width=width))
        if d.vs_human.n:
            drawn.charts.append(
                charts.confusion_chart(d.vs_human.confusion, title=where, width=width)
            )
        out.append(drawn)
    return out


def jury_charts(
    jury: JuryStats, *, width: float = charts.REPORT_WIDTH, only: str | None = None
) -> list[DimensionCharts]:
    """Per dimension (or ``only`` that one): each juror's and the jury's agreement with the
    reviewers, with the jurors' Fleiss κ in the title."""
    out = []
    for d in jury.dimensions:
        if only is not None and d.dimension != only:
            continue
        rows = [(shown(j.judge), j.vs_human.agreement, j.vs_human.kappa) for j in d.jurors]
        rows.append(("the jury", d.jury.agreement, d.jury.kappa))
        kappa = "–" if d.fleiss_kappa is None else f"{d.fleiss_kappa:.3f}"
        title = (
            f"{shown(d.dimension)}: jurors' Fleiss κ {kappa} over {d.pairs:,} pairs;"
            " each against the reviewers"
        )
        drawn = charts.agreement_chart(rows, title=title, width=width)
        out.append(DimensionCharts(d.dimension, [drawn]))
    return out


def ratings_chart(g: GeneratorRatings, *, width: float = charts.REPORT_WIDTH) -> str:
    """One source's ratings as a forest plot: every generator's rating on the Elo scale
    with its sandwich interval, highest first, its rank and battles beside it."""
    rows = [
        charts.Interval(
            shown(m.model),
            m.rating,
            m.sandwich[0],
            m.sandwich[1],
            f"{m.rating:.0f} ({m.sandwich[0]:.0f}–{m.sandwich[1]:.0f}), rank {m.sandwich_rank},"
            f" {m.battles:,} verdicts",
        )
        for m in g.models
    ]
    source = "the reviewers" if g.source == HUMANS else shown(g.source)
    title = f"{shown(g.dimension)} · verdicts of {source}: {g.verdicts:,} battles"
    if not g.mle_exists:
        title += " (a model won or lost every battle: its interval means little)"
    axis = f"rating (Elo scale), {100 * g.level:g}% intervals (sandwich)"
    centre = 1000.0 if g.anchor is None else None
    return charts.interval_chart(rows, title=title, axis=axis, reference=centre, width=width)


def style_chart(g: GeneratorRatings, *, width: float = charts.REPORT_WIDTH) -> str | None:
    """The same source's ratings with style control (``GeneratorRatings.style``) as a
    forest plot, each row's note giving its change from the plain rating (``vs plain``, as
    the command heads it); None without."""
    if g.style is None:
        return None
    rows = [
        charts.Interval(
            shown(m.model),
            m.rating,
            m.sandwich[0],
            m.sandwich[1],
            f"{m.rating:.0f} ({m.sandwich[0]:.0f}–{m.sandwich[1]:.0f}), {shift:+.0f} vs plain,"
            f" rank {m.sandwich_rank}",  # as long as the plain chart's: a narrow dock shows it
        )
        for m, shift in zip(g.style.models, g.style.shift, strict=True)
    ]
    source = "the reviewers" if g.source == HUMANS else shown(g.source)
    coefficients = ", ".join(f"{c.feature} {c.value:+.2f}" for c in g.style.coefficients)
    title = (
        f"{shown(g.dimension)} · verdicts of {source}, with style control"
        f" (coefficients {coefficients}; tokens by {g.style.tokenizer})"
    )
    axis = f"rating (Elo scale), {100 * g.level:g}% intervals (sandwich)"
    centre = 1000.0 if g.anchor is None else None
    return charts.interval_chart(rows, title=title, axis=axis, reference=centre, width=width)


def source_ratings(
    store: ProjectStore,
    rubric: str,
    judges: Sequence[str | None],
    level: float,
    *,
    style_control: bool = False,
) -> list[GeneratorRatings]:
    """Each judge's ratings, then the reviewers', where they rate two generators or more
    (sandwich intervals only: made in seconds, and Arena's own intervals are these);
    ``style_control``: with the style-controlled ratings too (the report's)."""
    from desktop.services.ratings import rate_generators

    out = []
    style = style_control
    for judge in judges:
        out += rate_generators(store, rubric, judge, rounds=0, level=level, style_control=style)
    out += rate_generators(store, rubric, humans=True, rounds=0, level=level, style_control=style)
    return [r for r in out if r.models]


@dataclass(frozen=True)
class _Drawn:
    """What a window's charts are drawn from: the figures, computed once."""

    stats: Stats
    alpha: float
    ratings: list[GeneratorRatings]
    jury: JuryStats | None

    def draw(self, width: float, only: str | None = None) -> list[DimensionCharts]:
        """Every dimension's charts, or with ``only`` that one's (the others None)."""
        ratings: dict[str, list[str]] = {}
        for g in self.ratings:
            if only is not None and g.dimension != only:
                continue
            drawn_ratings = ratings.setdefault(g.dimension, [])
            drawn_ratings.append(ratings_chart(g, width=width))
            if (styled := style_chart(g, width=width)) is not None:
                drawn_ratings.append(styled)  # under the plain one: the shift reads down
        drawn = judge_charts(self.stats, self.alpha, ratings, width=width, only=only)
        by_dimension = {d.dimension: d for d in drawn}
        jury = self.jury
        for d in jury_charts(jury, width=width, only=only) if jury is not None else []:
            into = by_dimension[d.dimension].charts
            if into is not None and d.charts:
                into += d.charts
        return list(by_dimension.values())


@dataclass(frozen=True)
class WindowFigures:
    """What the Figures dock shows for the rubric and judge on screen."""

    rubric: str
    judge: str | None  # the judge (or jury) whose verdicts the figures are of
    heading: str
    dimensions: list[DimensionCharts]  # in the rubric's order; those not shown yet undrawn
    width: float  # the charts' width, in ems of their text (``charts.TEXT``)
    source: _Drawn

    def redrawn(self, width: float, dimension: str | None = None) -> WindowFigures:
        """The same figures drawn ``width`` ems wide (no figure computed again): the charts
        of ``dimension`` (else of the first), the others left to draw when shown."""
        only = _shown_first(dimension, self.names())
        return replace(self, dimensions=self.source.draw(width, only), width=width)

    def drawn(self, dimension: str | None) -> WindowFigures:
        """These figures with ``dimension``'s charts drawn (itself where they are)."""
        if dimension not in self.names():
            return self
        if next(d for d in self.dimensions if d.dimension == dimension).charts is not None:
            return self
        (new,) = (d for d in self.source.draw(self.width, dimension) if d.dimension == dimension)
        dimensions = [new if d.dimension == dimension else d for d in self.dimensions]
        return replace(self, dimensions=dimensions)

    def names(self) -> list[str]:
        return [d.dimension for d in self.dimensions]


def _shown_first(dimension: str | None, names: list[str]) -> str | None:
    """The dimension whose charts are drawn first: the one asked for, else the first."""
    return dimension if dimension in names else (names[0] if names else None)


def window_figures(
    store: ProjectStore,
    rubric: str,
    judge: Judge,
    *,
    alpha: float,
    width: float = charts.REPORT_WIDTH,
    dimension: str | None = None,
) -> WindowFigures:
    """The charts of one rubric and judge, dimension by dimension, ``width`` ems wide: the
    judge's own, the ratings from its verdicts and the reviewers' (each plain, then with
    style control, as the report draws them), and a jury's jurors; drawn for ``dimension``
    (else the first), the others when asked for (``WindowFigures.drawn``)."""
    from desktop.services.jury_stats import jury_stats
    from desktop.services.stats import rubric_stats

    stats = rubric_stats(store, rubric, judge, alpha=alpha)
    judges = [stats.judge_model] if stats.judge_model is not None else []
    ratings = source_ratings(store, rubric, judges, 1 - alpha, style_control=True)
    jury = jury_stats(store, rubric, judge) if stats.judge_model is not None else None
    source = _Drawn(stats, alpha, ratings, jury)
    o = stats.overall
    heading = (
        f"{shown(rubric)} · judge {shown(stats.judge_model or 'none')} · {o.pairs:,} pairs,"
        f" {o.judged:,} judged, {o.reviewed:,} reviewed · intervals at {100 * (1 - alpha):g}%"
    )
    if stats.sample is not None and stats.sample.note:
        heading += f" · {shown(stats.sample.note)}"
    if (note := o.labels_note()) is not None:
        heading += f" · {note}"
    drawn = source.draw(width, _shown_first(dimension, [d.dimension for d in o.dimensions]))
    return WindowFigures(rubric, stats.judge_model, heading, drawn, width, source)
