"""JudgeBench's published pairs and judges' outputs imported: the gold ``label`` stored as
reviewer ``judgebench``'s verdict, each judge's two answers stored as its two orders (the
B-first decision flipped back to the pair's own sides), and JudgeBench's own
``utils/metrics.py`` ``compute_final_metrics`` giving, on the very same file, the
judge-selection table's JudgeBench accuracy (``domain/judge_selection.py``, both orders)
on what the project stores, overall and per source.

JudgeBench (github.com/ScalerLab/JudgeBench) has no licence file, so neither its data nor
its code is copied here: the test reads both from a fetched copy of the repository (a bare
git dir, ``JUDGEBENCH_GIT`` or the default below) and each test skips without one. The
same import and accuracy on invented JudgeBench-shaped files, checked against figures
worked out by hand, run everywhere: tests/test_import_judgebench_shaped.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import types
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from desktop.adapters.store import open_project
from desktop.domain.judge_selection import (
    CODE,
    MISSING,
    PARSE_FAILURE,
    OrderUse,
    configuration,
    selection_table,
)
from desktop.domain.verdicts import Verdict
from tests.helpers import new_project, tiebreak, write_jsonl

GIT = Path(os.environ.get("JUDGEBENCH_GIT", "/work/.mirror/ScalerLab+JudgeBench/repo"))
OUTPUTS = (
    # A reward model (never a tie) and a prompted judge (ties, A=B, in both orders).
    "outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=reward_model,"
    "judge_model=Skywork_Skywork-Reward-Gemma-2-27B.jsonl",
    "outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=arena_hard,"
    "judge_model=o1-mini-2024-09-12.jsonl",
)
PAIRS = "data/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"

# Only the tests that read JudgeBench's own files need the fetched repository; the
# JudgeBench-shaped tests in tests/test_import_judgebench_shaped.py run everywhere.
needs_mirror = pytest.mark.skipif(
    not GIT.is_dir(), reason=f"no fetched JudgeBench repository at {GIT}"
)


def shown(path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(GIT), "show", f"HEAD:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def reference_metrics() -> types.ModuleType:
    """JudgeBench's ``utils/metrics.py``, run as it is published."""
    module = types.ModuleType("judgebench_metrics")
    exec(compile(shown("utils/metrics.py"), "judgebench/utils/metrics.py", "exec"), module.__dict__)
    return module


def records(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in shown(path).splitlines() if line.strip()]


