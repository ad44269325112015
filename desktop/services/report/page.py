"""The report's page: one HTML file that needs nothing else (its style in the page, its
charts inline SVG; no script, link, font or image from anywhere), so it can be mailed to a
colleague and opened offline. Every text from data (a rubric's, a judge's, a model's name,
a dimension) is escaped by Jinja's autoescape; the charts' SVG is matplotlib's, which
escapes the text in it (``services/charts.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from desktop import __version__
from desktop.domain.shown_text import shown
from desktop.services import charts
from desktop.services.figure_charts import judge_charts, jury_charts, ratings_chart, style_chart
from desktop.services.figure_formats import num, pct
from desktop.services.figure_lines import reviewer_names, vote_cells
from desktop.services.figures import AGREEMENT, WIN_RATES, Column
from desktop.services.judge_bias_rows import HEADING as BIAS_HEADING
from desktop.services.judge_bias_rows import OUTPUT_1_NOTE
from desktop.services.judge_bias_rows import shown_columns as bias_columns
from desktop.services.judge_selection_columns import AGAINST, summary
from desktop.services.judge_selection_columns import COLUMNS as SELECTION_COLUMNS
from desktop.services.leaderboard import lc_note
from desktop.services.leaderboard import shown_columns as board_columns

if TYPE_CHECKING:
    from markupsafe import Markup

    from desktop.services.figure_votes import VoteAgreementRow
    from desktop.services.judge_selection import Selection
    from desktop.services.jury_stats import JuryStats
    from desktop.services.leaderboard import Leaderboard
    from desktop.services.report.gather import JudgeFigures, RubricFigures
    from desktop.services.stats import DimensionStats, Section, Stats


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


def _grid(columns: Sequence[Column], rows: Sequence[Any]) -> _Table:
    """A table of columns alone (``figures.grid``'s, as HTML cells)."""
    return _Table(
        [c.label for c in columns], [[shown(c.text(c.value(r))) for c in columns] for r in rows]
    )


def _framing(o: Section) -> str:
    """What a win rate of this section compares, true of its pairs: one generator against
    one baseline, several against one, or models in both places with no baseline (Arena's
    and MT-bench's votes), where B's share is no model's own figure."""
    if o.baseline is not None and o.generator is not None:
        return (
            f"Every pair has {shown(o.generator)} as B and {shown(o.baseline)} as A: each win"
            f" rate is {shown(o.generator)}'s against {shown(o.baseline)}, a tie counting half."
        )
    if o.baseline is not None:
        return (
            f"The pairs set {o.generators:,} generators (B) against one baseline,"
            f" {shown(o.baseline)} (A): a win rate here pools all {o.generators:,}; the table"
            " by generator gives each its own, a tie counting half."
        )
    if o.generators == 0:
        return (
            "The pairs do not name their models: each win rate is response B's against"
            " response A, a tie counting half."
        )
    return (
        "The pairs compare models in both places, with no single baseline (as Arena's and"
        " MT-bench's votes do): a win rate here is how often the response shown as B won,"
        " pooled over every pair of models, which is no model's own figure; the table by"
        " generator and the ratings give the figures model by model."
    )


def _board(board: Leaderboard | None) -> dict[str, object] | None:
    """The judge's leaderboard, one table per dimension (``stats --by model``'s columns)."""
    if board is None or not board.rows:
        return None
    columns, three_ways = board_columns(board)
    dims = list(dict.fromkeys(r.dimension for r in board.rows))
    tables = [
        {
            "dimension": shown(dim),
            "table": _grid(columns, [r for r in board.rows if r.dimension == dim]),
        }
        for dim in dims
    ]
    lc = [shown(line.strip()) for line in lc_note(board)]
    return {"note": three_ways, "tables": tables, "named": len(dims) > 1, "lc": lc}


def _votes(rows: Sequence[VoteAgreementRow] | None, *, judge: bool) -> list[list[str]]:
    """Agreement between votes as FastChat counts it: among reviewers, or the judge's."""
    out = []
    for r in rows or ():
        if r.judge != judge:
            continue
        out.append([str(r.turn), *(shown(c) for c in vote_cells(r))])
    return out


_VOTE_HEAD = ["turn", "between", "with ties", "without ties"]


def _reviewers(stats: Stats) -> dict[str, object] | None:
    """Agreement among the reviewers (it is the same under every judge): per dimension,
    the chance-corrected figures and, for votes data, every two votes as FastChat counts
    them."""
    table = _Table(
        [
            "dimension",
            "reviewers",
            "pairs",
            "verdicts",
            "Cohen's κ",
            "Fleiss' κ",
            "Krippendorff's α",
            "leave-one-out agreement",
        ]
    )
    votes = []
    for d in stats.overall.dimensions:
        r = d.reviewers
        if r is not None:
            table.rows.append(
                [
                    shown(d.dimension),
                    shown(f"{len(r.reviewers)} ({reviewer_names(r.reviewers)})"),
                    f"{r.pairs:,}",
                    f"{r.verdicts:,}",
                    num(r.cohen_kappa),
                    num(r.fleiss_kappa),
                    num(r.krippendorff_alpha),
                    pct(r.loo_agreement),
                ]
            )
        if rows := _votes(d.vote_agreement, judge=False):
            votes.append({"dimension": shown(d.dimension), "rows": rows})
    if not table.rows and not votes:
        return None
    return {"table": table if table.rows else None, "votes": votes, "head": _VOTE_HEAD}


def _biases(stats: Stats) -> dict[str, object] | None:
    """Every judge's biases, as `stats` gives them (one row per judge and dimension)."""
    rows = [r for r in stats.judge_biases if r.biases is not None]
    if not rows:
        return None
    heading = f"{BIAS_HEADING[0].upper()}{BIAS_HEADING[1:]}."
    return {"heading": heading, "table": _grid(bias_columns(rows), rows), "note": OUTPUT_1_NOTE}


def _judge(j: JudgeFigures, chart: _Charts, alpha: float) -> dict[str, object]:
    stats = j.stats
    name = shown(stats.judge_model or "no judge yet")
    dims = stats.overall.dimensions
    parts = [
        {"dimension": shown(d.dimension), "charts": [chart(svg) for svg in d.charts or []]}
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
    if stats.judge_model is None:
        against = (
            "No judge has answered for this rubric yet: nothing to hold against the reviewers."
        )
    elif not any(d.vs_human.n for d in dims):
        against = (
            "No pair has both this judge's verdict and a reviewer's: nothing to hold the"
            " judge against yet."
        )
    else:
        against = None
    votes = [
        {"dimension": shown(d.dimension), "rows": rows}
        for d in dims
        if (rows := _votes(d.vote_agreement, judge=True))
    ]
    return {
        "name": name,
        "counts": counts,
        "framing": _framing(o),
        "jury": _jury(j.jury, chart) if j.jury is not None else None,
        "agreement": None if against else _table(AGREEMENT, dims),
        "against": against,
        "win_rates": _table(WIN_RATES, [d for d in dims if d.win_rates is not None]),
        "board": _board(j.board),
        "votes": votes,
        "vote_head": _VOTE_HEAD,
        "dimensions": parts,
    }


def _jury(jury: JuryStats, chart: _Charts) -> dict[str, object]:
    rule = "majority" if jury.combine == "majority" else "mean of their B scores"
    parts = [chart(svg) for d in jury_charts(jury) for svg in d.charts or []]
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


def _selection(selection: Selection) -> dict[str, object]:
    """One judge-selection table, as the window's Judges dock shows it (best first)."""
    t = selection.table
    against = dict(AGAINST)[selection.against]
    head = [h for h, _, _ in SELECTION_COLUMNS]
    return {
        "title": f"{shown(selection.dimension)} · against {against}",
        "note": f"{summary(selection)}; ~best: its difference to the best holds 0",
        "table": _Table(head, [[cell(row) for _, _, cell in SELECTION_COLUMNS] for row in t.rows]),
        "notes": list(t.notes),
    }


def _ratings(r: RubricFigures, chart: _Charts) -> list[Markup]:
    """Each source's ratings as a forest plot (``figure_charts.ratings_chart``), then the
    same with style control (``figure_charts.style_chart``)."""
    out = []
    for g in r.ratings:
        out.append(chart(ratings_chart(g)))
        styled = style_chart(g)
        if styled is not None:
            out.append(chart(styled))
    return out


def page(
    project: str, figures: Sequence[RubricFigures], *, alpha: float, made: datetime
) -> tuple[str, int]:
    """The page's HTML, and how many charts it holds; ``made``: when, said in its header."""
    import jinja2

    chart = _Charts()
    rubrics = []
    for r in figures:
        first = r.judges[0].stats
        rubrics.append(
            {
                "name": shown(r.rubric),
                "overview": _overview(r, chart),
                "ratings": _ratings(r, chart),
                "selections": [_selection(sel) for sel in r.selections],
                "reviewers": _reviewers(first),
                "biases": _biases(first),
                "judges": [_judge(j, chart, alpha) for j in r.judges],
            }
        )
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    text = env.from_string(TEMPLATE).render(
        project=shown(project),
        rubrics=rubrics,
        level=f"{100 * (1 - alpha):g}%",
        made=made.strftime("%Y-%m-%d %H:%M %Z").strip(),
        version=__version__,
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
table.header th { background: none; text-align: left; color: #555; font-weight: normal; }
table.header td { text-align: left; }
</style>
</head>
<body>
{% macro rows(head, cells) %}<table><tr>{% for h in head %}<th>{{ h }}</th>{% endfor %}</tr>
{% for row in cells %}<tr>{% for c in row %}<td>{{ c }}</td>{% endfor %}</tr>{% endfor %}
</table>{% endmacro %}
{% macro grid(t) %}{{ rows(t.head, t.rows) }}{% endmacro %}
<h1>Tiebreak report: {{ project }}</h1>
<table class="header">
<tr><th>project</th><td>{{ project }}</td></tr>
{% for r in rubrics %}<tr><th>{{ "rubrics" if loop.first and rubrics | length > 1
  else "rubric" if loop.first else "" }}</th>
<td>{{ r.name }}: {% for j in r.judges %}{{ "judge " if loop.first }}{{ j.name }}
{{- ", " if not loop.last }}{% endfor %}</td></tr>{% endfor %}
<tr><th>made</th><td>{{ made }} by Tiebreak {{ version }}</td></tr>
<tr><th>intervals</th><td>at {{ level }}</td></tr>
</table>
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
{% if r.selections %}<h4>Which judge to trust</h4>
<p class="note">Each judge (in each way of using its orders) and each jury, scored against
a reference; accuracy by JudgeBench's rule (the orders' votes must sum toward the
reference), RewardBench's (a tie or no verdict scores 0.5) and MT-bench's without ties;
Cohen's κ and Scott's π.</p>
{% for sel in r.selections %}<p class="note">{{ sel.title }}: {{ sel.note }}.</p>
{{ grid(sel.table) }}{% for line in sel.notes %}<p class="note">{{ line }}</p>{% endfor %}
{% endfor %}{% endif %}
{% if r.ratings %}<h4>Ratings across generators</h4>
<div class="charts">{% for c in r.ratings %}{{ c }}{% endfor %}</div>{% endif %}
{% if r.reviewers %}<h4>Agreement among the reviewers</h4>
{% if r.reviewers.table %}{{ grid(r.reviewers.table) }}{% endif %}
{% for v in r.reviewers.votes %}<p class="note">{{ v.dimension }}: every two votes on one
question, model pair (in either order) and turn, as FastChat counts them for MT-bench.</p>
{{ rows(r.reviewers.head, v.rows) }}{% endfor %}{% endif %}
{% if r.biases %}<h4>The judges' biases</h4>
<p class="note">{{ r.biases.heading }}</p>
{{ grid(r.biases.table) }}
<p class="note">{{ r.biases.note }}.</p>{% endif %}
{% for j in r.judges %}
<section id="r{{ ri }}-j{{ loop.index }}">
<h3>{{ r.name }} · judge {{ j.name }}</h3>
{% if j.jury %}<p class="note">A jury: the {{ j.jury.rule }} of {{ j.jury.jurors | join(", ") }}.
</p>{% endif %}
<p class="note">{{ j.counts }}</p>
<p class="note">{{ j.framing }}</p>
{% if j.win_rates.rows %}<h4>B's win rate three ways</h4>
{{ grid(j.win_rates) }}{% endif %}
{% if j.board %}<h4>By generator: one row per generator (B) against its baseline (A)</h4>
{% if j.board.note %}<p class="note">{{ j.board.note }}.</p>{% endif %}
{% for t in j.board.tables %}{% if j.board.named %}<p class="note">{{ t.dimension }}</p>{% endif %}
{{ grid(t.table) }}{% endfor %}
{% for line in j.board.lc %}<p class="note">{{ line }}</p>{% endfor %}{% endif %}
<h4>The judge against the reviewers</h4>
{% if j.agreement %}{{ grid(j.agreement) }}{% else %}<p class="note">{{ j.against }}</p>{% endif %}
{% for v in j.votes %}<p class="note">{{ v.dimension }}: the judge's vote against each
reviewer's on the same question, model pair and turn, as FastChat counts it.</p>
{{ rows(j.vote_head, v.rows) }}{% endfor %}
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
