"""JudgeBench-shaped files written here (our own invented pairs, no JudgeBench data), so
the import and the JudgeBench accuracy are tested everywhere, not only where a fetched copy
of JudgeBench is (tests/test_import_judgebench.py runs on its published files there).

JudgeBench's rule, as ``utils/metrics.py`` ``compute_final_metrics(pairs, reverse_order)``
(commit e2c52c2) has it:

- ``reverse_order=True`` (both orders): ``judgments`` is [A shown first, B shown first].
  decision1 is the first judgment's ``decision`` (None when the judgment is None);
  decision2 is the second's passed through ``flip_judgment``, which swaps exactly
  ``"A>B"`` <-> ``"B>A"`` and returns anything else unchanged (``"A=B"``, ``"A>>B"``,
  None). A counter starts at 0; for each of the two decisions it adds +1 when the decision
  equals the ``label`` and -1 when it equals the flipped label; anything else (``A=B``, a
  missing decision, a missing judgment, an un-normalised ``A>>B``) adds 0. The pair is
  right only when the counter is > 0, so right+tie is right, right+wrong is not (counter
  0, JudgeBench's ``n_tie``), tie+tie is not. Accuracy = 100 * right / all pairs (every
  pair is in the denominator, nulls too).
- ``reverse_order=False``: right when the first judgment's decision equals the label.
- ``include_fn`` keeps only some pairs first (how per-source figures are made).

The project stores the label as reviewer ``judgebench``'s verdict, each order as one of the
judge's two answers (B-first flipped back; anything but A>B, B>A, A=B a parse failure), and
the judge-selection table (``domain/judge_selection.py``) gives the accuracy: "both,
averaged" is the both-orders rule, "one order" the other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop.adapters.store import open_project
from desktop.domain.judge_selection import CODE, OrderUse, configuration, selection_table
from desktop.domain.verdicts import Verdict
from desktop.services.judge_selection import judge_selection
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.test_import_judgebench import (
    GIT,
    code,
    gold_rows,
    judge_rows,
    reference_metrics,
    stored_verdict,
)

NO_JUDGMENT = "no judgment"  # the whole judgment is None, not only its decision
JUDGE = "arena_hard/tiny-judge-1"
MATH, REASONING = "mmlu-pro-math", "livebench-reasoning"

# pair id, source, label, decision A first, decision B first (as the judge saw the sides),
# then by hand: the counter (second decision flipped first) and what the project stores.
CASES: list[tuple[str, str, str, str | None, str | None]] = [
    ("tb-m1", MATH, "A>B", "A>B", "B>A"),  # +1 +1 = 2 right; stores A, A
    ("tb-m2", MATH, "B>A", "A>B", "A>B"),  # -1 +1 = 0 not right; A, B
    ("tb-m3", MATH, "A>B", "A=B", "B>A"),  # 0 +1 = 1 right; tie, A
    ("tb-m4", MATH, "B>A", "A>>B", "A>B"),  # A>>B is 0: 0 +1 = 1 right; parse failure, B
    ("tb-m5", MATH, "A>B", None, "A>B"),  # 0 -1 = -1 wrong; parse failure, B
    ("tb-l1", REASONING, "B>A", "B>A", "A>B"),  # +1 +1 = 2 right; B, B
    ("tb-l2", REASONING, "A>B", "A>B", "A>B"),  # +1 -1 = 0 not right (A shown first twice)
    ("tb-l3", REASONING, "B>A", "A=B", "A=B"),  # 0 0 = 0 not right; tie, tie
    ("tb-l4", REASONING, "A>B", "B>A", NO_JUDGMENT),  # -1 0 = -1 wrong; B, parse failure
    ("tb-l5", REASONING, "A>B", "A>B", "A=B"),  # +1 0 = 1 right; A, tie
]
# Right with both orders: m1, m3, m4 of 5 math; l1, l5 of 5 reasoning.
BOTH = {"all": 50.0, MATH: 60.0, REASONING: 40.0}
# First order only, right when it equals the label: m1; l1, l2, l5.
ONE = {"all": 40.0, MATH: 20.0, REASONING: 60.0}
# What the project stores per pair: (A-first answer, B-first answer flipped back), None a
# parse failure.
STORED = {
    "tb-m1": ("A", "A"),
    "tb-m2": ("A", "B"),
    "tb-m3": ("tie", "A"),
    "tb-m4": (None, "B"),
    "tb-m5": (None, "B"),
    "tb-l1": ("B", "B"),
    "tb-l2": ("A", "B"),
    "tb-l3": ("tie", "tie"),
    "tb-l4": ("B", None),
    "tb-l5": ("A", "tie"),
}


def pair_row(pair_id: str, source: str, label: str) -> dict[str, Any]:
    """A pair as JudgeBench's ``data/`` files lay one out, with invented text."""
    n = int(pair_id[-1])
    return {
        "pair_id": pair_id,
        "original_id": n,
        "source": source,
        "question": f"Invented question {pair_id}: what is {n} + {n}?",
        "response_model": "tiny-model",
        "response_A": f"It is {2 * n}." if label == "A>B" else f"It is {2 * n + 1}.",
        "response_B": f"It is {2 * n}." if label == "B>A" else f"It is {2 * n + 1}.",
        "label": label,
    }


