"""Exporting: columns, verdict combination, formula safety, atomic writes."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from desktop.adapters.formats.cells import FormulaGuard, safe_cell
from desktop.adapters.store import open_project
from desktop.adapters.store.human_verdicts import add_verdict
from desktop.adapters.store.rubrics import record_rubric
from desktop.domain.errors import TiebreakError
from desktop.domain.results import JudgeResult, Order, Status
from desktop.domain.verdicts import Verdict
from desktop.services.exporting import ExportReport, export_project
from desktop.services.importing import import_file
from desktop.ui.file_actions import export_work
from tests.helpers import new_project, save_result, write_jsonl

DIMS = ("precision", "overall")


def _project_with_verdicts(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    rows = [
        {"id": f"p{i}", "instruction": f"q{i}", "output_1": f"a{i}", "output_2": f"b{i}"}
        for i in range(4)
    ]
    rows[3]["output_1"] = '=HYPERLINK("http://x")'
    rows[3]["output_2"] = "  @SUM(1)"
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "d.jsonl", rows))
        with store.transaction():
            record_rubric(
                store, hash="h1", name="r", title="R", dimensions=DIMS, kind="rubric", text="..."
            )

        def result(
            pid: int, order: Order, status: Status = Status.OK, **verdicts: str
        ) -> JudgeResult:
            return JudgeResult(
                pair_id=pid,
                rubric_hash="h1",
                rubric_name="r",
                judge_model="m",
                settings_hash="s",
                order=order,
                status=status,
                verdicts={d: Verdict(v) for d, v in verdicts.items()},
                confidence={"overall": 0.9} if verdicts else {},
                raw_completion="raw",
            )

        save_result(store, result(1, Order.AB, precision="A", overall="A"))
        save_result(store, result(2, Order.AB, precision="A", overall="B"))
        save_result(store, result(2, Order.BA, precision="B", overall="B"))  # precision flips
        save_result(store, result(3, Order.AB, Status.PARSE_FAILURE))
        add_verdict(
            store,
            pair_id=1,
            rubric_name="r",
            dimension="overall",
            verdict=Verdict.B,
            reviewer="ann",
            note="B is right",
        )
        add_verdict(
            store,
            pair_id=2,
            rubric_name="r",
            dimension="precision",
            verdict=Verdict.A,
            reviewer="ann",
        )
        add_verdict(
            store, pair_id=2, rubric_name="r", dimension="precision", verdict=None, reviewer="ann"
        )  # withdrawn: the judge's verdict counts again
    return path


def test_csv_columns_and_verdicts(tmp_path: Path) -> None:
    path = _project_with_verdicts(tmp_path)
    out = tmp_path / "out.csv"
    with open_project(path) as store:
        report = export_project(store, out)
    assert (report.rows, report.rubric, report.judge_model) == (4, "r", "m")
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0])[:13] == [
        "id",
        "external_id",
        "instruction",
        "response_a",
        "response_b",
        "reference",
        "source",
        "model_a",
        "model_b",
        "category",
        "rubric",
        "judge_model",
        "judge_status",
    ]
    assert "overall_consistent" in rows[0]
    one, two, three, four = rows
    assert (one["overall_model"], one["overall_human"], one["overall_final"]) == ("A", "B", "B")
    assert (one["overall_confidence"], one["overall_consistent"]) == ("0.9", "")
    assert (two["precision_model"], two["precision_consistent"], two["precision_final"]) == (
        "tie",
        "no",
        "tie",
    )
    assert (two["overall_model"], two["overall_consistent"], two["overall_human"]) == (
        "B",
        "yes",
        "",
    )
    assert (three["judge_status"], three["overall_model"], three["overall_final"]) == (
        "parse-failure",
        "",
        "",
    )
    assert (four["judge_status"], four["judge_model"], four["overall_final"]) == ("", "", "")
    assert four["response_a"] == '\'=HYPERLINK("http://x")'
    assert four["response_b"] == "'  @SUM(1)"


def test_jsonl_export_keeps_types(tmp_path: Path) -> None:
    path = _project_with_verdicts(tmp_path)
    out = tmp_path / "out.jsonl"
    with open_project(path) as store:
        export_project(store, out, fmt="jsonl")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows[0]["overall_confidence"] == 0.9
    assert rows[3]["response_a"] == '=HYPERLINK("http://x")'


# What a model's answers and a dataset's fields start with, and whether a spreadsheet
# would run them: markdown lists and formulas are guarded; a leading line feed, a number,
# a hyphen inside the text are not.
GUARD_CASES = [
    ("\n\nParis is the capital.", False),
    ("\n1. first\n2. second", False),
    ("- milk\n- eggs", True),
    ("-5", False),
    ("+1.5e3", False),
    ("=SUM(A1:A3)", True),
    ("@cmd", True),
    ("\tindented", True),
    ("\r\nwindows", True),
    ('  \n=HYPERLINK("http://x")', True),
    ("well-known", False),
]


def _guard_project(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    rows = [
        {"id": f"g{i}", "instruction": f"q{i}", "output_1": text, "output_2": "plain"}
        for i, (text, _) in enumerate(GUARD_CASES)
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "g.jsonl", rows))
    return path


def _exported_answers(tmp_path: Path, **options: bool) -> tuple[ExportReport, list[str]]:
    path = _guard_project(tmp_path)
    out = tmp_path / "out.csv"
    with open_project(path) as store:
        report = export_project(store, out, **options)
    with out.open(newline="", encoding="utf-8") as fh:
        return report, [r["response_a"] for r in csv.DictReader(fh)]


def test_the_guard_quotes_exactly_the_formula_starts_and_counts_them(tmp_path: Path) -> None:
    report, cells = _exported_answers(tmp_path)
    expected = [("'" + text) if guarded else text for text, guarded in GUARD_CASES]
    assert cells == expected
    assert report.guarded == sum(g for _, g in GUARD_CASES) == 6
    assert report.guard_note == "; 6 cells guarded against spreadsheet formulas"


def test_no_formula_guard_writes_text_exactly(tmp_path: Path) -> None:
    report, cells = _exported_answers(tmp_path, formula_guard=False)
    assert cells == [text for text, _ in GUARD_CASES]
    assert (report.guarded, report.guard_note) == (None, "; formula guard off")


def test_jsonl_is_exact_and_says_nothing_of_a_guard(tmp_path: Path) -> None:
    path = _guard_project(tmp_path)
    out = tmp_path / "out.jsonl"
    with open_project(path) as store:
        report = export_project(store, out, fmt="jsonl")
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["response_a"] for line in lines] == [t for t, _ in GUARD_CASES]
    assert report.guard_note == ""


def test_the_command_line_says_how_many_cells_were_guarded(tmp_path: Path) -> None:
    path = _guard_project(tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "desktop", "export", path, tmp_path / "o.csv"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert (
        run.stdout
        == f"{tmp_path / 'o.csv'}: 11 rows; 6 cells guarded against spreadsheet formulas\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "desktop", "export", path, tmp_path / "o.csv", "--no-formula-guard"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.endswith(": 11 rows; formula guard off\n")
    written = (tmp_path / "o.csv").read_text(encoding="utf-8")
    assert ',"- milk' in written and "'" not in written


def test_export_opens_in_pandas_if_available(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    path = _project_with_verdicts(tmp_path)
    out = tmp_path / "out.csv"
    with open_project(path) as store:
        export_project(store, out)
    frame = pd.read_csv(out, keep_default_na=False)
    assert len(frame) == 4 and frame.loc[0, "overall_final"] == "B"


def test_failed_export_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _project_with_verdicts(tmp_path)
    out = tmp_path / "out.csv"
    out.write_text("old content")

    def boom(self: FormulaGuard, value: str) -> str:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(FormulaGuard, "cell", boom)
    with open_project(path) as store, pytest.raises(RuntimeError):
        export_project(store, out)
    assert out.read_text() == "old content"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.csv")] == []


def test_several_rubrics_need_a_choice(tmp_path: Path) -> None:
    path = _project_with_verdicts(tmp_path)
    with open_project(path) as store:
        add_verdict(
            store,
            pair_id=1,
            rubric_name="other",
            dimension="overall",
            verdict=Verdict.A,
            reviewer="ann",
        )
        with pytest.raises(TiebreakError, match="several rubrics"):
            export_project(store, tmp_path / "x.csv")
        with pytest.raises(TiebreakError, match="no verdicts for rubric 'nope'"):
            export_project(store, tmp_path / "x.csv", rubric="nope")
        assert export_project(store, tmp_path / "x.csv", rubric="other").rows == 4


def test_alpaca_round_trip_gives_805_rows(tmp_path: Path, alpaca_file: Path) -> None:
    path = new_project(tmp_path)
    out = tmp_path / "alpaca.csv"
    with open_project(path) as store:
        import_file(store, alpaca_file)
        export_project(store, out)
    with out.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 805
    finals = [r["overall_final"] for r in rows]
    assert (finals.count("A"), finals.count("B"), finals.count("tie")) == (469, 328, 8)
    assert {r["judge_model"] for r in rows} == {"alpaca_eval_gpt4"}


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("=1+1", "'=1+1"),
        ("+A1", "'+A1"),
        ("-A1", "'-A1"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("\nx", "\nx"),
        ("\n\nThe answer", "\n\nThe answer"),
        ("\n=cmd", "'\n=cmd"),
        (" \n @x", "' \n @x"),
        ("   =cmd", "'   =cmd"),
        ("- item\n- item", "'- item\n- item"),
        ("-5 apples", "'-5 apples"),
        (" -5", " -5"),
        ("-5", "-5"),
        ("+1.5e3", "+1.5e3"),
        (" 42", " 42"),
        ("plain", "plain"),
        ("", ""),
        ("a=b", "a=b"),
        ("   ", "   "),
    ],
)
def test_safe_cell(cell: str, expected: str) -> None:
    assert safe_cell(cell) == expected


@given(st.text())
def test_no_cell_starts_a_formula(text: str) -> None:
    cell = safe_cell(text)
    stripped = cell.lstrip(" \n")
    if stripped[:1] in ("=", "+", "-", "@", "\t", "\r"):
        float(stripped)  # only a plain number may start that way
    assert cell in (text, "'" + text)


@pytest.mark.parametrize("name", ["out.jsonl", "out.ndjson", "out.csv", "out.txt"])
def test_the_window_and_the_command_line_pick_the_same_format_from_the_name(
    tmp_path: Path, name: str
) -> None:
    """One rule for both: JSON lines for .jsonl and .ndjson, CSV for anything else."""
    import threading

    from desktop.services.app_settings import AppSettings
    from desktop.services.session import ReviewSession

    project = _project_with_verdicts(tmp_path)
    by_cli = tmp_path / "cli" / name
    by_cli.parent.mkdir()
    by_window = tmp_path / "window" / name
    by_window.parent.mkdir()
    proc = subprocess.run(
        [sys.executable, "-m", "desktop", "export", str(project), str(by_cli)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    session = ReviewSession.open(project, AppSettings())
    try:
        session.choose_rubric("r")
        export_work(session, by_window)(lambda _: None, threading.Event())
    finally:
        session.close()
    first = by_window.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("{") == (name.endswith(("jsonl", "ndjson")))
    assert first == by_cli.read_text(encoding="utf-8").splitlines()[0]
