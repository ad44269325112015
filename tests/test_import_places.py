"""Every import error names the file, the line (or record) and the field, and leaves the
project as it was: bad bytes deep in a file, deep nesting, lone surrogates, NaN and
Infinity, short CSV rows and unterminated quotes (issue 12, items 12 and 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.domain.errors import ImportDataError
from desktop.services.importing import import_file
from tests.helpers import new_project, table_digest


def refused(tmp_path: Path, name: str, content: bytes | str) -> str:
    """Import a file into a project holding one pair; the error, with nothing changed."""
    project = tmp_path / "p.tiebreak"
    if not project.exists():
        new_project(tmp_path)
        seed = tmp_path / "seed.jsonl"
        seed.write_text('{"instruction": "i", "output_1": "a", "output_2": "b"}\n')
        with open_project(project) as store:
            import_file(store, seed)
    before = table_digest(project)
    data = tmp_path / name
    if isinstance(content, str):
        data.write_text(content, encoding="utf-8")
    else:
        data.write_bytes(content)
    with open_project(project) as store, pytest.raises(ImportDataError) as info:
        import_file(store, data)
    assert table_digest(project) == before
    message = str(info.value)
    assert "\n" not in message and message.startswith(str(data))
    return message.removeprefix(str(tmp_path) + "/")


def good_lines(n: int) -> list[bytes]:
    return [
        json.dumps({"instruction": f"q{i}", "output_1": "a", "output_2": "b"}).encode()
        for i in range(n)
    ]


def test_a_bad_byte_on_line_20002_names_that_line_and_field(tmp_path: Path) -> None:
    bad = b'{"instruction": "x", "output_1": "caf\xe9", "output_2": "b"}'
    text = b"\n".join([*good_lines(20_001), bad]) + b"\n"
    assert refused(tmp_path, "big.jsonl", text) == (
        "big.jsonl line 20002: field 'output_1' is not UTF-8 text (0xe9 at byte 38 of line 20002)"
    )


def test_a_bad_byte_in_a_json_array_names_record_and_line(tmp_path: Path) -> None:
    records = b",\n".join(good_lines(3000))
    bad = b'{"instruction": "x",\n "output_1": "a", "output_2": "\xff"}'
    message = refused(tmp_path, "big.json", b"[\n" + records + b",\n" + bad + b"\n]\n")
    assert message == (
        "big.json line 3002 (record 3001): field 'output_2' is not UTF-8 text"
        " (0xff at byte 32 of line 3003)"
    )


def test_a_bad_byte_in_a_csv_cell_names_row_and_column(tmp_path: Path) -> None:
    rows = b"".join(b"q%d,a,b\n" % i for i in range(5000))
    content = b"instruction,output_1,output_2\n" + rows + b'x,"two\nlines \x80",b\n'
    assert refused(tmp_path, "big.csv", content) == (
        "big.csv line 5002: field 'output_1' is not UTF-8 text (0x80 at byte 7 of line 5003)"
    )


def test_a_bad_byte_in_a_header_names_the_line(tmp_path: Path) -> None:
    message = refused(tmp_path, "head.csv", b"instruction,out\xffput_1,output_2\nq,a,b\n")
    assert message == "head.csv line 1: not UTF-8 text (0xff at byte 16)"


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "deep.jsonl",
            '{"instruction": "i", "output_1": "a", "output_2": "b"}\n' + "[" * 100_000,
            "deep.jsonl line 2: nested too deeply",
        ),
        (
            "deep_field.jsonl",
            '{"instruction": "i", "output_1": ' + "[" * 100_000 + "\n",
            "deep_field.jsonl line 1 in field 'output_1': nested too deeply",
        ),
        (
            "deep.json",
            '[{"instruction": "i", "output_1": "a", "output_2": "b"},\n' + "[" * 100_000,
            "deep.json line 2, column 1 (record 2): nested too deeply",
        ),
    ],
)
def test_deep_nesting_names_line_and_field(
    tmp_path: Path, name: str, content: str, expected: str
) -> None:
    assert refused(tmp_path, name, content).startswith(expected)


@pytest.mark.parametrize("name", ["s.jsonl", "s.json"])
def test_a_lone_surrogate_names_line_and_field(tmp_path: Path, name: str) -> None:
    record = '{"instruction": "i", "output_1": "a", "output_2": "b\\udc80c"}'
    content = record + "\n" if name.endswith("l") else f"[\n{record}\n]"
    where = "s.jsonl line 1" if name.endswith("l") else "s.json line 2 (record 1)"
    assert refused(tmp_path, name, content) == (
        f"{where}: field 'output_2' holds a lone surrogate (\\udc80), half of a character,"
        " which is not text"
    )


def test_a_lone_surrogate_in_metadata_or_annotator_is_named(tmp_path: Path) -> None:
    record = {"instruction": "i", "output_1": "a", "output_2": "b", "note": "x\ud800"}
    line = json.dumps(record)  # escapes the surrogate as \ud800
    assert "field 'note' holds a lone surrogate (\\ud800)" in refused(tmp_path, "m.jsonl", line)
    record = {"instruction": "i", "output_1": "a", "output_2": "b", "preference": 1}
    record["annotator"] = "judge\udfff"
    assert "field 'annotator' holds a lone surrogate (\\udfff)" in refused(
        tmp_path, "j.jsonl", json.dumps(record)
    )


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "dup.jsonl",
            '{"instruction": "i", "output_1": "a", "output_1": "b", "output_2": "c"}\n',
            "dup.jsonl line 1: 'output_1' appears twice in one object",
        ),
        (
            "dup.json",
            '[\n{"instruction": "i", "output_1": "a", "output_2": "c", "m": {"x": 1, "x": 2}}]',
            "dup.json line 2, column 1 (record 1) in field 'm': 'x' appears twice in one object",
        ),
    ],
)
def test_a_member_named_twice_is_refused(
    tmp_path: Path, name: str, content: str, expected: str
) -> None:
    """Python's json keeps the last of the two without a word: which one was meant?"""
    assert refused(tmp_path, name, content) == expected


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("field", ["instruction", "output_1", "output_2", "output_human"])
def test_nan_and_infinity_are_refused_as_text(tmp_path: Path, constant: str, field: str) -> None:
    values = {"instruction": '"i"', "output_1": '"a"', "output_2": '"b"', "output_human": '"r"'}
    values[field] = constant
    line = "{" + ", ".join(f'"{k}": {v}' for k, v in values.items()) + "}\n"
    message = refused(tmp_path, "n.jsonl", line)
    assert message.startswith(f"n.jsonl line 1: field {field!r} (")
    assert message.endswith(f"must be text, got {constant}")