def judge_rows(project: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """(pair_id as the file names it, order) -> the judge's stored answer."""
    with open_project(project, readonly=True) as store:
        rows = store.conn.execute(
            "SELECT p.external_id, r.ord, r.judge_model, r.verdicts, r.status"
            " FROM judge_results r JOIN pairs p ON p.id = r.pair_id"
        ).fetchall()
    return {
        (row[0], row[1]): {"judge": row[2], "verdicts": row[3], "status": row[4]} for row in rows
    }


def gold_rows(project: Path) -> dict[str, tuple[str, str, str | None]]:
    with open_project(project, readonly=True) as store:
        rows = store.conn.execute(
            "SELECT p.external_id, h.verdict, h.reviewer, p.category"
            " FROM human_verdicts h JOIN pairs p ON p.id = h.pair_id"
        ).fetchall()
    return {row[0]: (row[1], row[2], row[3]) for row in rows}


def stored_verdict(row: dict[str, Any] | None) -> str | None:
    if row is None or row["status"] != "ok":
        return None
    return str(json.loads(row["verdicts"])["overall"])


def code(row: dict[str, Any] | None) -> int:
    """A stored answer as the selection table's code."""
    if row is None:
        return MISSING
    if row["status"] != "ok":
        return PARSE_FAILURE
    return CODE[Verdict(json.loads(row["verdicts"])["overall"])]


def judgebench_accuracy(votes: list[tuple[int, int, int]]) -> float:
    """The judge-selection table's JudgeBench accuracy (both orders used) on the stored
    votes, as a percentage as JudgeBench writes it."""
    first, second, gold = (list(column) for column in zip(*votes, strict=True))
    row = selection_table(
        np.asarray(gold, dtype=np.int8),
        [configuration("judge", OrderUse.AVERAGED, first, second)],
        rounds=1,
    ).rows[0]
    assert row.judgebench.value is not None
    return 100 * row.judgebench.value


@needs_mirror
@pytest.mark.parametrize("output", OUTPUTS)
def test_published_outputs_give_compute_final_metrics(tmp_path: Path, output: str) -> None:
    file = tmp_path / "outputs.jsonl"
    file.write_text(shown(output), encoding="utf-8")
    project = new_project(tmp_path)
    proc = tiebreak("import", project, file)
    assert proc.returncode == 0, proc.stderr
    published = records(output)
    answers, gold = judge_rows(project), gold_rows(project)
    assert len(gold) == len(published) == 350
    assert len(answers) == 2 * len(published)

    metrics = reference_metrics()
    by_source: dict[str, list[tuple[int, int, int]]] = defaultdict(list)
    for pair in published:
        label, reviewer, category = gold[pair["pair_id"]]
        assert reviewer == "judgebench"
        assert label == {"A>B": "A", "B>A": "B"}[pair["label"]]
        assert category == pair["source"]
        first = code(answers.get((pair["pair_id"], "AB")))
        second = code(answers.get((pair["pair_id"], "BA")))
        by_source[pair["source"]].append((first, second, CODE[Verdict(label)]))
    everything = [vote for votes in by_source.values() for vote in votes]
    ours = judgebench_accuracy(everything)
    theirs = metrics.compute_final_metrics(published, True)
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert 0 < ours < 100
    for source, votes in by_source.items():
        expected = metrics.compute_final_metrics(
            published, True, include_fn=lambda p, s=source: p["source"] == s
        )
        assert judgebench_accuracy(votes) == pytest.approx(expected, abs=1e-12), source


@needs_mirror
def test_both_orders_land_as_one_judges_two_answers(tmp_path: Path) -> None:
    output = OUTPUTS[1]
    pair = records(output)[0]
    file = write_jsonl(tmp_path / "one.jsonl", [pair])
    project = new_project(tmp_path)
    assert tiebreak("import", project, file).returncode == 0
    answers = judge_rows(project)
    judgments = pair["judgments"]
    first = answers[(pair["pair_id"], "AB")]
    second = answers[(pair["pair_id"], "BA")]
    assert first["judge"] == second["judge"] == "arena_hard/o1-mini-2024-09-12"
    flip = {"A>B": "B", "B>A": "A", "A=B": "tie"}
    keep = {"A>B": "A", "B>A": "B", "A=B": "tie"}
    assert stored_verdict(first) == keep[judgments[0]["decision"]]
    assert stored_verdict(second) == flip[judgments[1]["decision"]]


@needs_mirror
def test_pairs_file_stores_gold_labels_only(tmp_path: Path) -> None:
    published = records(PAIRS)
    file = write_jsonl(tmp_path / "pairs.jsonl", published[:40])
    project = new_project(tmp_path)
    proc = tiebreak("import", project, file)
    assert proc.returncode == 0, proc.stderr
    assert judge_rows(project) == {}
    gold = gold_rows(project)
    assert {k: v[0] for k, v in gold.items()} == {
        p["pair_id"]: {"A>B": "A", "B>A": "B"}[p["label"]] for p in published[:40]
    }


@needs_mirror
def test_a_tie_label_is_refused_in_one_line(tmp_path: Path) -> None:
    pair = {**records(PAIRS)[0], "label": "A=B"}
    file = write_jsonl(tmp_path / "bad.jsonl", [pair])
    proc = tiebreak("import", new_project(tmp_path), file)
    assert proc.returncode != 0
    assert "field 'label' must be 'A>B' or 'B>A'" in proc.stderr
    assert "bad.jsonl" in proc.stderr
    assert "Traceback" not in proc.stderr


@needs_mirror
def test_pairs_and_two_judges_share_one_gold_label(tmp_path: Path) -> None:
    pairs = records(PAIRS)[:30]
    ids = {p["pair_id"] for p in pairs}
    project = new_project(tmp_path)
    files = [write_jsonl(tmp_path / "pairs.jsonl", pairs)]
    for i, output in enumerate(OUTPUTS):
        mine = [r for r in records(output) if r["pair_id"] in ids]
        files.append(write_jsonl(tmp_path / f"out{i}.jsonl", mine))
    for file in files:
        assert tiebreak("import", project, file).returncode == 0
    again = tiebreak("import", project, files[1])
    assert "nothing added" in again.stdout
    with open_project(project, readonly=True) as store:
        reviewers = store.conn.execute(
            "SELECT reviewer, count(*) FROM human_verdicts GROUP BY reviewer"
        ).fetchall()
        judges = store.conn.execute(
            "SELECT judge_model, ord, count(*) FROM judge_results GROUP BY 1, 2 ORDER BY 1, 2"
        ).fetchall()
        n_pairs = store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0]
    assert n_pairs == 30
    assert reviewers == [("judgebench", 30)]
    assert judges == [
        ("arena_hard/o1-mini-2024-09-12", "AB", 30),
        ("arena_hard/o1-mini-2024-09-12", "BA", 30),
        ("reward_model/Skywork/Skywork-Reward-Gemma-2-27B", "AB", 30),
        ("reward_model/Skywork/Skywork-Reward-Gemma-2-27B", "BA", 30),
    ]


