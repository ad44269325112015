"""What an import promised to keep, kept: every column of a file (two without a name are
two), an annotator's name and raw completion when it gave no preference, a preference
first given in a later record, and numbers digit for digit as the file wrote them
(``1.50``, ``1E2``, ``-0``, an AlpacaEval preference of 21 significant digits), seen in
the exported bytes. And what it cannot do is refused: one column for both responses. A file
name holding a newline does not start a line of its own in the summary.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, fingerprint

PREFERENCE = "1.99999999999999999999"  # 21 significant digits; as a float: 2.0


def exported(hostile: Hostile, project: Path, out: Path, *args: str) -> list[dict]:
    """The project exported (CSV or JSONL by ``out``'s name), read back as rows; JSONL
    rows are parsed with every number kept as its text."""
    hostile.succeeded(hostile.cli("export", project, out, *args))
    if out.suffix == ".csv":
        with out.open(newline="", encoding="utf-8") as fh:
            return list(csv.DictReader(fh))
    lines = out.read_text(encoding="utf-8").splitlines()
    return [json.loads(line, parse_float=str, parse_int=str) for line in lines]


def test_two_unnamed_csv_columns_are_both_kept(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    data = tmp_path / "pairs.csv"
    data.write_text("instruction,output_1,output_2,,\ni,a,b,KEEP1,KEEP2\n", encoding="utf-8")
    hostile.succeeded(hostile.cli("import", project, data))
    (row,) = exported(hostile, project, tmp_path / "out.csv")
    assert json.loads(row["metadata"]) == {"column 4": "KEEP1", "column 5": "KEEP2"}


def test_an_unnamed_column_is_named_by_its_place(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    data = tmp_path / "pairs.csv"
    data.write_text("instruction,output_1,output_2,column 4,\ni,a,b,x,y\n", encoding="utf-8")
    hostile.succeeded(hostile.cli("import", project, data))
    (row,) = exported(hostile, project, tmp_path / "out.csv")
    assert json.loads(row["metadata"]) == {"column 4": "x", "column 5": "y"}


def test_a_clash_of_an_unnamed_column_with_a_named_one_is_refused(
    tmp_path: Path, hostile: Hostile
) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    data = tmp_path / "pairs.csv"
    data.write_text("instruction,output_1,output_2,,column 4\ni,a,b,x,y\n", encoding="utf-8")
    hostile.refused(
        hostile.cli("import", project, data),
        says=(f"{data} line 1: column 4 has no name", "named 'column 4'"),
        project=project,
        before=before,
    )


def test_annotator_and_raw_completion_are_kept_without_a_preference(
    tmp_path: Path, hostile: Hostile
) -> None:
    project = new_project(tmp_path)
    record = {"instruction": "i", "output_1": "a", "output_2": "b"}
    data = tmp_path / "annotations.json"
    data.write_text(
        json.dumps(
            [
                {**record, "annotator": "gpt4", "raw_completion": "thinking", "preference": 2},
                {**record, "instruction": "j", "annotator": "ann", "raw_completion": "m"}
                | {"preference": None},
            ]
        ),
        encoding="utf-8",
    )
    hostile.succeeded(hostile.cli("import", project, data))
    rows = exported(hostile, project, tmp_path / "out.csv", "--rubric", "alpaca-eval")
    by_instruction = {r["instruction"]: r for r in rows}
    assert json.loads(by_instruction["j"]["metadata"]) == {
        "annotator": "ann",
        "raw_completion": "m",
        "preference": None,
    }
    assert by_instruction["i"]["overall_model"] == "B"
    assert by_instruction["i"]["metadata"] == ""  # held by its verdict, not twice


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_a_preference_first_given_in_a_later_record_is_read(
    tmp_path: Path, suffix: str, hostile: Hostile
) -> None:
    project = new_project(tmp_path)
    records = [
        {"instruction": "first", "output_1": "a", "output_2": "b"},
        {"instruction": "second", "output_1": "a", "output_2": "b", "preference": 2},
        {"instruction": "third", "output_1": "a", "output_2": "b", "annotations": ["A"]},
    ]
    data = tmp_path / f"mixed{suffix}"
    if suffix == ".json":
        data.write_text(json.dumps(records), encoding="utf-8")
    else:
        write_jsonl(data, records)
    run = hostile.cli("import", project, data)
    hostile.succeeded(run)
    assert "3 pairs added, 1 annotator verdicts added" in run.stdout
    rows = exported(hostile, project, tmp_path / "out.csv", "--rubric", "alpaca-eval")
    by_instruction = {r["instruction"]: r for r in rows}
    assert by_instruction["second"]["overall_model"] == "B"
    assert by_instruction["second"]["overall_preference"] == "2"
    # An AlpacaEval file's `annotations` is no verdict of its kind: kept, not dropped.
    assert json.loads(by_instruction["third"]["metadata"]) == {"annotations": ["A"]}


NUMBERS = '{"instruction": "i", "output_1": 1.50, "output_2": 1E2, "extra": -0, "big": %s}'


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_numbers_are_kept_as_written(tmp_path: Path, suffix: str, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    line = NUMBERS % PREFERENCE
    data = tmp_path / f"numbers{suffix}"
    data.write_text(f"[\n{line}\n]\n" if suffix == ".json" else line + "\n", encoding="utf-8")
    hostile.succeeded(hostile.cli("import", project, data))
    (row,) = exported(hostile, project, tmp_path / "out.csv")
    assert (row["response_a"], row["response_b"]) == ("1.50", "1E2")
    assert row["metadata"] == f'{{"extra": -0, "big": {PREFERENCE}}}'
    (record,) = exported(hostile, project, tmp_path / "out.jsonl")
    assert record["metadata"] == {"extra": "-0", "big": PREFERENCE}
    assert (
        f'"metadata": {{"extra": -0, "big": {PREFERENCE}}}' in (tmp_path / "out.jsonl").read_text()
    )


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_a_preference_is_exported_exactly_as_its_file_gave_it(
    tmp_path: Path, fmt: str, hostile: Hostile
) -> None:
    """docs/exporting.md: "an imported preference exactly as its file gave it, every digit"."""
    project = new_project(tmp_path)
    if fmt == "json":
        data = tmp_path / "annotations.json"
        data.write_text(
            '[{"instruction": "i", "output_1": "a", "output_2": "b", "annotator": "gpt4",'
            f' "preference": {PREFERENCE}}},'
            ' {"instruction": "j", "output_1": "a", "output_2": "b", "annotator": "gpt4",'
            ' "preference": 1.50}]',
            encoding="utf-8",
        )
    else:
        data = tmp_path / "annotations.csv"
        data.write_text(
            f"instruction,output_1,output_2,annotator,preference\ni,a,b,gpt4,{PREFERENCE}\n"
            "j,a,b,gpt4,1.50\n",
            encoding="utf-8",
        )
    hostile.succeeded(hostile.cli("import", project, data))
    rows = exported(hostile, project, tmp_path / "out.csv", "--rubric", "alpaca-eval")
    assert [(r["overall_model"], r["overall_preference"]) for r in rows] == [
        ("B", PREFERENCE),
        ("tie", "1.50"),
    ]
    records = exported(hostile, project, tmp_path / "out.jsonl", "--rubric", "alpaca-eval")
    assert [r["overall_preference"] for r in records] == [PREFERENCE, "1.50"]
    text = (tmp_path / "out.jsonl").read_text(encoding="utf-8")
    assert f'"overall_preference": {PREFERENCE},' in text  # a number, not text


def test_one_column_for_both_responses_is_refused(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    data = tmp_path / "pairs.csv"
    data.write_text("instruction,out1,out2\ni,x,y\n", encoding="utf-8")
    run = hostile.cli(
        "import", project, data, "--map", "response_a=out1", "--map", "response_b=out1"
    )
    hostile.refused(
        run,
        says="--map response_a=out1 and --map response_b=out1: one column for two fields",
        project=project,
        before=before,
    )
    run = hostile.cli(
        "import", project, data, "--map", "response_a=out1", "--map", "response_a=out2"
    )
    hostile.refused(run, says="--map response_a: given twice", project=project, before=before)


def test_a_file_name_with_a_newline_stays_on_one_line(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    folder = tmp_path / "in"
    folder.mkdir()
    data = write_jsonl(
        folder / "pairs\nforged: 0 pairs added.jsonl",
        [{"instruction": "i", "output_1": "a", "output_2": "b"}],
    )
    (folder / "empty\nline.json").write_text("[]", encoding="utf-8")
    for source, shown in (
        (data, "pairs\\x0aforged"),
        (folder, "skipped 1 without pairs: empty\\x0aline"),
    ):
        run = hostile.cli("import", project, source)
        hostile.succeeded(run)
        assert len(run.stdout.splitlines()) == 1, run.stdout
        assert shown in run.stdout
