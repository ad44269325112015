"""The review queue on a real project: the most uncertain verdicts first."""

from __future__ import annotations

from pathlib import Path

from desktop.adapters.store import open_project
from desktop.domain.results import Status
from desktop.services.importing import import_file
from desktop.services.review_queue import queue_items, review_queue
from tests.helpers import new_project, write_jsonl
from tests.stats_helpers import add_rubric, judge, review

DIMS = ("precision", "overall")


def build(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    rows = [
        {"id": f"q{i}", "instruction": f"i{i}", "output_1": "a", "output_2": "b"}
        for i in range(1, 13)
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "q.jsonl", rows))
        add_rubric(store, "r", DIMS)
        judge(store, 1, status=Status.PARSE_FAILURE)
        judge(store, 2, precision="A", overall="A")  # overall flips when swapped
        judge(store, 2, order="BA", precision="A", overall="B")
        judge(store, 3, precision="A", overall="A")  # both dimensions flip
        judge(store, 3, order="BA", precision="B", overall="B")
        judge(store, 4, precision="A", overall="A", conf={"overall": 0.55})
        judge(store, 5, precision="A", overall="B", conf={"overall": 0.4})
        judge(store, 6, precision="A", overall="A")
        judge(store, 7, precision="B", overall="B")
        judge(store, 8, precision="A", overall="A", conf={"overall": 0.95})
        judge(store, 9, precision="B", overall="tie")
        # q10 is not judged
        judge(store, 11, status=Status.ERROR)
        judge(store, 12, status=Status.PARSE_FAILURE)
        for ref, precision, overall in [
            ("q6", "A", "B"),  # ann disagrees on overall
            ("q7", "B", "B"),  # ann agrees
            ("q12", "A", "A"),  # ann decided where the judge could not
        ]:
            review(store, ref, "precision", precision)
            review(store, ref, "overall", overall)
    return path


def test_order_and_reasons(tmp_path: Path) -> None:
    with open_project(build(tmp_path)) as store:
        items = queue_items(store, "r")
        ids = review_queue(store, "r")
    assert ids == [1, 3, 2, 5, 4, 6, 8, 9, 10, 11]
    reasons = {i.pair_id: (i.reason, i.dimensions) for i in items}
    assert reasons[1] == ("parse-failure", DIMS)
    assert reasons[3] == ("inconsistent", DIMS)
    assert reasons[2] == ("inconsistent", ("overall",))
    assert reasons[5] == ("low-confidence", ("overall",))
    assert reasons[6] == ("disagree", ("overall",))
    assert reasons[8][0] == reasons[9][0] == "unreviewed"
    assert reasons[10][0] == reasons[11][0] == "unjudged"
    assert next(i for i in items if i.pair_id == 5).confidence == 0.4


def test_fully_reviewed_pairs_can_be_kept(tmp_path: Path) -> None:
    with open_project(build(tmp_path)) as store:
        ids = review_queue(store, "r", include_reviewed=True)
    assert ids[-2:] == [7, 12]


def test_threshold(tmp_path: Path) -> None:
    with open_project(build(tmp_path)) as store:
        ids = review_queue(store, "r", low_confidence=0.5)
        items = {i.pair_id: i.reason for i in queue_items(store, "r", low_confidence=0.5)}
    assert items[4] == "unreviewed" and items[5] == "low-confidence"
    # the unreviewed come least confident first: q4 (.55), q8 (.95), then unknown
    assert ids[ids.index(6) + 1 :] == [4, 8, 9, 10, 11]


def test_a_second_reviewer_sees_the_first_ones_disagreements_first(tmp_path: Path) -> None:
    with open_project(build(tmp_path)) as store:
        review(store, "q8", "precision", "A", reviewer="bob")
        review(store, "q8", "overall", "A", reviewer="bob")
        items = {i.pair_id: i.reason for i in queue_items(store, "r", reviewer="bob")}
        ids = review_queue(store, "r", reviewer="bob")
    assert items[12] == "parse-failure"  # ann decided it, bob has not
    assert items[6] == "disagree" and items[7] == "unreviewed"
    assert 8 not in items  # bob agreed with the judge
    assert ids.index(6) < ids.index(7)


def test_queue_command(tmp_path: Path) -> None:
    from tests.helpers import tiebreak

    proc = tiebreak("queue", build(tmp_path), "--limit", "3")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "10 pairs in the queue, first 3:"
    assert "#1" in lines[1] and "parse-failure" in lines[1]
