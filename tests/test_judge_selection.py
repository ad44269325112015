"""The judge-selection table: each tie rule by hand, kappa and pi against statsmodels, the
paired bootstrap's marks."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa

from desktop.domain import judge_selection as js
from desktop.domain.errors import TiebreakError

A, B, T, F, E, M = js.A, js.B, js.TIE, js.PARSE_FAILURE, js.ERROR, js.MISSING


def one_row(ref: list[int], c: js.Configuration, **kw: object) -> js.Row:
    return js.selection_table(np.array(ref, dtype=np.int8), [c], rounds=50, **kw).rows[0]  # type: ignore[arg-type]


def test_judgebench_rule_one_right_one_wrong_is_wrong() -> None:
    # Pairs: (right, right), (right, wrong), (right, tie), (wrong, tie), (right, failure).
    ref = [A, A, B, B, A]
    c = js.configuration("j", js.OrderUse.AVERAGED, [A, A, B, T, A], [A, B, T, A, F])
    row = one_row(ref, c)
    assert row.judgebench.value == pytest.approx(3 / 5)
    # The first order alone: its vote equals the label on 4 of 5 (the tie is wrong).
    single = js.configuration("j", js.OrderUse.ONE, [A, A, B, T, A])
    assert one_row(ref, single).judgebench.value == pytest.approx(4 / 5)
    single2 = js.configuration("j", js.OrderUse.ONE, [A, B, T, T, F])
    assert one_row(ref, single2).judgebench.value == pytest.approx(1 / 5)


def test_order_uses_and_rewardbench_half_for_tie_and_failure() -> None:
    ref = [A, A, B, B, A]
    first = [A, A, B, A, F]
    second = [A, B, B, A, A]
    conservative = js.verdict_of(js.OrderUse.CONSERVATIVE, np.int8(first), np.int8(second))
    assert conservative.tolist() == [A, T, B, A, A]
    # RewardBench on the conservative verdicts: 1 + 0.5 + 1 + 0 + 1.
    c = js.configuration("j", js.OrderUse.CONSERVATIVE, first, second)
    assert one_row(ref, c).rewardbench.value == pytest.approx(3.5 / 5)
    single = js.configuration("j", js.OrderUse.ONE, [A, T, B, A, E])
    # 1 + 0.5 + 1 + 0 + 0.5 (an error scores half too).
    assert one_row(ref, single).rewardbench.value == pytest.approx(3 / 5)
    averaged = js.verdict_of(js.OrderUse.AVERAGED, np.int8([A, A, T]), np.int8([T, B, B]))
    assert averaged.tolist() == [A, T, B]


def test_mtbench_without_ties_leaves_out_ties_on_either_side() -> None:
    ref = [A, T, B, B, A, A]
    c = js.configuration("j", js.OrderUse.ONE, [A, A, T, A, B, F])
    row = one_row(ref, c)
    # Counted: pairs 0 (right), 3 (wrong), 4 (wrong): 1 of 3.
    assert row.mtbench_pairs == 3
    assert row.mtbench.value == pytest.approx(1 / 3)
    # JudgeBench and RewardBench leave out the tie reference: 5 pairs.
    assert row.judgebench.value == pytest.approx(1 / 5)


def test_kappa_and_pi_equal_statsmodels() -> None:
    rng = np.random.default_rng(3)
    ref = rng.integers(0, 3, 400).astype(np.int8)
    votes = np.where(rng.random(400) < 0.6, ref, rng.integers(0, 3, 400)).astype(np.int8)
    votes[:7] = F
    row = one_row(ref.tolist(), js.configuration("j", js.OrderUse.ONE, votes.tolist()))
    ok = votes >= 0
    table = np.zeros((3, 3))
    np.add.at(table, (ref[ok], votes[ok]), 1)
    assert row.kappa.value == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
    counts = np.zeros((int(ok.sum()), 3))
    np.add.at(counts, (np.arange(ok.sum()), ref[ok]), 1)
    np.add.at(counts, (np.arange(ok.sum()), votes[ok]), 1)
    assert row.pi.value == pytest.approx(fleiss_kappa(counts, method="fleiss"), abs=1e-12)


def test_position_consistency_prefer_first_shares_and_cost() -> None:
    ref = [A, A, B, B]
    c = js.configuration(
        "j",
        js.OrderUse.CONSERVATIVE,
        [A, A, A, F],
        [A, B, B, E],  # swapped order, flipped back: B here means the first shown
        tokens_in=np.array([1000.0, 1000, 1000, 1000]),
        tokens_out=np.array([100.0, 100, 100, 100]),
        seconds=np.array([1.0, 2, 3, 2]),
        price_in=2.0,
        price_out=10.0,
    )
    row = one_row(ref, c)
    assert row.consistency == pytest.approx(1 / 3)
    # Decisive votes: A A A (first shown 3) and A B B (first shown 2): 5 of 6.
    assert row.prefer_first == pytest.approx(5 / 6)
    assert row.parse_failure_share == pytest.approx(1 / 8)
    assert row.error_share == pytest.approx(1 / 8)
    assert row.seconds_per_pair == pytest.approx(2.0)
    assert row.tokens_per_pair == pytest.approx(1100.0)
    assert row.cost_per_pair == pytest.approx((1000 * 2 + 100 * 10) / 1e6)


def test_paired_bootstrap_marks_best_and_indistinguishable_rows() -> None:
    rng = np.random.default_rng(5)
    n = 2000
    ref = rng.integers(0, 2, n).astype(np.int8)

    def judge(acc: float) -> list[int]:
        return np.where(rng.random(n) < acc, ref, 1 - ref).tolist()

    good = js.configuration("good", js.OrderUse.ONE, judge(0.85))
    same = js.configuration("same", js.OrderUse.ONE, good.first.tolist())
    near = js.configuration("near", js.OrderUse.ONE, judge(0.845))
    poor = js.configuration("poor", js.OrderUse.ONE, judge(0.6))
    table = js.selection_table(ref, [poor, good, near, same], rounds=400, seed=7)
    rows = {r.name: r for r in table.rows}
    assert sum(r.best for r in table.rows) == 1
    assert rows["good"].best or rows["same"].best
    assert rows["same"].near_best and rows["good"].near_best and rows["near"].near_best
    assert not rows["poor"].near_best
    assert rows["poor"].difference.high is not None and rows["poor"].difference.high < 0
    # Identical votes: the difference is 0 on every resample.
    other = rows["same"] if rows["good"].best else rows["good"]
    assert (other.difference.low, other.difference.high) == (0.0, 0.0)
    # Seeded: the same table again.
    again = js.selection_table(ref, [poor, good, near, same], rounds=400, seed=7)
    assert again.rows == table.rows
    poor_jb = rows["poor"].judgebench
    assert poor_jb.low is not None and poor_jb.high is not None and poor_jb.value is not None
    assert poor_jb.low < poor_jb.value < poor_jb.high


def test_bad_input_is_one_line() -> None:
    c = js.configuration("j", js.OrderUse.ONE, [A])
    with pytest.raises(TiebreakError, match="alpha"):
        js.selection_table(np.int8([A]), [c], alpha=1.5)
    with pytest.raises(TiebreakError, match="reference"):
        js.selection_table(np.int8([M]), [c])


def _judgebench_counter(label: str, decisions: list[str | None]) -> bool:
    """JudgeBench's ``compute_final_metrics`` (reverse_order) for one pair, written out:
    decisions in the pair's frame, +1 for the label, -1 for its flip, right when above 0."""
    flipped = {"A>B": "B>A", "B>A": "A>B"}[label]
    counter = sum((d == label) - (d == flipped) for d in decisions)
    return counter > 0


