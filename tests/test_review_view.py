"""What the review window reads for a pair and for the status bar: each reviewer's current
verdict counts, a withdrawal takes a verdict back, and "yours" is never another reviewer's."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.project import ProjectStore
from desktop.domain.verdicts import Verdict
from desktop.services.importing import import_file
from desktop.services.pair_list import counts, list_rows
from desktop.services.pair_verdicts import pair_verdicts
from tests.helpers import new_project, write_jsonl
from tests.stats_helpers import add_rubric, judge, review

DIMS = ("precision", "overall")


@pytest.fixture
def store(tmp_path: Path):
    path = new_project(tmp_path)
    rows = [
        {"id": f"q{i}", "instruction": f"i{i}", "response_a": "a", "response_b": f"b{i}"}
        for i in range(1, 4)
    ]
    with open_project(path) as s:
        import_file(s, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(s, "r", DIMS)
        yield s


def rows_for(store: ProjectStore, reviewer: str) -> dict[str, object]:
    return {r.external_id: r for r in list_rows(store, "r", "m", reviewer=reviewer)}


def test_a_withdrawn_verdict_no_longer_counts_as_reviewed(store: ProjectStore) -> None:
    review(store, "q1", "overall", "A", reviewer="ada")
    assert counts(store, "r", "m") == (3, 0, 1)
    review(store, "q1", "overall", None, reviewer="ada")
    assert counts(store, "r", "m") == (3, 0, 0)
    assert not rows_for(store, "ada")["q1"].reviewed


def test_another_reviewers_withdrawal_leaves_yours_standing(store: ProjectStore) -> None:
    review(store, "q1", "overall", "A", reviewer="ada")
    review(store, "q1", "overall", "B", reviewer="bob")
    review(store, "q1", "overall", None, reviewer="bob")  # bob takes his back
    assert counts(store, "r", "m") == (3, 0, 1)
    row = rows_for(store, "ada")["q1"]
    assert row.reviewed and row.mine
    view = pair_verdicts(store, 1, "r", "m", DIMS, "ada")
    assert view.dimensions["overall"].human is Verdict.A
    assert view.mine == {"overall": Verdict.A}
    assert view.others == {}


def test_yours_and_the_others_are_told_apart(store: ProjectStore) -> None:
    review(store, "q2", "overall", "B", reviewer="bob", note="B is right")
    review(store, "q2", "precision", "tie", reviewer="ada", note="both fine")
    view = pair_verdicts(store, 2, "r", "m", DIMS, "ada")
    assert view.mine == {"precision": Verdict.TIE}
    assert view.others == {"overall": ["bob"]}
    assert view.notes == {"precision": "both fine"}  # bob's note is his, not ada's
    assert view.dimensions["overall"].human is Verdict.B
    assert view.dimensions["overall"].final is Verdict.B
    carol = pair_verdicts(store, 2, "r", "m", DIMS, "carol")
    assert carol.mine == {} and carol.notes == {}
    assert carol.others == {"overall": ["bob"], "precision": ["ada"]}
    assert rows_for(store, "carol")["q2"].reviewed and not rows_for(store, "carol")["q2"].mine
    assert rows_for(store, "ada")["q2"].mine and not rows_for(store, "ada")["q1"].mine


def test_disagreement_is_with_the_reviewers_consensus(store: ProjectStore) -> None:
    judge(store, 3, precision="A", overall="A")
    review(store, "q3", "overall", "B", reviewer="ada")
    assert rows_for(store, "ada")["q3"].disagree
    review(store, "q3", "overall", "A", reviewer="bob")
    review(store, "q3", "overall", "A", reviewer="carol")  # two of three agree with the judge
    assert not rows_for(store, "ada")["q3"].disagree
    assert pair_verdicts(store, 3, "r", "m", DIMS, "ada").dimensions["overall"].final is (Verdict.A)
    review(store, "q3", "overall", None, reviewer="bob")  # one each way: a dispute, no label
    row = rows_for(store, "ada")["q3"]
    assert row.disputed and row.flagged and not row.disagree
    assert pair_verdicts(store, 3, "r", "m", DIMS, "ada").dimensions["overall"].final is None
    review(store, "q3", "overall", "B", reviewer="ada")
    assert rows_for(store, "ada")["q3"].disputed  # still one each way: ada B, carol A
    review(store, "q3", "overall", "B", reviewer="bob")  # two of three against the judge
    assert rows_for(store, "ada")["q3"].disagree
    assert not rows_for(store, "ada")["q3"].disputed


def test_rows_by_id_are_the_same_rows_in_one_query(store: ProjectStore) -> None:
    judge(store, 2, overall="A", precision="B")
    review(store, "q3", "overall", "B", reviewer="ada")
    everything = list_rows(store, "r", "m", reviewer="ada")
    by_id = list_rows(store, "r", "m", reviewer="ada", ids=[3, 2, 99], limit=3)
    assert by_id == [everything[1], everything[2]]  # id order; an unknown id is no row
    assert by_id[0].status == "ok" and by_id[1].reviewed


def test_a_running_job_refreshes_its_rows_in_chunks(tmp_path: Path) -> None:
    from desktop.services.app_settings import AppSettings
    from desktop.services.session import ReviewSession

    path = new_project(tmp_path)
    rows = [{"instruction": f"i{i}", "response_a": "a", "response_b": "b"} for i in range(1203)]
    with open_project(path) as s:
        import_file(s, write_jsonl(tmp_path / "pairs.jsonl", rows))
    session = ReviewSession.open(path, AppSettings(reviewer="ada"))
    try:
        got = session.list_rows_for(range(1203, 0, -1))
        assert [r.id for r in got] == list(range(1, 1204))
        assert session.list_rows_for([700]) == [got[699]]
    finally:
        session.close()
