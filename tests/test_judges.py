"""`tiebreak judges`: which judges a project holds answers from, and `stats` saying which
judge it used and how to pick another."""

from __future__ import annotations

import json
from pathlib import Path

from desktop.adapters.store import open_project
from desktop.domain.results import Status
from desktop.services.importing import import_file
from desktop.services.judges import judge_choices, judge_names
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.stats_helpers import add_rubric, judge


def build(tmp_path: Path) -> Path:
    """Three pairs with an imported annotator (rubric alpaca-eval) and, for rubric r, judge
    "cli" (p1 ok in both orders, p2 a parse failure, p3 an error), then judge "local"
    (p1 ok): "local" has the most recent answers for r."""
    path = new_project(tmp_path)
    rows = [
        {"id": f"p{i}", "instruction": f"q{i}", "output_1": "a", "output_2": "b", "preference": p}
        for i, p in ((1, 2), (2, 1.2), (3, 0))
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "alpaca.jsonl", rows))
        add_rubric(store, "r", ("overall",))
        judge(store, 1, model="cli", overall="A")
        judge(store, 1, model="cli", order="BA", overall="A")
        judge(store, 2, model="cli", status=Status.PARSE_FAILURE)
        judge(store, 3, model="cli", status=Status.ERROR)
        judge(store, 1, model="local", overall="B")
    return path


def test_judges_command_lists_rubric_by_judge(tmp_path: Path) -> None:
    path = build(tmp_path)
    proc = tiebreak("judges", path, "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    keys = ("rubric", "judge", "pairs", "answers", "ok", "parse_failures", "errors", "origins")
    got = [tuple(r[k] for k in keys) for r in rows]
    assert got == [
        ("alpaca-eval", "annotator", 3, 3, 3, 0, 0, ["import"]),
        ("r", "local", 1, 1, 1, 0, 0, ["model"]),  # the most recent answers first
        ("r", "cli", 3, 4, 2, 1, 1, ["model"]),
    ]
    assert all(r["first_answer"] <= r["last_answer"] for r in rows)
    assert rows[0]["first_answer"][:4].isdigit() and "T" in rows[0]["first_answer"]
    plain = tiebreak("judges", path)
    assert plain.returncode == 0, plain.stderr
    head, *lines = plain.stdout.splitlines()
    assert head.split()[:4] == ["rubric", "judge", "pairs", "answers"]
    assert lines[2].split()[:7] == ["r", "cli", "3", "4", "2", "1", "1"]


def test_judges_of_an_empty_project(tmp_path: Path) -> None:
    proc = tiebreak("judges", new_project(tmp_path))
    assert proc.returncode == 0 and "no judge answers yet" in proc.stdout


def test_stats_names_its_judge_and_how_to_pick_another(tmp_path: Path) -> None:
    path = build(tmp_path)
    proc = tiebreak("stats", path, "--rubric", "r")
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()[:2]
    assert first.startswith("rubric r · judge local · 3 pairs")
    assert "the latest of 2 judges" in second and "(also: cli)" in second
    assert "--judge-model NAME" in second and "tiebreak judges" in second
    chosen = tiebreak("stats", path, "--rubric", "r", "--judge-model", "cli")
    assert chosen.stdout.startswith("rubric r · judge cli · 3 pairs")
    alone = tiebreak("stats", path, "--rubric", "alpaca-eval").stdout.splitlines()
    assert alone[0].startswith("rubric alpaca-eval · judge annotator")
    assert "judges with answers" not in alone[1]


def test_the_pickers_lists_come_from_the_index(tmp_path: Path) -> None:
    with open_project(build(tmp_path), readonly=True) as store:
        names = judge_names(store, "r")
        counted = judge_choices(store, "r")
        plan = store.conn.execute(
            "EXPLAIN QUERY PLAN SELECT max(id) FROM judge_results"
            " WHERE rubric_name = 'r' AND judge_model = 'cli'"
        ).fetchall()
    assert [(c.judge, c.pairs) for c in names] == [("local", None), ("cli", None)]
    # cli: p3 has nothing but an error, so it is not counted as judged
    assert [(c.judge, c.pairs) for c in counted] == [("local", 1), ("cli", 2)]
    assert "COVERING INDEX judge_results_recent" in str(plan)


def test_rubrics_are_found_by_index_in_the_order_they_were_first_used(tmp_path: Path) -> None:
    """rubric_names seeks along the index; it must list what grouping every row lists."""
    from desktop.adapters.store.rubrics import rubric_names
    from tests.stats_helpers import review

    path = build(tmp_path)  # alpaca-eval first, then r
    with open_project(path) as store:
        add_rubric(store, "later", ("overall",))
        add_rubric(store, "reviewed-only", ("precision", "overall"))
        judge(store, 2, rubric="later", model="zz")
        judge(store, 1, rubric="later", model="aa")  # a judge named first, used last
        judge(store, 3, rubric="r", model="newer")  # r is no younger for a new judge
        review(store, "p1", "overall", "A", rubric="reviewed-only")
        reference = [
            r[0]
            for r in store.conn.execute(
                "SELECT name FROM ("
                " SELECT rubric_name AS name, min(id) AS first FROM judge_results"
                " GROUP BY rubric_name UNION ALL"
                " SELECT rubric_name, min(id) + 1e12 FROM human_verdicts GROUP BY rubric_name"
                ") GROUP BY name ORDER BY min(first)"
            )
        ]
        assert rubric_names(store) == reference
    assert reference == ["alpaca-eval", "r", "later", "reviewed-only"]
