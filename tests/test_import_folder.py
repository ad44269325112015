"""Import at scale (issue 14, item 4): a folder of results in one all-or-nothing import,
each file's judge from its ``annotator``, and a raw completion that is a JSON object kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.store import open_project
from desktop.domain.errors import ImportDataError
from desktop.services.import_sources import data_files
from desktop.services.importing import import_file
from tests.helpers import new_project, table_digest, tiebreak

CLAUDE = "claude-2.1__weighted_alpaca_eval_gpt4_turbo.annotations.json"


def cot_annotations(source: Path, n: int) -> list[dict[str, Any]]:
    """The first ``n`` pairs of ``source`` as AlpacaEval's chain-of-thought annotator
    writes them: its reasoning in a raw completion that is an object."""
    rows = json.loads(source.read_text(encoding="utf-8"))[:n]
    return [
        {
            **{k: row[k] for k in ("instruction", "output_1", "generator_1", "dataset")},
            **{k: row[k] for k in ("output_2", "generator_2")},
            "annotator": "alpaca_eval_cot_gpt4_turbo_fn",
            "preference": 2.0 if i % 2 else 1.0,
            "raw_completion": {
                "concise_explanation": f"Model M was more complete ({i}).",
                "ordered_models": [{"model": "M", "rank": 1}, {"model": "m", "rank": 2}],
            },
            "referenced_models": {"M": "output_1", "m": "output_2"},
        }
        for i, row in enumerate(rows)
    ]


def results_folder(tmp_path: Path, alpaca_dir: Path) -> Path:
    """A folder laid out like AlpacaEval's ``results/``."""
    model = tmp_path / "results" / "claude-2.1"
    (model / "weighted_alpaca_eval_gpt4_turbo").mkdir(parents=True)
    shutil.copy(alpaca_dir / CLAUDE, model / "weighted_alpaca_eval_gpt4_turbo/annotations.json")
    (model / "alpaca_eval_cot_gpt4_turbo_fn").mkdir()
    (model / "alpaca_eval_cot_gpt4_turbo_fn/annotations.json").write_text(
        json.dumps(cot_annotations(alpaca_dir / CLAUDE, 40), indent=2), encoding="utf-8"
    )
    outputs = [{"instruction": "q", "output": "a", "generator": "claude-2.1", "dataset": "x"}]
    (model / "model_outputs.json").write_text(json.dumps(outputs), encoding="utf-8")
    (model / "README.md").write_text("not data")
    (tmp_path / "results" / ".cache").mkdir()
    (tmp_path / "results" / ".cache" / "broken.json").write_text("[{")
    return tmp_path / "results"


@pytest.fixture
def alpaca_dir(alpaca_file: Path) -> Path:
    return alpaca_file.parent / "alpaca_eval"


def test_which_files_under_a_folder_are_data_files(tmp_path: Path, alpaca_dir: Path) -> None:
    folder = results_folder(tmp_path, alpaca_dir)
    (folder / "b.CSV").write_text("x")
    (folder / "a.ndjson").write_text("x")
    (folder / ".hidden.json").write_text("x")
    assert [p.relative_to(folder).as_posix() for p in data_files(folder)] == [
        "a.ndjson",
        "b.CSV",
        "claude-2.1/alpaca_eval_cot_gpt4_turbo_fn/annotations.json",
        "claude-2.1/model_outputs.json",
        "claude-2.1/weighted_alpaca_eval_gpt4_turbo/annotations.json",
    ]


def test_a_results_folder_imports_every_annotator(tmp_path: Path, alpaca_dir: Path) -> None:
    folder = results_folder(tmp_path, alpaca_dir)
    project = new_project(tmp_path)
    run = tiebreak("import", str(project), str(folder))
    assert run.returncode == 0, run.stderr
    assert run.stdout == (
        f"{folder}: 2 files: 805 pairs added, 845 annotator verdicts added;"
        " 40 records repeat a pair read before them;"
        " skipped 1 without pairs: claude-2.1/model_outputs.json\n"
    )
    with open_project(project) as store:
        judges = dict(
            store.conn.execute(
                "SELECT judge_model, count(*) FROM judge_results GROUP BY judge_model"
            ).fetchall()
        )
        assert judges == {
            "alpaca_eval_cot_gpt4_turbo_fn": 40,
            "weighted_alpaca_eval_gpt4_turbo": 805,
        }
        raw = store.conn.execute(
            "SELECT raw_completion FROM judge_results WHERE judge_model = ? ORDER BY pair_id",
            ["alpaca_eval_cot_gpt4_turbo_fn"],
        ).fetchone()[0]
    assert json.loads(raw)["concise_explanation"] == "Model M was more complete (0)."
    again = tiebreak("import", str(project), str(folder))
    assert again.stdout == (
        f"{folder}: 2 files: nothing added; already in the project: 805 pairs,"
        " 845 annotator verdicts; skipped 1 without pairs: claude-2.1/model_outputs.json\n"
    )


def test_the_logprobs_of_a_weighted_annotator_are_kept(tmp_path: Path, alpaca_dir: Path) -> None:
    project = new_project(tmp_path)
    with open_project(project) as store:
        import_file(store, alpaca_dir / CLAUDE)
        rows = store.conn.execute("SELECT raw_completion FROM judge_results").fetchall()
    kept = [json.loads(raw) for (raw,) in rows]
    assert sum("logprobs" in r for r in kept) == 803  # two records have none: their preference
    assert sum(set(r) == {"preference"} for r in kept) == 2


def test_a_bad_file_anywhere_leaves_the_project_unchanged(tmp_path: Path, alpaca_dir: Path) -> None:
    folder = results_folder(tmp_path, alpaca_dir)
    bad = folder / "zephyr" / "annotations.json"
    bad.parent.mkdir()
    rows = cot_annotations(alpaca_dir / CLAUDE, 3)
    rows[2]["preference"] = 7
    bad.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    project = new_project(tmp_path)
    before = table_digest(project)
    with open_project(project) as store, pytest.raises(ImportDataError) as info:
        import_file(store, folder)
    assert str(info.value).startswith(f"{bad} line ")
    assert "(record 3): field 'preference'" in str(info.value)
    assert table_digest(project) == before


def test_an_id_clash_between_two_files_names_both(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "a.jsonl").write_text(
        '{"id": "7", "instruction": "i", "output_1": "a", "output_2": "b"}\n'
    )
    (folder / "b.csv").write_text("id,instruction,output_1,output_2\n7,i,a,other\n")
    project = new_project(tmp_path)
    with open_project(project) as store, pytest.raises(ImportDataError) as info:
        import_file(store, folder)
    assert str(info.value) == (
        f"{folder}/b.csv line 2: id '7' is already used by {folder}/a.jsonl line 1,"
        " which has a different response_b; nothing was imported"
    )


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({}, "no data files in the folder"),
        ({"notes.txt": "x"}, "no data files in the folder"),
        ({"out.json": '[{"output": "a"}]', "empty.jsonl": ""}, "no file in the folder holds pairs"),
    ],
)
def test_a_folder_without_pairs_is_refused(
    tmp_path: Path, files: dict[str, str], message: str
) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    project = new_project(tmp_path)
    with open_project(project) as store, pytest.raises(ImportDataError, match=message):
        import_file(store, folder)