def test_judgebench_rule_on_every_combination_of_two_orders() -> None:
    names = {A: "A>B", B: "B>A", T: "A=B", F: None, E: None}
    codes = [A, B, T, F, E]
    ref, first, second, expected = [], [], [], []
    for label in (A, B):
        for x in codes:
            for y in codes:
                ref.append(label)
                first.append(x)
                second.append(y)
                expected.append(_judgebench_counter(names[label] or "", [names[x], names[y]]))
    c = js.configuration("j", js.OrderUse.CONSERVATIVE, first, second)
    got = js.judgebench_right(c.use, c.first, c.second, np.int8(ref))
    assert got.astype(bool).tolist() == expected
    assert one_row(ref, c).judgebench.value == pytest.approx(sum(expected) / len(expected))


def _judged_project(tmp_path: Path) -> Path:
    """Six pairs under rubric r: reviewer ann says A on p1-p3 and B on p4-p6; an imported
    label (mode imported) agrees except on p6; judge "good" agrees with ann in both orders,
    judge "flaky" names A on every pair in the shown-first position (AB: A, BA: B)."""
    from desktop.adapters.store import open_project
    from desktop.services.importing import import_file
    from tests.helpers import new_project, write_jsonl
    from tests.stats_helpers import add_rubric, judge, review

    path = new_project(tmp_path)
    rows = [
        {"id": f"p{i}", "instruction": f"q{i}", "output_1": "a", "output_2": "b"}
        for i in range(1, 7)
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(store, "r", ("overall",))
        for i in range(1, 7):
            side = "A" if i <= 3 else "B"
            judge(store, i, model="good", overall=side)
            judge(store, i, model="good", order="BA", overall=side)
            judge(store, i, model="flaky", overall="A")
            judge(store, i, model="flaky", order="BA", overall="B")
            review(store, f"p{i}", "overall", side, dims=("overall",))
            gold = side if i < 6 else "A"
            review(
                store, f"p{i}", "overall", gold, dims=("overall",), reviewer="gold", mode="imported"
            )
    return path


def test_cli_selection_table_against_reviewers_and_gold(tmp_path: Path) -> None:
    from tests.helpers import tiebreak

    path = _judged_project(tmp_path)
    proc = tiebreak("judges", path, "--against", "gold", "--rounds", "200", "--json")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["against"] == "gold" and out["dimension"] == "overall"
    rows = {(r["name"], r["use"]): r for r in out["table"]["rows"]}
    good_one = rows[("good", "one order")]
    # Gold: A on p1-p3 and p6, B on p4, p5; good is right on 5 of 6.
    assert good_one["judgebench"]["value"] == pytest.approx(5 / 6)
    flaky_both = rows[("flaky", "both, conservative")]
    # Flaky's orders disagree everywhere: JudgeBench wrong on all, RewardBench 0.5 each.
    assert flaky_both["judgebench"]["value"] == 0
    assert flaky_both["rewardbench"]["value"] == pytest.approx(0.5)
    assert flaky_both["consistency"] == 0 and flaky_both["prefer_first"] == 1
    assert rows[("flaky", "one order")]["judgebench"]["value"] == pytest.approx(4 / 6)
    best = [r for r in out["table"]["rows"] if r["best"]]
    assert len(best) == 1 and best[0]["name"] == "good"
    assert not flaky_both["near_best"]
    # Imported answers say nothing of tokens or time: unknown, not free and instant.
    assert (good_one["tokens_per_pair"], good_one["seconds_per_pair"]) == (None, None)
    assert good_one["cost_per_pair"] is None
    # Against the reviewers' consensus (ann and the import disagree on p6: no consensus
    # there), good is right on every pair that has one.
    proc = tiebreak("judges", path, "--against", "reviewers", "--rounds", "200")
    assert proc.returncode == 0, proc.stderr
    assert "against reviewers" in proc.stdout and "good (one order) best" in proc.stdout
    bad = tiebreak("judges", path, "--against", "reviewers", "--dimension", "nope")
    assert bad.returncode != 0 and "no dimension 'nope'" in bad.stderr
    assert "Traceback" not in bad.stderr
    unknown = tiebreak("judges", path, "--against", "gold", "--rubric", "nope")
    assert unknown.returncode == 1 and "no verdicts for rubric 'nope'" in unknown.stderr
    assert "Traceback" not in unknown.stderr and "unexpected" not in unknown.stderr


def test_service_counts_tokens_seconds_and_cost_from_a_profile_price(tmp_path: Path) -> None:
    from desktop.adapters.store import open_project
    from desktop.domain.profiles import ModelProfile
    from desktop.services.judge_selection import judge_selection

    path = _judged_project(tmp_path)
    with open_project(path) as store:
        store.conn.execute(
            "UPDATE judge_results SET prompt_tokens = 100, completion_tokens = 10,"
            " latency_ms = 500 WHERE judge_model = 'good'"
        )
        store.conn.commit()
        priced = ModelProfile(name="g", model="good", base_url="http://x", price_in=2, price_out=8)
        sel = judge_selection(store, "r", against="gold", rounds=50, profiles=[priced])
    rows = {(r.name, r.use): r for r in sel.table.rows}
    good = rows[("good", js.OrderUse.AVERAGED)]
    # Two answers a pair: 220 tokens, 1 s, (200 * 2 + 20 * 8) / 1e6 dollars.
    assert good.tokens_per_pair == pytest.approx(220)
    assert good.seconds_per_pair == pytest.approx(1.0)
    assert good.cost_per_pair == pytest.approx(560 / 1e6)
    assert rows[("good", js.OrderUse.ONE)].tokens_per_pair == pytest.approx(110)
    assert rows[("good", js.OrderUse.ONE)].cost_per_pair == pytest.approx(280 / 1e6)
    assert rows[("flaky", js.OrderUse.AVERAGED)].cost_per_pair is None


def test_two_judges_judged_through_the_test_server(tmp_path: Path) -> None:
    """Judge "smart" names the response with GOOD in it, judge "first" always the one shown
    first; both judged in both orders; the reviewer says A (the GOOD one) on every pair."""
    from desktop.adapters.store import open_project
    from desktop.adapters.store.juries import JuryRow, save_jury
    from desktop.services.judge_selection import judge_selection
    from tests.judging_helpers import SINGLE, make_job, project, responses_in
    from tests.openai_server import OpenAIServer
    from tests.stats_helpers import review

    def responder(request: dict[str, object]) -> str:
        shown = responses_in(request)  # type: ignore[arg-type]
        if request["model"] == "first":
            return "A"
        return "A" if "GOOD" in shown[0] else "B"

    path = project(tmp_path, 4)
    server = OpenAIServer(responder=responder, models=("smart", "first"))
    with server, open_project(path) as store:
        for model in ("smart", "first"):
            make_job(store, server, SINGLE, model=model, options={"swap": True}).run()
        for i in range(1, 5):
            review(store, str(i), "overall", "A", rubric=SINGLE.name, dims=("overall",))
        save_jury(store, JuryRow(SINGLE.name, "pair", ("smart", "first"), "majority"))
        sel = judge_selection(store, SINGLE.name, against="reviewers", rounds=100)
    rows = {(r.name, r.use): r for r in sel.table.rows}
    assert sel.table.pairs == 4
    assert rows[("smart", js.OrderUse.AVERAGED)].judgebench.value == 1.0
    assert rows[("smart", js.OrderUse.AVERAGED)].consistency == 1.0
    first_one = rows[("first", js.OrderUse.ONE)]
    first_both = rows[("first", js.OrderUse.CONSERVATIVE)]
    assert first_one.judgebench.value == 1.0  # the GOOD response is always shown first
    assert first_both.judgebench.value == 0.0  # one right order and one wrong is wrong
    assert first_both.rewardbench.value == 0.5  # inconsistent: a tie
    assert first_both.prefer_first == 1.0 and first_both.consistency == 0.0
    assert rows[("smart", js.OrderUse.ONE)].near_best
    jury = rows[("jury pair", js.OrderUse.ONE)]
    # The jury's majority of "smart" (A) and "first" (its orders disagree: a tie) is a tie:
    # wrong for JudgeBench, half for RewardBench.
    assert jury.pairs == 4 and jury.judgebench.value == 0.0
    assert jury.rewardbench.value == 0.5


def test_resamples_drawn_in_blocks_are_the_same_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    """The paired bootstrap draws its resamples a block at a time (its memory does not grow
    with rounds x pairs); however the rounds are cut, the counts, and so the table, are the
    same, and every round still draws n pairs."""
    whole = np.concatenate(list(js._resample_blocks(1000, 50, seed=7)))
    monkeypatch.setattr(js, "_BLOCK_CELLS", 3000)  # three rounds a block
    cut = np.concatenate(list(js._resample_blocks(1000, 50, seed=7)))
    assert cut.shape == (50, 1000) and np.array_equal(whole, cut)
    assert set(cut.sum(axis=1)) == {1000.0}


def test_too_many_rounds_is_one_line() -> None:
    with pytest.raises(TiebreakError, match="rounds must be between 1 and 100,000"):
        js.selection_table([0, 1], [js.configuration("j", js.OrderUse.ONE, [0, 1])], rounds=10**8)
