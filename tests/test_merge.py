"""Merging another reviewer's verdicts: from a project file and from an exported CSV or
JSONL; no pair twice, all or nothing, and a second merge adds nothing."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from desktop.adapters.formats.cells import unescape
from desktop.adapters.store import open_project
from desktop.adapters.store.human_verdicts import history
from desktop.adapters.store.pairs import count_pairs, find_pair
from desktop.domain.errors import ImportDataError, TiebreakError
from desktop.services.exporting import export_project
from desktop.services.importing import import_file
from desktop.services.merge import merge_file
from desktop.services.stats import rubric_stats
from tests.helpers import new_project, table_digest, tiebreak, write_jsonl
from tests.stats_helpers import add_rubric, judge, review

DIMS = ("precision", "overall")
ROWS = [
    {"id": "p1", "instruction": "q1", "output_1": "=SUM(A1)", "output_2": "b1"},
    {"id": "-p2", "instruction": "q2", "output_1": "a2", "output_2": "@b2"},
    # no external id: matched on its text
    {"instruction": "q3", "output_1": " +cmd", "output_2": "b3", "category": "x"},
    {"instruction": "'=q4", "output_1": "a4", "output_2": "b4"},
]


def project(tmp_path: Path, name: str, rows: list[dict] | None = None) -> Path:
    path = new_project(tmp_path, name)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / f"{name}.jsonl", rows or ROWS))
        add_rubric(store, "r", DIMS)
        judge(store, 1, precision="A", overall="A")
    return path


def reviewers_of(path: Path, ref: str, dim: str = "overall") -> dict[str, str | None]:
    with open_project(path) as store:
        pair = find_pair(store, ref)
        assert pair.id is not None
        return {h.reviewer: h.verdict for h in history(store, pair.id, "r", dim)}


def test_merge_a_project_file(tmp_path: Path) -> None:
    mine, theirs = project(tmp_path, "ann.tiebreak"), project(tmp_path, "bob.tiebreak")
    with open_project(mine) as store:
        review(store, "p1", "overall", "A", reviewer="ann")
    with open_project(theirs) as store:
        review(store, "p1", "overall", "B", reviewer="bob", mode="blind", note="B is right")
        review(store, "#3", "precision", "tie", reviewer="bob")
        review(store, "#4", "overall", "A", reviewer="bob")
        review(store, "#4", "overall", None, reviewer="bob")  # withdrawn: history kept
    with open_project(mine) as store:
        report = merge_file(store, theirs)
        assert (report.kind, report.records, report.matched, report.added_pairs) == (
            "project",
            4,
            4,
            0,
        )
        assert (report.verdicts_added, report.reviewers) == (4, {"bob"})
        assert count_pairs(store) == 4
        pair = find_pair(store, "p1")
        assert pair.id is not None
        rows = history(store, pair.id, "r", "overall")
        assert [(h.reviewer, h.verdict, h.mode, h.note) for h in rows] == [
            ("ann", "A", "gui", None),
            ("bob", "B", "blind", "B is right"),
        ]
        o = next(d for d in rubric_stats(store, "r").overall.dimensions if d.dimension == "overall")
        assert o.reviewers is not None and o.reviewers.reviewers == ["ann", "bob"]
    assert reviewers_of(mine, "#4") == {"bob": None}
    before = table_digest(mine)
    with open_project(mine) as store:
        again = merge_file(store, theirs)
    assert (again.verdicts_added, again.verdicts_present) == (0, 4)
    assert table_digest(mine) == before


def test_a_newer_verdict_here_is_not_replaced_by_an_older_one(tmp_path: Path) -> None:
    mine = project(tmp_path, "ann.tiebreak")
    with open_project(mine) as store:
        review(store, "p1", "overall", "A", reviewer="ann")
    copy = tmp_path / "copy.tiebreak"
    shutil.copy(mine, copy)
    with open_project(mine) as store:
        review(store, "p1", "overall", "B", reviewer="ann")  # changed their mind since
        report = merge_file(store, copy)
    assert (report.verdicts_added, report.verdicts_present) == (0, 1)
    with open_project(mine) as store:
        pair = find_pair(store, "p1")
        assert pair.id is not None
        assert [h.verdict for h in history(store, pair.id, "r", "overall")] == ["A", "B"]


def test_pairs_the_project_lacks_are_added_once(tmp_path: Path) -> None:
    mine = project(tmp_path, "ann.tiebreak", ROWS[:2])
    theirs = project(tmp_path, "bob.tiebreak")
    with open_project(theirs) as store:
        review(store, "#3", "overall", "B", reviewer="bob")
        review(store, "#4", "overall", "tie", reviewer="bob")
    with open_project(mine) as store:
        report = merge_file(store, theirs)
        assert (report.matched, report.added_pairs, report.verdicts_added) == (2, 2, 2)
        assert count_pairs(store) == 4
        assert merge_file(store, theirs).added_pairs == 0
        assert count_pairs(store) == 4
        meta = store.conn.execute("SELECT metadata FROM pairs WHERE instruction = 'q3'").fetchone()
        assert json.loads(meta[0]) == {"category": "x"}  # kept as it was imported there


def export_csv(path: Path, out: Path, fmt: str = "csv") -> Path:
    with open_project(path) as store:
        export_project(store, out, rubric="r", fmt=fmt)
    return out


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_merge_an_exported_file(tmp_path: Path, fmt: str) -> None:
    mine, theirs = project(tmp_path, "ann.tiebreak"), project(tmp_path, "bob.tiebreak")
    with open_project(theirs) as store:
        review(store, "p1", "overall", "B", reviewer="someone")
        review(store, "-p2", "precision", "tie", reviewer="someone")
        review(store, "#3", "overall", "A", reviewer="someone")
        review(store, "#4", "precision", "B", reviewer="someone")
    out = export_csv(theirs, tmp_path / f"bob.{fmt}", fmt)
    with open_project(mine) as store:
        report = merge_file(store, out)
        assert (report.kind, report.records, report.matched, report.added_pairs) == (
            fmt,
            4,
            4,
            0,
        )
        assert (report.verdicts_added, report.reviewers) == (4, {"bob"})
        assert count_pairs(store) == 4
        modes = store.conn.execute("SELECT DISTINCT reviewer, mode FROM human_verdicts").fetchall()
        assert modes == [("bob", "imported")]
    assert reviewers_of(mine, "p1") == {"bob": "B"}
    assert reviewers_of(mine, "-p2", "precision") == {"bob": "tie"}
    assert reviewers_of(mine, "#3") == {"bob": "A"}
    assert reviewers_of(mine, "#4", "precision") == {"bob": "B"}
    before = table_digest(mine)
    with open_project(mine) as store:
        again = merge_file(store, out)
    assert (again.verdicts_added, again.verdicts_present) == (0, 4)
    assert table_digest(mine) == before


def test_an_export_adds_missing_pairs_with_their_original_text(tmp_path: Path) -> None:
    mine = project(tmp_path, "ann.tiebreak", ROWS[1:2])
    theirs = project(tmp_path, "bob.tiebreak")
    with open_project(theirs) as store:
        for ref in ("p1", "#3", "#4"):
            review(store, ref, "overall", "A", reviewer="x")
    out = export_csv(theirs, tmp_path / "bob.csv")
    with open_project(mine) as store:
        report = merge_file(store, out, reviewer="carol")
        assert (report.added_pairs, report.verdicts_added, report.reviewers) == (3, 3, {"carol"})
        texts = store.conn.execute(
            "SELECT external_id, instruction, response_a FROM pairs ORDER BY id"
        ).fetchall()
    # "'=q4" was written unchanged, as "=q4" would have been: a CSV cannot tell them apart
    assert texts[1:] == [("p1", "q1", "=SUM(A1)"), (None, "q3", " +cmd"), (None, "=q4", "a4")]


def test_unescape_inverts_safe_cell() -> None:
    assert unescape("'=SUM(A1)") == "=SUM(A1)"
    assert unescape("'  @x") == "  @x"
    assert unescape("'plain") == "'plain"
    assert unescape("-5") == "-5"


def test_same_id_different_text_stops_the_merge(tmp_path: Path) -> None:
    changed = [dict(r) for r in ROWS]
    changed[1]["output_2"] = "something else"
    mine = project(tmp_path, "ann.tiebreak")
    theirs = project(tmp_path, "bob.tiebreak", changed)
    with open_project(theirs) as store:
        review(store, "p1", "overall", "B", reviewer="bob")  # merged first, then rolled back
    out = export_csv(theirs, tmp_path / "bob.csv")
    before = table_digest(mine)
    with open_project(mine) as store:
        with pytest.raises(ImportDataError, match="pair -p2 has the same id"):
            merge_file(store, theirs)
        with pytest.raises(ImportDataError, match=r"bob.csv line 3: pair '-p2 has the same id"):
            merge_file(store, out)
    assert table_digest(mine) == before


def test_bad_files_change_nothing(tmp_path: Path) -> None:
    mine, theirs = project(tmp_path, "ann.tiebreak"), project(tmp_path, "bob.tiebreak")
    with open_project(theirs) as store:
        review(store, "p1", "overall", "B", reviewer="bob")
        review(store, "-p2", "overall", "B", reviewer="bob")
    out = export_csv(theirs, tmp_path / "bob.csv")
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    col = rows[0].index("overall_human")
    rows[2][col] = "maybe"
    bad = tmp_path / "bad.csv"
    with bad.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    plain = tmp_path / "plain.csv"
    plain.write_text("instruction,response_a,response_b\nq,a,b\n", encoding="utf-8")
    before = table_digest(mine)
    with open_project(mine) as store:
        with pytest.raises(ImportDataError, match=r"bad.csv line 3: column overall_human"):
            merge_file(store, bad)
        with pytest.raises(ImportDataError, match="not a file written by 'tiebreak export'"):
            merge_file(store, plain)
        with pytest.raises(TiebreakError, match="is the project itself"):
            merge_file(store, mine)
        with pytest.raises(TiebreakError, match="no such file"):
            merge_file(store, tmp_path / "none.tiebreak")
    assert table_digest(mine) == before


def test_merge_command(tmp_path: Path) -> None:
    mine, theirs = project(tmp_path, "ann.tiebreak"), project(tmp_path, "bob.tiebreak")
    with open_project(theirs) as store:
        review(store, "p1", "overall", "B", reviewer="bob")
    proc = tiebreak("merge", mine, theirs)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().endswith(
        "4 pairs read, 4 already in the project, 1 human verdicts added (reviewers: bob)"
    )
    out = export_csv(theirs, tmp_path / "export.csv")
    proc = tiebreak("merge", mine, out, "--reviewer", "bob-csv")
    assert proc.returncode == 0, proc.stderr
    assert "1 human verdicts added (reviewers: bob-csv)" in proc.stdout
    before = table_digest(mine)
    proc = tiebreak("merge", mine, tmp_path / "ann.tiebreak.jsonl")
    assert proc.returncode == 1 and "not a file written by 'tiebreak export'" in proc.stderr
    assert table_digest(mine) == before
