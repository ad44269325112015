"""`stats` on real project files: every figure against values worked out by hand, reviewer
figures against the reference libraries, comparisons, and the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.domain import agreement as ag
from desktop.domain.errors import TiebreakError
from desktop.domain.results import Status
from desktop.domain.verdicts import Verdict
from desktop.services.compare import compare
from desktop.services.importing import import_file
from desktop.services.stats import compute_stats, rubric_stats
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.stats_helpers import add_rubric, judge, review

DIMS = ("precision", "overall")


def build(tmp_path: Path) -> Path:
    """Six pairs; p1-p3 in "qa", p4-p5 in "code", p6 without a category.

    overall, judge m: p1 A (both orders, conf .9/.8), p2 B then A when swapped (so tie,
    inconsistent), p3 tie, p4 A (conf .6), p5 a parse failure, p6 B.
    overall, reviewer ann: p1 A (blind), p2 B (gui), p3 A (gui), p4 A (cli), p6 A (blind).
    Lengths: A is longer in p1, B in p2 and p6, equal in p3, A shorter in p4.
    """
    path = new_project(tmp_path)
    lengths = {1: (20, 10), 2: (5, 12), 3: (7, 7), 4: (3, 9), 5: (4, 4), 6: (6, 30)}
    cats = {1: "qa", 2: "qa", 3: "qa", 4: "code", 5: "code"}
    rows = [
        {
            "id": f"p{i}",
            "instruction": f"question {i}",
            "output_1": "a" * la,
            "output_2": "b" * lb,
            **({"category": cats[i]} if i in cats else {}),
        }
        for i, (la, lb) in lengths.items()
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(store, "r", DIMS)
        judge(store, 1, precision="A", overall="A", conf={"overall": 0.9})
        judge(store, 1, order="BA", precision="A", overall="A", conf={"overall": 0.8})
        judge(store, 2, precision="A", overall="B")
        judge(store, 2, order="BA", precision="A", overall="A")
        judge(store, 3, precision="B", overall="tie")
        judge(store, 4, precision="B", overall="A", conf={"overall": 0.6})
        judge(store, 5, status=Status.PARSE_FAILURE)
        judge(store, 6, precision="A", overall="B")
        for ref, verdict, mode in [
            ("p1", "A", "blind"),
            ("p2", "B", "gui"),
            ("p3", "A", "gui"),
            ("p4", "A", "cli"),
            ("p6", "B", "blind"),
        ]:
            review(store, ref, "overall", verdict, mode=mode)
        review(store, "p6", "overall", "A", mode="blind")  # changed their mind: A counts
        review(store, "p1", "precision", "B", mode="blind")
        review(store, "p3", "precision", "B", mode="gui")
        review(store, "p3", "precision", None, mode="gui")  # withdrawn: not counted
    return path


def dim(section, name):
    return next(d for d in section.dimensions if d.dimension == name)


def test_overall_figures_by_hand(tmp_path: Path) -> None:
    with open_project(build(tmp_path)) as store:
        stats = rubric_stats(store, "r")
    assert (stats.rubric, stats.judge_model, stats.dimensions) == ("r", "m", DIMS)
    s = stats.overall
    assert (s.pairs, s.judged, s.reviewed) == (6, 6, 5)
    # answers: six AB and two BA; one parse failure
    assert (s.answers, s.parse_failures, s.errors) == (8, 1, 0)
    assert s.parse_failure_rate == pytest.approx(1 / 8)

    o = dim(s, "overall")
    # judge: A (p1, p4), B (p6), tie (p2 inconsistent, p3) -> (2 + 1) / 5
    assert (o.judge_win.n, o.judge_win.a, o.judge_win.b, o.judge_win.tie) == (5, 2, 1, 2)
    assert o.judge_win.rate == pytest.approx(0.4)  # B's share
    assert o.judge_win.low < 0.4 < o.judge_win.high
    assert (o.swap_checked, o.swap_consistency) == (2, 0.5)
    # decisive judge verdicts with unequal lengths: p1 A longer, p4 A shorter, p6 B longer
    assert (o.judge_longer, o.judge_longer_n) == (pytest.approx(2 / 3), 3)
    # human: p1 A longer, p2 B longer, p4 A shorter, p6 A shorter (p3 equal lengths)
    assert (o.human_longer, o.human_longer_n) == (0.5, 4)
    assert (o.human_win.a, o.human_win.b, o.human_win.tie) == (4, 1, 0)

    h = o.vs_human
    # (A,A) p1 p4; (B,A) p6; (tie,B) p2; (tie,A) p3
    assert h.confusion == [[2, 0, 0], [1, 0, 0], [1, 1, 0]]
    assert h.n == 5
    assert h.agreement == pytest.approx(2 / 5)
    assert h.agreement_tie_half == pytest.approx(3 / 5)
    assert (h.agreement_no_ties, h.n_no_ties) == (pytest.approx(2 / 3), 3)
    # rows 2, 1, 2; columns 4, 1, 0: p_e = 9/25, p_o = 10/25 -> (1/25) / (16/25)
    assert h.kappa == pytest.approx(1 / 16)
    assert set(o.by_mode) == {"blind", "gui", "cli"}
    assert (o.by_mode["blind"].n, o.by_mode["blind"].agreement) == (2, 0.5)
    assert (o.by_mode["gui"].n, o.by_mode["gui"].agreement) == (2, 0.0)
    assert (o.by_mode["cli"].n, o.by_mode["cli"].agreement) == (1, 1.0)
    assert o.reviewers is None  # one reviewer per pair

    p = dim(s, "precision")
    assert p.vs_human.confusion == [[0, 1, 0], [0, 0, 0], [0, 0, 0]]  # p3 was withdrawn
    assert (p.swap_checked, p.swap_consistency) == (2, 1.0)


def test_category_sections(tmp_path: Path) -> None:
    with open_project(build(tmp_path)) as store:
        stats = rubric_stats(store, "r")
    assert [c.name for c in stats.categories] == ["code", "qa"]
    code, qa = stats.categories
    assert (code.pairs, code.answers, code.parse_failures) == (2, 2, 1)
    assert code.parse_failure_rate == 0.5
    assert dim(code, "overall").vs_human.confusion == [[1, 0, 0], [0, 0, 0], [0, 0, 0]]
    assert (qa.pairs, qa.parse_failures) == (3, 0)
    assert dim(qa, "overall").vs_human.agreement == pytest.approx(1 / 3)
    assert dim(qa, "overall").judge_win.rate == pytest.approx(1 / 3)  # A, tie, tie: B's share


def test_seeded_intervals_repeat(tmp_path: Path) -> None:
    path = build(tmp_path)
    with open_project(path) as store:
        one = rubric_stats(store, "r", seed=5)
        two = rubric_stats(store, "r", seed=5)
        other = rubric_stats(store, "r", seed=6)
    w1, w2, w3 = (dim(x.overall, "overall").judge_win for x in (one, two, other))
    assert (w1.low, w1.high) == (w2.low, w2.high)
    assert w1.rate == w3.rate


def test_unknown_rubric_or_judge_is_one_line(tmp_path: Path) -> None:
    with open_project(build(tmp_path)) as store:
        with pytest.raises(TiebreakError, match="no verdicts for rubric 'nope'"):
            compute_stats(store, "nope")
        with pytest.raises(TiebreakError, match="judge 'gpt' has no answers"):
            compute_stats(store, "r", "gpt")
        assert [s.rubric for s in compute_stats(store)] == ["r"]


HREF_ANNOTATIONS = [
    ["A", "A", "A", "B"],
    ["A", "B", "B", "B"],
    ["A", "A", "B", "B"],
    ["B", "B", "B", "B"],
    ["A", "A", "A", "A"],
    ["A", "B", "tie", "A"],
]


def test_several_reviewers_per_pair(tmp_path: Path) -> None:
    """HREF-style rows: four annotations per pair become four reviewers' verdicts."""
    path = new_project(tmp_path)
    rows = [
        {
            "id": f"h{i}",
            "instruction": f"q{i}",
            "output_1": f"a{i}",
            "output_2": f"bb{i}",
            "category": "Open QA",
            "annotations": anns,
        }
        for i, anns in enumerate(HREF_ANNOTATIONS, start=1)
    ]
    judge_says = ["A", "B", "A", "B", "B", "A"]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "href.jsonl", rows))
        add_rubric(store, "href-overall", ("overall",))
        for pid, verdict in enumerate(judge_says, start=1):
            judge(store, pid, rubric="href-overall", overall=verdict)
        stats = rubric_stats(store, "href-overall")
    o = dim(stats.overall, "overall")
    r = o.reviewers
    assert r is not None
    assert r.reviewers == ["annotator-1", "annotator-2", "annotator-3", "annotator-4"]
    assert (r.pairs, r.verdicts, r.cohen_kappa) == (6, 24, None)
    counts = [ag.counts_of(Verdict(a) for a in anns) for anns in HREF_ANNOTATIONS]
    # per pair: 3/4, 3/4, 0, 1, 1, and A A B tie -> 1/6
    assert r.loo_agreement == pytest.approx((0.75 + 0.75 + 0 + 1 + 1 + 1 / 6) / 6)
    # judge: A vs A A A B -> 1; B vs A B B B -> 1; A vs A A B B -> 1/2; B vs B B B B -> 1;
    # B vs A A A A -> 0; A vs A B tie A: leave out an A -> 1/3 each, B or tie -> A
    assert r.judge_loo_agreement == pytest.approx((1 + 1 + 0.5 + 1 + 0 + (2 / 3 + 2) / 4) / 6)
    assert r.judge_loo_pairs == 6
    np = pytest.importorskip("numpy")
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    krippendorff = pytest.importorskip("krippendorff")
    assert r.fleiss_kappa == pytest.approx(inter_rater.fleiss_kappa(np.array(counts)))
    assert r.krippendorff_alpha == pytest.approx(
        krippendorff.alpha(value_counts=np.array(counts), level_of_measurement="nominal")
    )
    # the human verdict against the judge is the majority; A A B B has none: a dispute,
    # left out (before, the latest given won it)
    assert o.vs_human.n == 5
    assert stats.overall.disputed == 1
    assert set(o.by_mode) == {"imported"}
    assert [c.name for c in stats.categories] == ["Open QA"]