def judgment(decision: str | None) -> dict[str, Any] | None:
    if decision == NO_JUDGMENT:
        return None
    verdict = f"[[{decision}]]" if decision else "no verdict given"
    return {
        "judgment": {"judge_model": "tiny-judge-1", "prompt": "...", "response": verdict},
        "decision": decision,
    }


def pairs_file() -> list[dict[str, Any]]:
    return [pair_row(pid, source, label) for pid, source, label, _, _ in CASES]


def outputs_file() -> list[dict[str, Any]]:
    """The pairs with one judge's two judgments, as JudgeBench's ``outputs/`` files."""
    return [
        {
            **pair_row(pid, source, label),
            "judge_name": "arena_hard",
            "judgments": [judgment(first), judgment(second)],
        }
        for pid, source, label, first, second in CASES
    ]


def imported(tmp_path: Path) -> Path:
    """A project with the pairs file, then the outputs file, imported."""
    project = new_project(tmp_path)
    for name, rows in (("pairs.jsonl", pairs_file()), ("outputs.jsonl", outputs_file())):
        proc = tiebreak("import", project, write_jsonl(tmp_path / name, rows))
        assert proc.returncode == 0, proc.stderr
    return project


def accuracy(project: Path, use: OrderUse, source: str) -> float:
    """The table's JudgeBench accuracy (percent) on the stored votes of ``source``'s pairs."""
    answers, gold = judge_rows(project), gold_rows(project)
    ids = [pid for pid, (_, _, category) in gold.items() if source in ("all", category)]
    first = [code(answers.get((pid, "AB"))) for pid in ids]
    second = [code(answers.get((pid, "BA"))) for pid in ids]
    reference = np.asarray([CODE[Verdict(gold[pid][0])] for pid in ids], dtype=np.int8)
    row = selection_table(reference, [configuration(JUDGE, use, first, second)], rounds=1).rows[0]
    assert row.pairs == len(ids)
    assert row.judgebench.value is not None
    return 100 * row.judgebench.value


def test_stores_gold_label_two_answers_and_source(tmp_path: Path) -> None:
    project = imported(tmp_path)
    gold = gold_rows(project)
    assert gold == {
        pid: ({"A>B": "A", "B>A": "B"}[label], "judgebench", source)
        for pid, source, label, _, _ in CASES
    }
    answers = judge_rows(project)
    assert {row["judge"] for row in answers.values()} == {JUDGE}
    assert len(answers) == 2 * len(CASES)
    for pid, (first, second) in STORED.items():
        ab, ba = answers[(pid, "AB")], answers[(pid, "BA")]
        assert (stored_verdict(ab), stored_verdict(ba)) == (first, second), pid
        for row, expected in ((ab, first), (ba, second)):
            assert row["status"] == ("ok" if expected else "parse-failure"), pid
    with open_project(project, readonly=True) as store:
        reviewers = store.conn.execute(
            "SELECT reviewer, count(*) FROM human_verdicts GROUP BY reviewer"
        ).fetchall()
        n_pairs = store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0]
    # The outputs file's pairs are the pairs file's: no second pair, no second label.
    assert reviewers == [("judgebench", len(CASES))]
    assert n_pairs == len(CASES)


@pytest.mark.parametrize("source", ["all", MATH, REASONING])
def test_judgebench_accuracy_by_hand_overall_and_per_source(tmp_path: Path, source: str) -> None:
    project = imported(tmp_path)
    assert accuracy(project, OrderUse.AVERAGED, source) == pytest.approx(BOTH[source])
    assert accuracy(project, OrderUse.ONE, source) == pytest.approx(ONE[source])


