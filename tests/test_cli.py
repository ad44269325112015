"""The `tiebreak` command as a user runs it: exit codes, one-line errors, real files."""

from __future__ import annotations

import csv
import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers import table_digest, tiebreak, write_jsonl


def assert_one_line_error(proc: subprocess.CompletedProcess[str], fragment: str) -> None:
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tiebreak: error: "), proc.stderr
    assert fragment in lines[0]


def test_alpaca_import_override_export(tmp_path: Path, alpaca_file: Path) -> None:
    project = tmp_path / "p.tiebreak"
    assert tiebreak("new", project).returncode == 0
    proc = tiebreak("import", project, alpaca_file)
    assert proc.returncode == 0, proc.stderr
    assert "805 pairs added" in proc.stdout and "805 annotator verdicts" in proc.stdout
    # Progress goes to stderr, once the work has run for 2 s: none for a quick import.
    assert "imported records" not in proc.stdout and proc.stderr == ""
    proc = tiebreak(
        "override", project, "#3", "overall", "tie", "--note", "both fine", "--reviewer", "ann"
    )
    assert proc.returncode == 0, proc.stderr
    out = tmp_path / "out.csv"
    proc = tiebreak("export", project, out)
    assert proc.returncode == 0, proc.stderr
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 805
    assert (rows[2]["overall_human"], rows[2]["overall_final"]) == ("tie", "tie")
    assert sum(r["overall_model"] == "A" for r in rows) == 469


def test_errors_are_one_line_and_change_nothing(tmp_path: Path) -> None:
    project = tmp_path / "p.tiebreak"
    assert tiebreak("new", project).returncode == 0
    write_jsonl(tmp_path / "ok.jsonl", [{"instruction": "i", "output_1": "a", "output_2": "b"}])
    assert tiebreak("import", project, tmp_path / "ok.jsonl").returncode == 0
    before = table_digest(project)

    assert_one_line_error(tiebreak("new", project), "already exists")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"instruction": "i", "output_1": "a", "output_2": "c"}\n{"oops"\n')
    assert_one_line_error(tiebreak("import", project, bad), "bad.jsonl line 2")
    assert_one_line_error(tiebreak("import", project, tmp_path / "none.csv"), "no such file")
    assert_one_line_error(
        tiebreak("override", project, "#1", "style", "A", "--rubric", "href-overall"),
        "no dimension 'style'",
    )
    assert_one_line_error(
        tiebreak("override", project, "#99", "overall", "A", "--rubric", "href-overall"),
        "no pair with id '#99'",
    )
    assert_one_line_error(
        tiebreak("override", project, "#1", "overall", "C", "--rubric", "href-overall"),
        "expected A, B, tie, bothbad, skip or broken",
    )
    not_project = tmp_path / "notes.txt"
    not_project.write_text("hello")
    assert_one_line_error(
        tiebreak("import", not_project, tmp_path / "ok.jsonl"), "not a Tiebreak project"
    )
    assert not_project.read_text() == "hello"
    assert table_digest(project) == before


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    proc = tiebreak("import")
    assert proc.returncode == 2 and "usage:" in proc.stderr
    proc = tiebreak("export", tmp_path / "p", tmp_path / "o", "--format", "xlsx")
    assert proc.returncode == 2


def test_rubrics_lists_the_five_seeds() -> None:
    proc = tiebreak("rubrics", "--json")
    assert proc.returncode == 0, proc.stderr
    names = {r["name"] for r in json.loads(proc.stdout)}
    assert {"href-four", "href-overall", "href-correctness", "just-eval", "text-grounded"} <= names
    plain = tiebreak("rubrics")
    assert plain.returncode == 0 and "href-four" in plain.stdout


@pytest.mark.parametrize("seed", ["001_475f3977ae80b8c3.txt", "003_889bcadb6ce6a156.txt"])
def test_rubric_add_imports_a_template(tmp_path: Path, seeds_dir: Path, seed: str) -> None:
    project = tmp_path / "p.tiebreak"
    assert tiebreak("new", project).returncode == 0
    proc = tiebreak("rubric", "add", project, seeds_dir / seed, "--name", "mine")
    assert proc.returncode == 0, proc.stderr
    proc = tiebreak("rubrics", "--json", "--project", project)
    assert proc.returncode == 0, proc.stderr
    added = [r for r in json.loads(proc.stdout) if r["name"] == "mine"]
    assert len(added) == 1


def test_rubric_add_refuses_a_broken_file(tmp_path: Path) -> None:
    project = tmp_path / "p.tiebreak"
    assert tiebreak("new", project).returncode == 0
    before = table_digest(project)
    broken = tmp_path / "broken.toml"
    broken.write_text('name = "x"\ndimensions = "overall"\n')
    proc = tiebreak("rubric", "add", project, broken)
    assert_one_line_error(proc, "broken.toml")
    assert table_digest(project) == before


def test_open_a_missing_project_is_one_line(tmp_path: Path) -> None:
    proc = tiebreak("open", tmp_path / "nope.tiebreak")
    assert_one_line_error(proc, "no such project")
    assert not (tmp_path / "nope.tiebreak").exists()


def test_progress_waits_for_the_interval(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Quick work prints no progress (a refusal a moment in stays the one line on stderr);
    longer work prints a line each interval."""
    from types import SimpleNamespace

    from desktop.cli import progress

    clock = [100.0]
    monkeypatch.setattr(progress, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    report = progress.stderr_progress("imported records")
    report(2000)
    assert capsys.readouterr().err == ""
    clock[0] += 2.5
    report(4000)
    assert capsys.readouterr().err == "imported records: 4,000\n"
