"""`tiebreak report`: one self-contained HTML file with the figures of every rubric and
judge of a project (``gather``: the figures, as `stats` computes them; ``page``: the page,
its charts inline as SVG from ``services/charts.py``)."""

from desktop.services.report.write import ReportSummary, write_report

__all__ = ["ReportSummary", "write_report"]
