"""Importing data files: formats, column names, annotations, and all-or-nothing errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import count_pairs, find_pair
from desktop.domain.errors import ImportDataError
from desktop.services.importing import import_file
from tests.helpers import new_project, table_digest, write_jsonl

ROWS = [
    {
        "id": "q1",
        "prompt": "Capital of France?",
        "answer_a": "Paris",
        "answer_b": "Lyon",
        "reference": "Paris.",
        "dataset": "qa",
        "extra": 7,
    },
    {
        "id": "q2",
        "prompt": "2+2?",
        "answer_a": "4",
        "answer_b": "=1+3",
        "reference": "4",
        "dataset": "math",
        "extra": 8,
    },
]


def test_alpaca_eval_file_gives_805_pairs_with_annotator_verdicts(
    tmp_path: Path, alpaca_file: Path
) -> None:
    path = new_project(tmp_path)
    with open_project(path) as store:
        report = import_file(store, alpaca_file)
        assert (report.kind, report.added, report.judge_verdicts) == ("alpaca-eval", 805, 805)
        counts = dict(
            store.conn.execute(
                "SELECT json_extract(verdicts, '$.overall'), count(*) FROM judge_results GROUP BY 1"
            ).fetchall()
        )
        assert counts == {"A": 469, "B": 328, "tie": 8}
        model = store.conn.execute("SELECT DISTINCT judge_model FROM judge_results").fetchall()
        assert model == [("alpaca_eval_gpt4",)]
        first = store.conn.execute(
            "SELECT model_a, model_b, category, metadata FROM pairs ORDER BY id LIMIT 1"
        ).fetchone()
        assert first[:3] == ("text_davinci_003", "alpaca-farm-ppo-human", "helpful_base")
        assert json.loads(first[3])["price_per_example"] == 0.01272
        again = import_file(store, alpaca_file)
        assert (again.added, again.duplicates) == (0, 805)
        assert count_pairs(store) == 805
        assert store.conn.execute("SELECT count(*) FROM judge_results").fetchone()[0] == 805


def test_generic_jsonl_with_common_names(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    data = write_jsonl(tmp_path / "d.jsonl", ROWS)
    with open_project(path) as store:
        report = import_file(store, data)
        assert (report.kind, report.added) == ("pairs", 2)
        pair = find_pair(store, "q2")
        assert (pair.instruction, pair.response_a, pair.response_b) == ("2+2?", "4", "=1+3")
        assert (pair.reference, pair.category, pair.metadata) == ("4", "math", {"extra": 8})
        assert import_file(store, data).added == 0


def test_csv_with_map_option_and_unicode(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    data = tmp_path / "d.csv"
    data.write_text('Q,left,right\n"Größe, bitte?","línea 1\nlínea 2",😀\n', encoding="utf-8")
    with open_project(path) as store:
        import_file(
            store, data, mapping={"instruction": "Q", "response_a": "left", "response_b": "right"}
        )
        pair = find_pair(store, "#1")
        assert (pair.instruction, pair.response_a, pair.response_b) == (
            "Größe, bitte?",
            "línea 1\nlínea 2",
            "😀",
        )


def test_json_array_and_fractional_preference(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    data = tmp_path / "ann.json"
    data.write_text(
        json.dumps(
            [
                {
                    "instruction": "x",
                    "output_1": "a",
                    "output_2": "b",
                    "preference": 1.8,
                    "annotator": "judge-x",
                    "raw_completion": "Output (b)",
                },
                {"instruction": "y", "output_1": "a", "output_2": "b", "preference": None},
            ]
        )
    )
    with open_project(path) as store:
        report = import_file(store, data)
        assert (report.added, report.judge_verdicts) == (2, 1)
        verdicts, confidence, raw = store.conn.execute(
            "SELECT verdicts, confidence, raw_completion FROM judge_results"
        ).fetchone()
        assert json.loads(verdicts) == {"overall": "B"}
        assert json.loads(confidence) == {"overall": pytest.approx(0.8)}
        assert raw == "Output (b)"


def test_href_annotations_become_human_verdicts(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    data = write_jsonl(
        tmp_path / "href.jsonl",
        [
            {
                "instruction": "i",
                "output_a": "a",
                "output_b": "b",
                "reference": "r",
                "category": "Open QA",
                "annotations": [1, 2, 1, 0],
            },
        ],
    )
    with open_project(path) as store:
        report = import_file(store, data)
        assert (report.kind, report.human_verdicts) == ("href", 4)
        rows = store.conn.execute(
            "SELECT reviewer, verdict, rubric_name FROM human_verdicts ORDER BY id"
        ).fetchall()
        assert rows == [
            ("annotator-1", "A", "href-overall"),
            ("annotator-2", "B", "href-overall"),
            ("annotator-3", "A", "href-overall"),
            ("annotator-4", "tie", "href-overall"),
        ]
        assert import_file(store, data).human_verdicts == 0


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "bad.jsonl",
            '{"instruction": "i", "output_1": "a", "output_2": "b"}\n{"instruction": "i2",',
            r"bad.jsonl line 2, column 22: not valid JSON",
        ),
        (
            "miss.jsonl",
            '{"instruction": "i", "output_1": "a", "output_2": "b"}\n'
            '{"instruction": "j", "output_1": "a"}\n',
            r"miss.jsonl line 2: field 'output_2' \(response_b\) is missing",
        ),
        ("cols.csv", "question,foo,bar\nq,a,b\n", r"cols.csv line 2: no column for response_a"),
        (
            "pref.json",
            json.dumps(
                [
                    {"instruction": "i", "output_1": "a", "output_2": "b", "preference": 1},
                    {"instruction": "i", "output_1": "a", "output_2": "c", "preference": 3},
                ]
            ),
            r"pref.json line 1 \(record 2\): field 'preference'",
        ),
        ("empty.csv", "", r"empty.csv: empty file"),
        (
            "type.jsonl",
            '{"instruction": ["x"], "output_1": "a", "output_2": "b"}\n',
            r"type.jsonl line 1: field 'instruction' \(instruction\) must be text",
        ),
        (
            "latin1.csv",
            None,
            r"latin1.csv line 2: field 'instruction' is not UTF-8 text"
            r" \(0xf6 at byte 3 of line 2\)",
        ),
        (
            "blank.jsonl",
            '{"instruction": "", "output_1": "a", "output_2": "b"}\n',
            r"blank.jsonl line 1: field 'instruction' \(instruction\) is empty",
        ),
    ],
)
def test_bad_input_names_the_place_and_changes_nothing(
    tmp_path: Path, name: str, content: str | None, message: str
) -> None:
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "ok.jsonl", ROWS))
    before = table_digest(path)
    data = tmp_path / name
    if content is None:
        data.write_bytes("instruction,output_1,output_2\nGr\xf6\xdfe,a,b\n".encode("latin-1"))
    else:
        data.write_text(content, encoding="utf-8")
    with open_project(path) as store, pytest.raises(ImportDataError, match=message) as info:
        import_file(store, data)
    assert "\n" not in str(info.value)
    assert table_digest(path) == before


def test_error_after_many_good_batches_rolls_everything_back(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    rows = [{"instruction": f"q{i}", "output_1": "a", "output_2": "b"} for i in range(5000)]
    rows.append({"instruction": "last", "output_1": "a"})
    data = write_jsonl(tmp_path / "big.jsonl", rows)
    before = table_digest(path)
    with open_project(path) as store, pytest.raises(ImportDataError, match="line 5001"):
        import_file(store, data)
    assert table_digest(path) == before


def test_unknown_map_field_is_a_clear_error() -> None:
    from desktop.domain.columns import parse_map_options

    with pytest.raises(ImportDataError, match="unknown field 'answer'"):
        parse_map_options(["answer=col"])
    with pytest.raises(ImportDataError, match="expected FIELD=COLUMN"):
        parse_map_options(["instruction"])
