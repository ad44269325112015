"""The Python API (desktop/api.py) as a script uses it: a project made, pairs imported,
judged by a real OpenAI-protocol server, a verdict overridden, figures read and the labels
exported, each step through ``desktop.api`` alone."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from desktop import api
from tests.judging_helpers import JUST_EVAL_ANSWER, MODEL
from tests.openai_server import OpenAIServer


def test_a_script_imports_judges_overrides_and_exports(tmp_path: Path) -> None:
    data = tmp_path / "pairs.jsonl"
    data.write_text(
        "".join(
            json.dumps(
                {"id": f"p{i}", "instruction": f"q{i}", "response_a": "a", "response_b": "b"}
            )
            + "\n"
            for i in range(1, 4)
        ),
        encoding="utf-8",
    )
    path = tmp_path / "reviews.tiebreak"
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as server:
        judge = api.profile(base_url=server.base_url, model=MODEL)
        with api.open_project(path, create=True) as store:
            report = api.import_file(store, data)
            summary = api.judge(store, "just-eval", judge, api.JobOptions(one_order=True))
            api.override(
                store, "p2", rubric="just-eval", dimension="depth", verdict="B", reviewer="ada"
            )
            (stats,) = api.compute_stats(store, "just-eval")
            exported = api.export_project(store, tmp_path / "out.csv", rubric="just-eval")

    assert (report.records, report.added) == (3, 3)
    assert (summary.progress.ok, summary.progress.errors) == (3, 0)
    assert (stats.overall.judged, stats.overall.reviewed) == (3, 1)
    depth = next(d for d in stats.overall.dimensions if d.dimension == "depth")
    assert (depth.judge_win.a, depth.judge_win.b, depth.judge_win.tie) == (0, 0, 3)
    assert exported.rows == 3
    with (tmp_path / "out.csv").open(encoding="utf-8", newline="") as f:
        rows = {row["external_id"]: row for row in csv.DictReader(f)}
    assert [rows[p]["depth_final"] for p in ("p1", "p2", "p3")] == ["tie", "B", "tie"]
    assert rows["p2"]["depth_human"] == "B" and rows["p1"]["engagement_final"] == "A"


def test_errors_are_one_line_tiebreak_errors(tmp_path: Path) -> None:
    with (
        api.open_project(tmp_path / "p.tiebreak", create=True) as store,
        pytest.raises(api.TiebreakError, match="expected A, B or tie"),
    ):
        api.override(store, "1", rubric="just-eval", dimension="depth", verdict="C")
    with pytest.raises(api.TiebreakError, match="no model profile 'nobody'"):
        api.profile("nobody")
    with pytest.raises(api.TiebreakError, match="already exists"):
        api.open_project(tmp_path / "p.tiebreak", create=True)