def test_a_nan_preference_is_still_no_verdict(tmp_path: Path) -> None:
    """AlpacaEval writes NaN where the annotator gave no preference: not a text field."""
    project = new_project(tmp_path)
    data = tmp_path / "a.json"
    data.write_text('[{"instruction": "i", "output_1": "a", "output_2": "b", "preference": NaN}]')
    with open_project(project) as store:
        report = import_file(store, data)
    assert (report.added, report.judge_verdicts) == (1, 0)


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "short.csv",
            "instruction,output_1,output_2\nq,a\n",
            "short.csv line 2: 2 cells but the header has 3"
            " ('instruction', 'output_1', 'output_2')",
        ),
        (
            "later.csv",
            "instruction,output_1,output_2,output_human\nq,a,b,r\nq2,a,b\n",
            "later.csv line 3: 3 cells but the header has 4 (",
        ),
        (
            "quote.csv",
            'instruction,output_1,output_2\nq,a,b\nq2,"open,b\nmore\nlines\n',
            "quote.csv line 3 (column 'output_1'): a quoted cell is never closed"
            " (its opening quote is unmatched up to the end of the file)",
        ),
        (
            "stray.csv",
            'instruction,output_1,output_2\nq,a,b\nq2,a,"b\nc"d\n',
            "stray.csv line 4 (column 'output_2'): text after the closing quote of a cell (",
        ),
        ("head.csv", "instruction,output_1,output_2\n", "head.csv: no records to import"),
    ],
)
def test_csv_rows_and_quotes_are_placed(
    tmp_path: Path, name: str, content: str, expected: str
) -> None:
    """A short first row is a short row, not a header without the column; a quote that is
    never closed is named where it opened."""
    assert refused(tmp_path, name, content).startswith(expected)
