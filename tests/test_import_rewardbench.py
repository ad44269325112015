"""RewardBench's pairs imported as gold-labelled pairs: the preference stored as reviewer
``rewardbench``'s verdict (chosen's side, A or B as TRL's shape places it), each side's
generator following it, the subset as the category, and the row's ``id`` as the pair's.

The records are written here in the ``filtered`` split's own columns and order
(allenai/reward-bench: prompt, chosen, chosen_model, rejected, rejected_model, subset, id).
"""

from __future__ import annotations

from pathlib import Path

from desktop.adapters.store import open_project
from desktop.domain.import_shapes import detect
from tests.helpers import new_project, tiebreak, write_jsonl

ROWS = [
    {
        "prompt": f"Question {i}: what is {i} + {i}?",
        "chosen": f"{2 * i}",
        "chosen_model": "GPT-4",
        "rejected": f"{2 * i + 1}",
        "rejected_model": "Llama-2-7b-chat",
        "subset": "math-prm" if i % 2 else "refusals-dangerous",
        "id": 100 + i,
    }
    for i in range(24)
]


def stored(project: Path) -> dict[str, tuple[str, str, str, str, str, str, str]]:
    with open_project(project, readonly=True) as store:
        rows = store.conn.execute(
            "SELECT p.external_id, h.verdict, h.reviewer, p.model_a, p.model_b, p.category,"
            " p.response_a, p.response_b FROM human_verdicts h JOIN pairs p ON p.id = h.pair_id"
        ).fetchall()
    return {row[0]: tuple(row[1:]) for row in rows}


def test_rewardbench_rows_become_gold_labelled_pairs(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path / "filtered.jsonl", ROWS)
    project = new_project(tmp_path)
    proc = tiebreak("import", project, file)
    assert proc.returncode == 0, proc.stderr
    got = stored(project)
    assert len(got) == len(ROWS)
    sides = set()
    for row in ROWS:
        verdict, reviewer, model_a, model_b, category, a, b = got[str(row["id"])]
        assert reviewer == "rewardbench"
        assert category == row["subset"]
        chosen = (a, model_a) if verdict == "A" else (b, model_b)
        rejected = (b, model_b) if verdict == "A" else (a, model_a)
        assert chosen == (row["chosen"], row["chosen_model"])
        assert rejected == (row["rejected"], row["rejected_model"])
        sides.add(verdict)
    # Chosen lands on both sides, so a judge's position bias cannot pass for accuracy.
    assert sides == {"A", "B"}
    with open_project(project, readonly=True) as store:
        judged = store.conn.execute("SELECT count(*) FROM judge_results").fetchone()[0]
    assert judged == 0  # a gold label, not a judge's answer


def test_shape_is_rewardbench_only_with_a_subset() -> None:
    assert detect(ROWS[0]).name == "rewardbench"
    plain_trl = {k: v for k, v in ROWS[0].items() if k in ("prompt", "chosen", "rejected")}
    assert detect(plain_trl).name == "trl"


def test_named_with_format_again_adds_nothing_and_a_bad_row_is_one_line(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path / "filtered.jsonl", ROWS[:4])
    project = new_project(tmp_path)
    first = tiebreak("import", project, file, "--format", "rewardbench")
    assert first.returncode == 0, first.stderr
    assert "4 pairs added" in first.stdout
    assert "nothing added" in tiebreak("import", project, file).stdout
    bad = {k: v for k, v in ROWS[5].items() if k != "rejected"}
    proc = tiebreak("import", project, write_jsonl(tmp_path / "bad.jsonl", [ROWS[4], bad]))
    assert proc.returncode != 0
    assert "bad.jsonl" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(stored(project)) == 4  # the import stops whole
