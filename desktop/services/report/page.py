"""The report's page: one HTML file that needs nothing else (its style in the page, its
charts inline SVG; no script, link, font or image from anywhere), so it can be mailed to a
colleague and opened offline. Every text from data (a rubric's, a judge's, a model's name,
a dimension) is escaped by Jinja's autoescape; the charts' SVG is matplotlib's, which
escapes the text in it (``services/charts.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from desktop.domain.shown_text import shown
from desktop.services import charts
from desktop.services.figure_charts import judge_charts, jury_charts, ratings_chart
from desktop.services.figures import AGREEMENT, WIN_RATES, Column

if TYPE_CHECKING:
    from markupsafe import Markup

    from desktop.services.jury_stats import JuryStats
    from desktop.services.report.gather import JudgeFigures, RubricFigures
    from desktop.services.stats import DimensionStats, Stats


@dataclass
class _Charts:
    """The page's charts as Markup, counted."""

    made: int = 0

    def __call__(self, svg: str) -> Markup:
        from markupsafe import Markup

        self.made += 1
        return Markup(svg)  # matplotlib's SVG: its text escaped by matplotlib


@dataclass
class _Table:
    head: list[str]
    rows: list[list[str]] = field(default_factory=list)


def _table(figures: Sequence[Column], dims: Sequence[DimensionStats]) -> _Table:
    table = _Table(["dimension", *(f.label for f in figures)])
    for d in dims:
        table.rows.append([shown(d.dimension), *(f.text(f.value(d)) for f in figures)])
    return table


def _judge(j: JudgeFigures, chart: _Charts, alpha: float) -> dict[str, object]:
    stats = j.stats
    name = shown(stats.judge_model or "no judge yet")
    dims = stats.overall.dimensions
    parts = [
        {"dimension": shown(d.dimension), "charts": [chart(svg) for svg in d.charts]}
        for d in judge_charts(stats, alpha)
    ]
    o = stats.overall
    counts = (
        f"{o.pairs:,} pairs, {o.judged:,} judged, {o.reviewed:,} reviewed; {o.parse_failures:,}"
        f" parse failures and {o.errors:,} errors in {o.answers:,} answers."
    )
    if stats.sample is not None and stats.sample.note:
        counts += f" {shown(stats.sample.note)}."
    if (note := o.labels_note(included=stats.include_accepted)) is not None:
        counts += f" {note[0].upper()}{note[1:]}."
    return {
        "name": name,
        "counts": counts,
        "jury": _jury(j.jury, chart) if j.jury is not None else None,
        "agreement": _table(AGREEMENT, dims),
        "win_rates": _table(WIN_RATES, dims),
        "dimensions": parts,
    }


def _jury(jury: JuryStats, chart: _Charts) -> dict[str, object]:
    rule = "majority" if jury.combine == "majority" else "mean of their B scores"
    parts = [chart(svg) for d in jury_charts(jury) for svg in d.charts]
    return {"rule": rule, "jurors": [shown(j) for j in jury.jurors], "charts": parts}


def _overview(r: RubricFigures, chart: _Charts) -> list[Markup]:
    """Per dimension, every judge's agreement with the reviewers, side by side."""
    out = []
    first: Stats = r.judges[0].stats
    for i, dim in enumerate(first.dimensions):
        rows = []
        for j in r.judges:
            d = j.stats.overall.dimensions[i]
            if j.stats.judge_model is not None:
                rows.append((shown(j.stats.judge_model), d.vs_human.agreement, d.vs_human.kappa))
        if rows and any(a is not None for _, a, _ in rows):
            title = f"{shown(dim)}: each judge against the reviewers"
            out.append(chart(charts.agreement_chart(rows, title=title)))
    return out


def _ratings(r: RubricFigures, chart: _Charts) -> list[Markup]:
    """Each source's ratings as a forest plot (``figure_charts.ratings_chart``)."""
    return [chart(ratings_chart(g)) for g in r.ratings]


def page(project: str, figures: Sequence[RubricFigures], *, alpha: float) -> tuple[str, int]:
    """The page's HTML, and how many charts it holds."""
    import jinja2

    chart = _Charts()
    rubrics = []
    for r in figures:
        rubrics.append(
            {
                "name": shown(r.rubric),
                "overview": _overview(r, chart),
                "ratings": _ratings(r, chart),
                "judges": [_judge(j, chart, alpha) for j in r.judges],
            }
        )
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    text = env.from_string(TEMPLATE).render(
        project=shown(project), rubrics=rubrics, level=f"{100 * (1 - alpha):g}%"
    )
    return text, chart.made


TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tiebreak report: {{ project }}</title>
<style>
body { font-family: sans-serif; margin: 2em auto; max-width: 72em; color: #222;
       line-height: 1.4; padding: 0 1em; }
h1 { margin-bottom: 0.2em; } h2 { border-bottom: 2px solid #3b6ea8; margin-top: 2.5em; }
h3 { margin-top: 2em; } h4 { margin: 1.2em 0 0.3em; }
.note { color: #555; font-size: 0.92em; }
table { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.9em; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.7em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f2f5f9; }
.charts { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.charts svg { max-width: 100%; height: auto; }
nav ul { columns: 2; }
</style>
</head>
<body>
<h1>Tiebreak report</h1>
<p class="note">{{ project }} · every win rate is B's (the generator's) against A (the
baseline), a tie counting half; intervals at {{ level }}.</p>
<nav><ul>
{% for r in rubrics %}{% set ri = loop.index %}
<li><a href="#r{{ ri }}">rubric {{ r.name }}</a>:
{% for j in r.judges %}<a href="#r{{ ri }}-j{{ loop.index }}">{{ j.name }}</a>
{{- ", " if not loop.last }}{% endfor %}</li>
{% endfor %}
</ul></nav>
{% for r in rubrics %}{% set ri = loop.index %}
<section id="r{{ ri }}">
<h2>Rubric {{ r.name }}</h2>
{% if r.overview %}<h4>Agreement with the reviewers, judge by judge</h4>
<div class="charts">{% for c in r.overview %}{{ c }}{% endfor %}</div>{% endif %}
{% if r.ratings %}<h4>Ratings across generators</h4>
<div class="charts">{% for c in r.ratings %}{{ c }}{% endfor %}</div>{% endif %}
{% for j in r.judges %}
<section id="r{{ ri }}-j{{ loop.index }}">
<h3>{{ r.name }} · judge {{ j.name }}</h3>
{% if j.jury %}<p class="note">A jury: the {{ j.jury.rule }} of {{ j.jury.jurors | join(", ") }}.
</p>{% endif %}
<p class="note">{{ j.counts }}</p>
<h4>B's win rate three ways</h4>
<table><tr>{% for h in j.win_rates.head %}<th>{{ h }}</th>{% endfor %}</tr>
{% for row in j.win_rates.rows %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>{% endfor %}
</table>
<h4>The judge against the reviewers</h4>
<table><tr>{% for h in j.agreement.head %}<th>{{ h }}</th>{% endfor %}</tr>
{% for row in j.agreement.rows %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>{% endfor %}
</table>
{% for d in j.dimensions %}{% if d.charts %}
<h4>{{ d.dimension }}</h4>
<div class="charts">{% for c in d.charts %}{{ c }}{% endfor %}</div>
{% endif %}{% endfor %}
{% if j.jury %}<h4>The jurors</h4>
<div class="charts">{% for c in j.jury.charts %}{{ c }}{% endfor %}</div>{% endif %}
</section>
{% endfor %}
</section>
{% endfor %}
<p class="note">Made by Tiebreak. Charts drawn with matplotlib.</p>
</body>
</html>
"""
