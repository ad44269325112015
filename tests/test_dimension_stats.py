"""A dimension's figures are the fields ``DimensionStats`` declares, in ``FIGURES``' order
(the keys of ``stats --json``), and a tally that gives a figure of the wrong type is
refused where the figures are kept, naming the figure."""

from __future__ import annotations

import dataclasses

import pytest

from desktop.adapters.store import open_project
from desktop.services.dimension_stats import DimensionStats, dimension_stats
from desktop.services.figures import FIGURES
from desktop.services.stats import rubric_stats
from tests.test_stats import build, dim


def test_fields_are_the_figures_in_their_order() -> None:
    fields = [f.name for f in dataclasses.fields(DimensionStats)]
    assert fields == ["dimension", *(f.name for f in FIGURES)]


def test_a_figure_of_the_wrong_type_is_refused_by_name(tmp_path) -> None:
    with open_project(build(tmp_path)) as store:
        overall = dim(rubric_stats(store, "r").overall, "overall")
    done = {f.name: getattr(overall, f.name) for f in FIGURES}
    assert dimension_stats("overall", done) == overall
    with pytest.raises(TypeError, match="figure judge_win gave a float, not a WinRate"):
        dimension_stats("overall", {**done, "judge_win": 0.5})
    with pytest.raises(
        TypeError, match=r"no field of DimensionStats for the figures \['judge_wn'\]"
    ):
        dimension_stats("overall", {**done, "judge_wn": overall.judge_win})