def test_the_service_reads_the_same_table_from_the_project(tmp_path: Path) -> None:
    project = imported(tmp_path)
    with open_project(project, readonly=True) as store:
        table = judge_selection(store, "judgebench", against="gold", rounds=10).table
    rows = {(row.name, row.use): row for row in table.rows}
    assert table.pairs == len(CASES)
    assert rows[(JUDGE, OrderUse.AVERAGED)].judgebench.value == pytest.approx(BOTH["all"] / 100)
    assert rows[(JUDGE, OrderUse.ONE)].judgebench.value == pytest.approx(ONE["all"] / 100)


def reward_model_file() -> list[dict[str, Any]]:
    """A second judge (a reward model: never a tie), right in both orders on every pair
    but tb-l3, where it is wrong in both: 9 of 10 right either way."""
    flip = {"A>B": "B>A", "B>A": "A>B"}
    rows = []
    for pid, source, label, _, _ in CASES:
        first = flip[label] if pid == "tb-l3" else label
        # B shown first: the label's side is named by the other letter.
        decisions = [first, flip[first]]
        judgments = [
            {"judgment": {"judge_model": "tiny-rm", "scores": [1.0, 0.0]}, "decision": d}
            for d in decisions
        ]
        rows.append(
            {**pair_row(pid, source, label), "judge_name": "reward_model", "judgments": judgments}
        )
    return rows


def test_cli_judges_against_gold_gives_the_hand_figure(tmp_path: Path) -> None:
    project = imported(tmp_path)
    more = tiebreak("import", project, write_jsonl(tmp_path / "rm.jsonl", reward_model_file()))
    assert more.returncode == 0, more.stderr
    with open_project(project, readonly=True) as store:
        judges = store.conn.execute(
            "SELECT judge_model, ord, count(*) FROM judge_results GROUP BY 1, 2 ORDER BY 1, 2"
        ).fetchall()
        labels = store.conn.execute("SELECT count(*) FROM human_verdicts").fetchone()[0]
    # Two judges, two answers each per pair, still one gold label per pair.
    assert judges == [
        (j, o, len(CASES)) for j in (JUDGE, "reward_model/tiny-rm") for o in ("AB", "BA")
    ]
    assert labels == len(CASES)
    proc = tiebreak("judges", project, "--against", "gold", "--rounds", "50", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["rubric"] == "judgebench" and out["against"] == "gold"
    assert out["table"]["pairs"] == len(CASES)
    rows = {(row["name"], row["use"]): row for row in out["table"]["rows"]}
    both = rows[(JUDGE, OrderUse.AVERAGED.value)]
    assert both["judgebench"]["value"] == pytest.approx(BOTH["all"] / 100)
    assert both["pairs"] == len(CASES)
    assert rows[(JUDGE, OrderUse.ONE.value)]["judgebench"]["value"] == pytest.approx(
        ONE["all"] / 100
    )
    # Parse failures: m4's A>>B, m5's missing decision, l4's missing judgment, of 20 answers.
    assert both["parse_failure_share"] == pytest.approx(3 / 20)
    # The reward model: 9 of 10 right with both orders and with one; it is the best row.
    rm = "reward_model/tiny-rm"
    for use in (OrderUse.AVERAGED, OrderUse.ONE):
        assert rows[(rm, use.value)]["judgebench"]["value"] == pytest.approx(0.9)
    assert [row["name"] for row in out["table"]["rows"] if row["best"]] == [rm]
    assert not both["best"]


@pytest.mark.skipif(not GIT.is_dir(), reason=f"no fetched JudgeBench repository at {GIT}")
def test_the_hand_figures_are_compute_final_metrics(tmp_path: Path) -> None:
    """The figures worked out above, checked against JudgeBench's own code on the file."""
    metrics, rows = reference_metrics(), outputs_file()
    for source in BOTH:

        def kept(pair: dict[str, Any], s: str = source) -> bool:
            return s in ("all", pair["source"])

        assert metrics.compute_final_metrics(rows, True, include_fn=kept) == BOTH[source]
        assert metrics.compute_final_metrics(rows, False, include_fn=kept) == ONE[source]
    assert metrics.compute_final_metrics(reward_model_file(), True) == 90.0
    assert metrics.compute_final_metrics(reward_model_file(), False) == 90.0


def test_a_tie_label_is_refused_in_one_line(tmp_path: Path) -> None:
    bad = {**pairs_file()[0], "label": "A=B"}
    proc = tiebreak("import", new_project(tmp_path), write_jsonl(tmp_path / "bad.jsonl", [bad]))
    assert proc.returncode != 0
    assert "field 'label' must be 'A>B' or 'B>A'" in proc.stderr
    assert "bad.jsonl" in proc.stderr and "Traceback" not in proc.stderr
