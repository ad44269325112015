"""The one reader of a pair and its verdicts (``pair_reader``) and the rules over what it
reads (``PairView``), on a real project: what each consumer asks for is what it gets,
named, and the same pair reads the same way whichever consumer asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pair_reader import (
    EVERY_FIELD,
    FIGURE_COLUMNS,
    LIST_COLUMNS,
    PairQuery,
    read_pair,
    read_pairs,
)
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.search_index import text_search
from desktop.domain.judge_policy import SingleJudge
from desktop.domain.jury import Majority, MeanScore
from desktop.domain.pair_view import PairView
from desktop.domain.results import Status
from desktop.domain.verdicts import Verdict
from desktop.services.importing import import_file
from desktop.services.pair_list import list_rows
from desktop.services.pair_verdicts import pair_verdicts
from desktop.services.review_queue import queue_items
from desktop.services.stats import rubric_stats
from tests.helpers import export_rows, new_project, write_jsonl
from tests.stats_helpers import add_rubric, judge, review

DIMS = ("precision", "overall")


@pytest.fixture
def store(tmp_path: Path):
    rows = [
        {
            "id": f"q{i}",
            "instruction": f"question {i}",
            "response_a": "a" * i,
            "response_b": "bb" * i,
            "model_a": "base",
            "model_b": f"gen{i % 2}",
            "category": "math" if i % 2 else "facts",
            "topic": f"t{i}",  # not a pair field: kept as metadata
        }
        for i in range(1, 5)
    ]
    with open_project(new_project(tmp_path)) as s:
        import_file(s, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(s, "r", DIMS)
        yield s


def test_each_consumer_reads_the_columns_it_names(store: ProjectStore) -> None:
    listed = next(read_pairs(store, PairQuery("r", ("m",), LIST_COLUMNS)))
    assert listed.fields._asdict() == {"id": 1, "external_id": "q1", "category": "math"}
    with pytest.raises(AttributeError, match="model_a"):
        _ = listed.model_a  # not asked for: an error naming it, never a silent None
    figures = read_pair(store, PairQuery("r", (), FIGURE_COLUMNS), 3)
    assert figures is not None
    assert (figures.len_a, figures.len_b, figures.model_a, figures.model_b) == (
        3,
        6,
        "base",
        "gen1",
    )
    every = read_pair(store, PairQuery(None, columns=(*EVERY_FIELD, "metadata")), 2)
    stored = read_pair(store, PairQuery(None, columns=(*EVERY_FIELD, "metadata_text")), 2)
    assert every is not None and stored is not None
    assert every.fields.metadata == {"topic": "t2"}  # decoded once, in the store
    assert stored.fields.metadata_text == '{"topic": "t2"}'  # as stored, for a CSV cell
    assert every.fields.instruction == "question 2" and every.answers == every.reviews == ()
    with pytest.raises(ValueError, match="unknown"):
        PairQuery("r", columns=("id", "no_such_column"))


def test_one_pair_a_set_a_page_a_search_and_the_whole_project(store: ProjectStore) -> None:
    query = PairQuery("r", ("m",))
    assert [r.id for r in read_pairs(store, query)] == [1, 2, 3, 4]
    assert [r.id for r in read_pairs(store, query, after_id=2)] == [3, 4]
    assert [r.id for r in read_pairs(store, query, ids=[4, 1, 99])] == [1, 4]
    assert [r.id for r in read_pairs(store, query, where=text_search("question 3"))] == [3]
    assert [r.id for r in read_pairs(store, query, where=text_search("q2"))] == [2]  # its id
    assert [r.id for r in read_pairs(store, query, where=text_search("%"))] == []  # literal
    assert read_pair(store, query, 99) is None


def test_every_judge_asked_for_comes_with_its_latest_answer_per_order(store):
    judge(store, 1, model="m", overall="A", precision="B", conf={"overall": 0.9})
    judge(store, 1, model="m", order="BA", overall="A", precision="A")
    judge(store, 1, model="other", overall="B")
    judge(store, 1, model="other", overall="tie")  # judged again: the newer one counts
    judge(store, 1, model="unasked", overall="A")
    record = read_pair(store, PairQuery("r", ("m", "other"), detail=True), 1)
    assert record is not None
    got = {(a.judge, a.order): (a.status, dict(a.verdicts)) for a in record.answers}
    assert got == {
        ("m", "AB"): ("ok", {"overall": Verdict.A, "precision": Verdict.B}),
        ("m", "BA"): ("ok", {"overall": Verdict.A, "precision": Verdict.A}),
        ("other", "AB"): ("ok", {"overall": Verdict.TIE}),
    }
    ab = record.answer("m", "AB")
    assert ab is not None and ab.confidence == {"overall": 0.9} and ab.raw_completion == "raw"
    view = PairView(record, SingleJudge("m"))
    assert view.judge("overall") == (Verdict.A, 0.9, True)
    assert view.judge("precision") == (Verdict.TIE, None, False)  # the orders disagree
    assert view.inconsistent and view.status == "ok" and view.judged
    assert PairView(record, SingleJudge("other")).judge("overall").verdict is Verdict.TIE


def test_reviewers_current_verdicts_with_their_notes_and_modes(store: ProjectStore) -> None:
    odd = "ann|:\x1e\x1f\"'"  # the characters the old packed strings split on
    review(store, "q1", "overall", "A", reviewer=odd, note="line one\nline two\x1e")
    review(store, "q1", "overall", "B", reviewer="abe", mode="blind")
    review(store, "q1", "precision", "tie", reviewer="abe")
    review(store, "q1", "precision", None, reviewer="abe", note="not sure")  # withdrawn
    record = read_pair(store, PairQuery("r"), 1)
    assert record is not None
    assert [(r.dimension, r.reviewer, r.verdict, r.mode, r.note) for r in record.reviews] == [
        ("overall", odd, Verdict.A, "gui", "line one\nline two\x1e"),
        ("overall", "abe", Verdict.B, "blind", None),
        ("precision", "abe", None, "gui", "not sure"),
    ]
    assert all(r.created_at[:4].isdigit() for r in record.reviews)
    mine = PairView(record, reviewer=odd)
    assert mine.mine and mine.reviewed and mine.my_verdicts() == {"overall": Verdict.A}
    assert mine.my_notes() == {"overall": "line one\nline two\x1e"}
    assert mine.others() == {"overall": ["abe"]}
    # one each way: a dispute, no label (before, the latest given led)
    assert mine.human("overall") is None and mine.disputes() == ["overall"]
    assert mine.human("precision") is None  # a withdrawal no longer counts
    assert PairView(record, reviewer="abe").my_notes() == {"precision": "not sure"}
    row = list_rows(store, "r", "m", reviewer=odd)[0]
    assert (row.reviewed, row.mine) == (True, True)


def test_an_error_is_no_answer_and_the_worst_status_shows(store: ProjectStore) -> None:
    judge(store, 2, status=Status.ERROR)
    judge(store, 3, overall="A")
    judge(store, 3, order="BA", status=Status.PARSE_FAILURE)
    views = {r.id: PairView(r, SingleJudge("m")) for r in read_pairs(store, PairQuery("r", ("m",)))}
    assert [(v.judged, v.status) for v in views.values()] == [
        (False, ""),
        (False, "error"),
        (True, "parse-failure"),
        (False, ""),
    ]
    assert views[3].flagged and not views[1].flagged


def test_a_jury_is_one_more_judge_to_every_reader(store: ProjectStore, tmp_path: Path) -> None:
    for model, verdict in (("a", "A"), ("b", "A"), ("c", "B")):
        judge(store, 1, model=model, overall=verdict, precision="tie")
    judge(store, 2, model="a", overall="A")
    judge(store, 2, model="b", overall="B")  # split evenly: a tie
    jury = Majority(("a", "b", "c"))
    shown = pair_verdicts(store, 1, "r", jury, DIMS).dimensions["overall"]
    assert (shown.judge, shown.confidence) == (Verdict.A, pytest.approx(2 / 3))
    assert pair_verdicts(store, 2, "r", jury, DIMS).dimensions["overall"].judge is Verdict.TIE
    review(store, "q1", "overall", "B")
    rows = {r.id: r for r in list_rows(store, "r", jury)}
    assert rows[1].disagree and rows[1].judged and not rows[3].judged
    mean = pair_verdicts(store, 1, "r", MeanScore(("a", "b", "c")), DIMS).dimensions
    assert mean["overall"].judge is Verdict.A  # (0 + 0 + 1) / 3 is under one half
    assert mean["precision"].judge is Verdict.TIE
    figures = rubric_stats(store, "r", jury, resamples=10)
    assert figures.judge_model == "majority of a, b, c" and figures.other_judges == []
    overall = figures.overall.dimensions[1]
    assert (overall.dimension, overall.judge_win.n, overall.judge_win.tie) == ("overall", 2, 1)
    assert [i.pair_id for i in queue_items(store, "r", jury)][:2] == [2, 1]  # split first
    rows = export_rows(store.path, tmp_path / "out.csv", rubric="r", judge_model=jury)
    assert [(r["judge_model"], r["overall_model"]) for r in rows[:2]] == [
        ("majority of a, b, c", "A"),
        ("majority of a, b, c", "tie"),
    ]