@needs_mirror
def test_a_missing_judgment_is_a_parse_failure_counted_as_judgebench_does(
    tmp_path: Path,
) -> None:
    published = records(OUTPUTS[1])[:20]
    for pair in published[::3]:
        pair["judgments"] = [pair["judgments"][0], None]
    for pair in published[1::5]:
        pair["judgments"] = [{**pair["judgments"][0], "decision": None}, pair["judgments"][1]]
    project = new_project(tmp_path)
    proc = tiebreak("import", project, write_jsonl(tmp_path / "gaps.jsonl", published))
    assert proc.returncode == 0, proc.stderr
    answers, gold = judge_rows(project), gold_rows(project)
    failures = sum(row["status"] == "parse-failure" for row in answers.values())
    assert failures == len(published[::3]) + len(published[1::5])
    votes = [
        (
            code(answers.get((p["pair_id"], "AB"))),
            code(answers.get((p["pair_id"], "BA"))),
            CODE[Verdict(gold[p["pair_id"]][0])],
        )
        for p in published
    ]
    expected = reference_metrics().compute_final_metrics(published, True)
    assert judgebench_accuracy(votes) == pytest.approx(expected, abs=1e-12)


@needs_mirror
def test_judgments_given_as_text_read_as_the_list(tmp_path: Path) -> None:
    pairs = records(OUTPUTS[1])[:3]
    as_json = {**pairs[0], "judgments": json.dumps(pairs[0]["judgments"])}
    as_repr = {**pairs[1], "judgments": repr(pairs[1]["judgments"])}
    broken = {**pairs[2], "judgments": "[{'decision': "}
    project = new_project(tmp_path)
    ok = tiebreak("import", project, write_jsonl(tmp_path / "t.jsonl", [as_json, as_repr]))
    assert ok.returncode == 0, ok.stderr
    answers = judge_rows(project)
    for pair in pairs[:2]:
        decisions = [j["decision"] for j in pair["judgments"]]
        keep = {"A>B": "A", "B>A": "B", "A=B": "tie"}
        flip = {"A>B": "B", "B>A": "A", "A=B": "tie"}
        assert stored_verdict(answers[(pair["pair_id"], "AB")]) == keep[decisions[0]]
        assert stored_verdict(answers[(pair["pair_id"], "BA")]) == flip[decisions[1]]
    bad = tiebreak("import", project, write_jsonl(tmp_path / "b.jsonl", [broken]))
    assert bad.returncode != 0
    assert "field 'judgments' is not a list" in bad.stderr


@needs_mirror
def test_named_with_format(tmp_path: Path) -> None:
    file = write_jsonl(tmp_path / "pairs.jsonl", records(PAIRS)[:5])
    project = new_project(tmp_path)
    proc = tiebreak("import", project, file, "--format", "judgebench")
    assert proc.returncode == 0, proc.stderr
    assert "5 pairs added, 5 human verdicts added" in proc.stdout
