"""Who gave a human verdict, how and when, and the pair's notes, in the export: the CSV
names the reviewer whose verdict the human column is; JSONL carries every reviewer's."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from desktop.adapters.store import open_project
from desktop.services.exporting import export_columns, export_project
from desktop.services.importing import import_file
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.stats_helpers import add_rubric, judge, review

DIMS = ("precision", "overall")


def _project(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    rows = [
        {"id": f"p{i}", "instruction": f"q{i}", "output_1": "a", "output_2": "b"} for i in "123"
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "d.jsonl", rows))
        add_rubric(store, "r", DIMS)
        judge(store, 1, overall="A", precision="A")
        # Pair 1: ann and bob say B on overall, cid says A; ann's note rides on two
        # dimensions; bob gave his through the command line.
        review(store, "#1", "overall", "B", reviewer="ann", mode="blind", note="B cites it")
        review(store, "#1", "precision", "A", reviewer="ann", mode="blind", note="B cites it")
        review(store, "#1", "overall", "A", reviewer="cid", mode="gui")
        review(store, "#1", "overall", "B", reviewer="bob", mode="cli", note="=HYPERLINK(1)")
        # Pair 2: a note on a verdict then withdrawn, from a reviewer named like a formula.
        review(store, "#2", "overall", "tie", reviewer="@evil", mode="imported", note="hmm")
        review(store, "#2", "overall", None, reviewer="@evil", mode="gui", note="not sure")
    return path


def _csv(path: Path, out: Path, *args: str) -> list[dict[str, str]]:
    done = tiebreak("export", path, out, "--rubric", "r", *args)
    assert done.returncode == 0, done.stderr
    with out.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_the_csv_says_who_gave_the_human_verdict_how_and_when(tmp_path: Path) -> None:
    path = _project(tmp_path)
    rows = _csv(path, tmp_path / "out.csv")
    assert list(rows[0]) == list(export_columns(DIMS))
    one, two, three = rows
    assert one["overall_human"] == "B"  # two of three reviewers
    assert (one["overall_reviewer"], one["overall_mode"]) == ("bob", "cli")  # the latest of them
    assert one["overall_time"] >= one["precision_time"] > "2024"  # UTC, ISO 8601
    assert one["overall_time"].endswith("+00:00")
    assert (one["precision_reviewer"], one["precision_mode"]) == ("ann", "blind")
    # Each note once, after its writer's name (several wrote); a formula not at the start
    # of a cell runs nowhere.
    assert one["note"] == "ann: B cites it\nbob: =HYPERLINK(1)"
    assert two["overall_human"] == two["overall_reviewer"] == two["overall_mode"] == ""
    assert two["note"] == "not sure"  # the withdrawn verdict's note is the pair's note still
    assert [three[c] for c in ("note", "overall_reviewer", "overall_mode", "overall_time")] == [
        ""
    ] * 4


def test_text_others_wrote_cannot_run_as_a_formula(tmp_path: Path) -> None:
    path = _project(tmp_path)
    with open_project(path) as store:
        review(store, "#3", "overall", "A", reviewer="=cmd|' /C calc'!A0", note="-2+3")
    rows = _csv(path, tmp_path / "out.csv")
    assert rows[2]["overall_reviewer"] == "'=cmd|' /C calc'!A0"
    assert rows[2]["note"] == "'-2+3"  # a formula, not a number
    exact = _csv(path, tmp_path / "exact.csv", "--no-formula-guard")
    assert exact[2]["overall_reviewer"] == "=cmd|' /C calc'!A0"


def test_jsonl_carries_every_reviewers_verdict(tmp_path: Path) -> None:
    path = _project(tmp_path)
    out = tmp_path / "out.jsonl"
    with open_project(path, readonly=True) as store:
        report = export_project(store, out, rubric="r", fmt="jsonl")
    assert report.columns == export_columns(DIMS, fmt="jsonl")
    one, two, three = (json.loads(line) for line in out.read_text("utf-8").splitlines())
    assert [
        (r["dimension"], r["reviewer"], r["verdict"], r["mode"], r["note"]) for r in one["reviews"]
    ] == [
        ("overall", "ann", "B", "blind", "B cites it"),
        ("precision", "ann", "A", "blind", "B cites it"),
        ("overall", "cid", "A", "gui", None),  # outvoted, still there
        ("overall", "bob", "B", "cli", "=HYPERLINK(1)"),  # JSONL is exact
    ]
    assert all(r["time"].endswith("+00:00") for r in one["reviews"])
    assert one["overall_reviewer"] == "bob" and one["note"] == "ann: B cites it\nbob: =HYPERLINK(1)"
    assert two["reviews"] == [
        {
            "dimension": "overall",
            "reviewer": "@evil",
            "verdict": None,  # withdrawn
            "mark": None,  # not a skip, a broken mark or both bad
            "mode": "gui",
            "time": two["reviews"][0]["time"],
            "note": "not sure",
        }
    ]
    assert three["reviews"] == [] and three["note"] == ""