def test_two_reviewers_get_cohens_kappa(tmp_path: Path) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    path = build(tmp_path)
    bob = {"p1": "A", "p2": "A", "p3": "A", "p4": "B", "p6": "tie"}
    with open_project(path) as store:
        for ref, verdict in bob.items():
            review(store, ref, "overall", verdict, reviewer="bob", mode="blind")
        o = dim(rubric_stats(store, "r").overall, "overall")
    ann = {"p1": "A", "p2": "B", "p3": "A", "p4": "A", "p6": "A"}
    r = o.reviewers
    assert r is not None and r.reviewers == ["ann", "bob"] and r.pairs == 5
    expected = metrics.cohen_kappa_score(
        [ann[k] for k in bob], [bob[k] for k in bob], labels=["A", "B", "tie"]
    )
    assert r.cohen_kappa == pytest.approx(expected)
    # ann and bob on p1..p6: A/A, B/A, A/A, A/B, A/tie -> 2 of 5 agree
    assert ag.percent_agreement(
        ag.confusion((Verdict(ann[k]), Verdict(bob[k])) for k in bob)
    ) == pytest.approx(2 / 5)
    assert o.by_mode["blind"].n == 2 + 5  # ann's two blind verdicts and all five of bob's


def test_compare_two_judges_and_two_rubrics(tmp_path: Path) -> None:
    path = build(tmp_path)
    with open_project(path) as store:
        judge(store, 1, model="m2", precision="A", overall="B")
        judge(store, 2, model="m2", precision="A", overall="tie")
        judge(store, 3, model="m2", precision="A", overall="tie")
        judge(store, 6, model="m2", precision="A", overall="B")
        c = compare(store, "r", "m", other_model="m2")
        add_rubric(store, "single", ("overall",))
        judge(store, 1, rubric="single", overall="A")
        judge(store, 4, rubric="single", overall="B")
        r = compare(store, "r", "m", other_rubric="single")
        with pytest.raises(TiebreakError, match="another rubric or another judge"):
            compare(store, "r", "m")
    assert (c.left.judge_model, c.right.judge_model) == ("m", "m2")
    by_dim = {d.dimension: d for d in c.dimensions}
    # overall on p1, p2, p3, p6: A->B flips, tie->tie, tie->tie, B->B
    assert (by_dim["overall"].both, by_dim["overall"].flips, by_dim["overall"].reversals) == (
        4,
        1,
        1,
    )
    # precision: A->A, A->A, B->A, A->A
    assert (by_dim["precision"].both, by_dim["precision"].flips) == (4, 1)
    assert {(f.pair_id, f.dimension, f.left, f.right) for f in c.flips} == {
        (1, "overall", "A", "B"),
        (3, "precision", "B", "A"),
    }
    assert [d.dimension for d in r.dimensions] == ["overall"]
    assert (r.right.rubric, r.right.judge_model) == ("single", "m")
    assert [(f.pair_id, f.left, f.right) for f in r.flips] == [(4, "A", "B")]
    assert r.dimensions[0].agreement.confusion == [[1, 1, 0], [0, 0, 0], [0, 0, 0]]


def test_stats_command(tmp_path: Path) -> None:
    path = build(tmp_path)
    proc = tiebreak("stats", path, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["labels"] == ["A", "B", "tie"]
    (r,) = data["rubrics"]
    overall = next(d for d in r["overall"]["dimensions"] if d["dimension"] == "overall")
    assert overall["vs_human"]["confusion"] == [[2, 0, 0], [1, 0, 0], [1, 1, 0]]
    assert math.isclose(overall["vs_human"]["kappa"], 1 / 16)
    assert overall["by_mode"]["blind"]["n"] == 2
    plain = tiebreak("stats", path, "--rubric", "r")
    assert plain.returncode == 0, plain.stderr
    assert "rubric r · judge m · 6 pairs" in plain.stdout
    assert "parse failures 1 (12.5%)" in plain.stdout
    assert "by mode of the human verdict: blind 2" in plain.stdout
    assert "qa" in plain.stdout and "code" in plain.stdout
    with open_project(path) as store:
        judge(store, 1, model="m2", precision="A", overall="B")
    flips = tiebreak("stats", path, "--judge-model", "m", "--compare-model", "m2")
    assert flips.returncode == 0, flips.stderr
    assert "#1 (p1)" in flips.stdout and "A → B" in flips.stdout
    as_json = json.loads(tiebreak("stats", path, "--compare-model", "m2", "--json").stdout)
    # the left side defaults to the latest judge other than the one compared with
    assert (as_json["left"]["judge_model"], as_json["right"]["judge_model"]) == ("m", "m2")
    assert as_json["flips"][0]["pair_id"] == 1
    bad = tiebreak("stats", path, "--rubric", "nope")
    assert bad.returncode == 1 and "no verdicts for rubric 'nope'" in bad.stderr


def test_alpaca_file_figures(tmp_path: Path, alpaca_file: Path) -> None:
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, alpaca_file)
        stats = rubric_stats(store, "alpaca-eval")
    o = dim(stats.overall, "overall")
    assert (o.judge_win.a, o.judge_win.b, o.judge_win.tie) == (469, 328, 8)
    assert o.judge_win.rate == pytest.approx((328 + 4) / 805)  # B's share
    # a 95% interval for a share near 0.59 of 805 is about ±3.4 points
    assert o.judge_win.high - o.judge_win.low == pytest.approx(2 * 1.96 * 0.0173, abs=0.006)
    assert o.vs_human.n == 0 and o.vs_human.kappa is None
    assert {c.name for c in stats.categories} == {
        "helpful_base",
        "koala",
        "oasst",
        "selfinstruct",
        "vicuna",
    }
    assert sum(c.pairs for c in stats.categories) == 805
