"""Ratings across generators equal LMArena's ``arena-rank`` (``BradleyTerry``) on the same
verdicts: ratings and sandwich intervals to 0.01 points, and each bootstrap round's fit;
ties count half a win each way; ranks respect the intervals; the win-rate matrices."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from desktop.domain import bradley_terry as bt
from desktop.domain.head_to_head import b_score
from desktop.domain.ratings import model_ratings, ranks
from tests.conftest import SHARED

DATA = SHARED / "data"


def simulated(seed: int, models: int, verdicts: int, *, sparse: bool = False) -> tuple:
    """Verdicts between models of normal strengths (sd 1, in log-odds); one in ten a tie.
    ``sparse``: each model meets only its eight nearest neighbours in a ring, and the
    schedule is lopsided (some pairs meet fifty times as often as others)."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, models)
    a = rng.integers(0, models, verdicts)
    if sparse:
        b = (a + rng.choice([1, 2, 3, 4], verdicts, p=[0.7, 0.2, 0.07, 0.03])) % models
    else:
        b = (a + rng.integers(1, models, verdicts)) % models
    p_b = 1.0 / (1.0 + np.exp(strength[a] - strength[b]))
    tie = rng.random(verdicts) < 0.1
    score = np.where(tie, 0.5, (rng.random(verdicts) < p_b).astype(float))
    names = np.array([f"model-{i:02d}" for i in range(models)])
    return names[a].tolist(), names[b].tolist(), score.tolist()


def alpaca_project() -> tuple:
    """Four generators' real answers to AlpacaEval's instructions: the verdicts their
    annotators gave (claude-2.1 against gpt4_1106_preview, fractional; the PPO model
    against text_davinci_003, with 0 as a draw), and between the other pairings the
    verdicts of AlpacaEval's "longest" baseline annotator (the longer answer wins)."""
    claude_file = (
        DATA / "alpaca_eval" / "claude-2.1__weighted_alpaca_eval_gpt4_turbo.annotations.json"
    )
    farm_file = DATA / "alpaca_farm_ppo_human_vs_gpt4_annotations.json"
    if not (claude_file.is_file() and farm_file.is_file()):
        pytest.skip("../shared/data is not beside this checkout")
    answers: dict[str, dict[str, str]] = {}
    model_a, model_b, score = [], [], []
    for path in (claude_file, farm_file):
        for r in json.loads(path.read_text()):
            model_a.append(r["generator_1"])
            model_b.append(r["generator_2"])
            score.append(b_score(None, r["preference"]))
            answers.setdefault(r["generator_1"], {})[r["instruction"]] = r["output_1"]
            answers.setdefault(r["generator_2"], {})[r["instruction"]] = r["output_2"]
    judged = {frozenset(pair) for pair in zip(model_a, model_b, strict=True)}
    names = sorted(answers)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            if frozenset((first, second)) in judged:
                continue
            for instruction in sorted(answers[first].keys() & answers[second].keys()):
                x, y = answers[first][instruction], answers[second][instruction]
                if len(x) != len(y):
                    model_a.append(first)
                    model_b.append(second)
                    score.append(float(len(y) > len(x)))
    return model_a, model_b, score


def arena_rank(model_a: list, model_b: list, score: list, *, tight: bool = False):
    """arena-rank's leaderboard with sandwich intervals on the same verdicts (model A's
    outcome is 1 - B's score). ``tight``: its L-BFGS run to a loss change of 1e-15 rather
    than its default 1e-9, which on a sparse, lopsided schedule stops 0.06 points short of
    the optimum (where the gradient is zero, as ours reaches it)."""
    pd = pytest.importorskip("pandas")
    data_utils = pytest.importorskip("arena_rank.utils.data_utils")
    bradley_terry = pytest.importorskip("arena_rank.models.bradley_terry")
    frame = pd.DataFrame({"model_a": model_a, "model_b": model_b, "outcome": 1 - np.array(score)})
    dataset = data_utils.PairDataset.from_pandas(frame, outcome_col="outcome", outcome_map=float)
    tolerances = {"ftol": 1e-15, "gtol": 1e-12, "max_iter": 10_000} if tight else {}
    model = bradley_terry.BradleyTerry(n_competitors=len(dataset.competitors), **tolerances)
    return dataset, model, model.compute_ratings_and_cis(dataset, significance_level=0.05)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("verdicts", "tight"),
    [
        pytest.param(lambda: simulated(1, 12, 20_000), False, id="12-models"),
        pytest.param(lambda: simulated(2, 30, 15_000, sparse=True), True, id="30-models-sparse"),
        pytest.param(alpaca_project, False, id="alpaca-eval"),
    ],
)
def test_ratings_and_sandwich_intervals_equal_arena_rank(verdicts, tight: bool) -> None:
    model_a, model_b, score = verdicts()
    ours = model_ratings(model_a, model_b, score, rounds=0)
    _, _, theirs = arena_rank(model_a, model_b, score, tight=tight)
    assert list(theirs["competitors"]) == list(ours.models)
    assert np.allclose(np.asarray(theirs["ratings"]), ours.rating, rtol=0, atol=0.01)
    assert np.allclose(
        np.asarray(theirs["rating_lower"]), [lo for lo, _ in ours.sandwich], rtol=0, atol=0.01
    )
    assert np.allclose(
        np.asarray(theirs["rating_upper"]), [hi for _, hi in ours.sandwich], rtol=0, atol=0.01
    )
    assert np.mean(ours.rating) == pytest.approx(1000)


@pytest.mark.slow
def test_a_bootstrap_round_fits_as_arena_rank_fits_it() -> None:
    """One multinomial resample of the cells, fitted by arena-rank's own
    ``fit_single_bootstrap_sample`` and by ours: the same ratings to 0.01 points."""
    pytest.importorskip("arena_rank")
    from arena_rank.models.bradley_terry import fit_single_bootstrap_sample

    model_a, model_b, score = simulated(3, 8, 6_000)
    dataset, model, _ = arena_rank(model_a, model_b, score)
    data = bt.battles(model_a, model_b, score)
    counts = np.random.default_rng(0).multinomial(data.total, data.count / data.total)
    # arena-rank's cells are (A, B, A's outcome) rows; ours (A, B, B's score)
    ours_index = {
        (int(a), int(b), float(s)): i
        for i, (a, b, s) in enumerate(zip(data.a, data.b, data.score, strict=True))
    }
    theirs_counts = np.array(
        [
            counts[ours_index[(int(a), int(b), 1.0 - float(o))]]
            for (a, b), o in zip(
                np.asarray(dataset.pairs), np.asarray(dataset.outcomes), strict=True
            )
        ],
        dtype=float,
    )
    theirs = np.asarray(fit_single_bootstrap_sample(theirs_counts, model, dataset)["ratings"])
    n, s = data.matrices(counts[None, :])
    ours = bt.fit_matrices(n, s)[0]
    unit = 400 / math.log(10)
    assert np.allclose(theirs * unit, ours * unit, rtol=0, atol=0.01)


def test_a_tie_is_half_a_win_each_way() -> None:
    """Two models: the rating gap is 400 log10(share / (1 - share)), a tie counting half."""
    with_ties = model_ratings(["x"] * 4, ["y"] * 4, [0.0, 0.0, 0.5, 0.5], rounds=0)
    wins_only = model_ratings(["x"] * 4, ["y"] * 4, [0.0, 0.0, 0.0, 1.0], rounds=0)
    gap = 400 * math.log10(0.75 / 0.25)
    for ratings in (with_ties, wins_only):
        assert ratings.rating[0] - ratings.rating[1] == pytest.approx(gap, abs=1e-6)
        assert ratings.win_rate[0][1] == pytest.approx(0.75)
        assert ratings.win_rate[1][0] == pytest.approx(0.25)
    # the same verdicts with A and B shown the other way round: the same ratings
    swapped = model_ratings(["y"] * 4, ["x"] * 4, [1.0, 1.0, 0.5, 0.5], rounds=0)
    assert swapped.rating == pytest.approx(with_ties.rating)


def test_ranks_respect_intervals() -> None:
    intervals = [(1100, 1150), (1090, 1120), (1000, 1080), (1070, 1095), (900, 950)]
    # 1 + models whose lower bound is above this one's upper bound
    assert ranks(intervals) == (1, 1, 3, 2, 5)


def test_bootstrap_is_seeded_and_agrees_with_the_sandwich() -> None:
    model_a, model_b, score = simulated(4, 6, 30_000)
    first = model_ratings(model_a, model_b, score, rounds=300, seed=5)
    assert model_ratings(model_a, model_b, score, rounds=300, seed=5) == first
    other = model_ratings(model_a, model_b, score, rounds=300, seed=6)
    assert other.bootstrap != first.bootstrap and other.rating == first.rating
    for (lo, hi), (slo, shi), r in zip(first.bootstrap, first.sandwich, first.rating, strict=True):
        assert lo < r < hi
        assert (hi - lo) / (shi - slo) == pytest.approx(1.0, abs=0.2)
    assert first.bootstrap_rank is not None and len(first.bootstrap_rank) == 6


def test_anchor_scale_and_win_rate_matrices() -> None:
    model_a, model_b, score = simulated(5, 5, 4_000)
    plain = model_ratings(model_a, model_b, score, rounds=0)
    anchored = model_ratings(model_a, model_b, score, rounds=0, anchor=("model-02", 1114.0))
    shift = 1114.0 - plain.rating[2]
    assert anchored.rating[2] == pytest.approx(1114.0)
    assert anchored.rating == pytest.approx([r + shift for r in plain.rating])
    assert anchored.sandwich[0][0] == pytest.approx(plain.sandwich[0][0] + shift)
    r = plain.rating
    for i in range(5):
        for j in range(5):
            assert plain.expected_win_rate[i][j] == pytest.approx(
                1 / (1 + 10 ** ((r[j] - r[i]) / 400))
            )
            if i != j:
                assert plain.win_rate[i][j] + plain.win_rate[j][i] == pytest.approx(1.0)
    assert plain.win_rate[0][0] is None
    assert sum(plain.battles) == 2 * len(model_a)
    with pytest.raises(ValueError, match="anchor"):
        model_ratings(model_a, model_b, score, rounds=0, anchor=("nobody", 1000.0))


def test_a_model_that_never_lost_still_gets_a_finite_rating_and_a_warning() -> None:
    """Its maximum-likelihood rating is infinite; the ridge keeps it finite and on top,
    and the ratings say the maximum does not exist (the sandwich would claim certainty)."""
    ratings = model_ratings(
        ["a", "a", "b", "c"], ["b", "c", "c", "a"], [0.0, 0.0, 0.5, 1.0], rounds=50
    )
    assert all(math.isfinite(x) for x in ratings.rating)
    assert ratings.by_rating()[0] == ratings.models.index("a")
    assert not ratings.mle_exists
    # one loss (or a tie) anywhere for "a" and every model reaches every other
    fine = model_ratings(["a", "a", "b", "c"], ["b", "c", "c", "a"], [0.0, 0.0, 0.5, 0.5], rounds=0)
    assert fine.mle_exists


def test_bad_verdicts_are_refused() -> None:
    with pytest.raises(ValueError, match="two different models"):
        model_ratings(["a", "a"], ["a", "a"], [1.0, 0.0])
    with pytest.raises(ValueError, match="score"):
        model_ratings(["a"], ["b"], [2.0])
    with pytest.raises(ValueError, match="same length"):
        model_ratings(["a"], ["b", "c"], [1.0])


# ---- `tiebreak stats --ratings` on a project ------------------------------------------------


def rated_project(tmp_path, *, seed: int = 11, verdicts: int = 900):
    """Pairs among six generators (each pair shown either way round), judged by "m" with
    one verdict in ten a tie, three pairs reviewed by two reviewers each, one pair without
    generator names. Returns the project and the judge's battles (model_a, model_b, B's
    score) as arena-rank should see them."""
    from desktop.adapters.store import open_project
    from desktop.services.importing import import_file
    from tests.helpers import new_project, write_jsonl
    from tests.stats_helpers import add_rubric, judge, review

    model_a, model_b, score = simulated(seed, 6, verdicts)
    rows = [
        {
            "id": f"p{i}",
            "instruction": f"question {i}",
            "output_1": f"answer of {a} to {i}",
            "output_2": f"answer of {b} to {i}",
            "generator_1": a,
            "generator_2": b,
        }
        for i, (a, b) in enumerate(zip(model_a, model_b, strict=True))
    ]
    rows.append({"id": "nameless", "instruction": "q", "output_1": "x", "output_2": "y"})
    path = new_project(tmp_path)
    token = {0.0: "A", 1.0: "B", 0.5: "tie"}
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(store, "r", ("overall",))
        for pid, s in enumerate(score, start=1):
            judge(store, pid, overall=token[s])
        judge(store, len(rows), overall="B")  # the pair without generators
        for ref, ann, bob in (("p0", "A", "A"), ("p1", "B", "tie"), ("p2", "B", "B")):
            review(store, ref, "overall", ann, dims=("overall",), reviewer="ann")
            review(store, ref, "overall", bob, dims=("overall",), reviewer="bob")
    return path, (model_a, model_b, score)


def ratings_json(path, *args: str) -> dict:
    from tests.helpers import tiebreak

    done = tiebreak("stats", path, "--ratings", "--json", *args)
    assert done.returncode == 0, done.stderr
    (only,) = json.loads(done.stdout)["ratings"]
    return only


@pytest.mark.slow
def test_the_ratings_command_equals_arena_rank_on_a_project(tmp_path) -> None:
    path, (model_a, model_b, score) = rated_project(tmp_path)
    got = ratings_json(path, "--rounds", "200", "--seed", "3")
    _, _, theirs = arena_rank(model_a, model_b, score)
    expected = {
        name: (rating, lower, upper)
        for name, rating, lower, upper in zip(
            theirs["competitors"],
            np.asarray(theirs["ratings"]),
            np.asarray(theirs["rating_lower"]),
            np.asarray(theirs["rating_upper"]),
            strict=True,
        )
    }
    assert {m["model"] for m in got["models"]} == set(expected)
    for m in got["models"]:
        rating, lower, upper = expected[m["model"]]
        assert m["rating"] == pytest.approx(rating, abs=0.01)
        assert m["sandwich"] == pytest.approx([lower, upper], abs=0.01)
        assert m["bootstrap"][0] < m["rating"] < m["bootstrap"][1]
    # highest first; ranks respect the sandwich intervals
    ratings = [m["rating"] for m in got["models"]]
    assert ratings == sorted(ratings, reverse=True)
    assert [m["sandwich_rank"] for m in got["models"]] == list(
        ranks([tuple(m["sandwich"]) for m in got["models"]])
    )
    assert (got["verdicts"], got["left_out"], got["source"]) == (len(score), 1, "m")
    # the win-rate matrix: the row's share against the column, a tie half
    names = [m["model"] for m in got["models"]]
    first, second = names[0], names[1]
    met = [
        (1 - s) if a == first else s
        for a, b, s in zip(model_a, model_b, score, strict=True)
        if {a, b} == {first, second}
    ]
    assert got["win_rate"][0][1] == pytest.approx(sum(met) / len(met))
    assert got["win_rate"][0][0] is None
    # the same seed, the same bootstrap
    again = ratings_json(path, "--rounds", "200", "--seed", "3")
    assert again == got


def test_ratings_from_the_reviewers_an_anchor_and_the_text(tmp_path) -> None:
    from tests.helpers import tiebreak

    path, (model_a, model_b, _) = rated_project(tmp_path, verdicts=60)
    humans = ratings_json(path, "--humans", "--rounds", "0")
    # every reviewer's verdict is a battle: p0 (A, A), p1 (B, tie), p2 (B, B)
    assert (humans["source"], humans["verdicts"], humans["left_out"]) == ("reviewers", 6, 0)
    battles = [(model_a[i], model_b[i]) for i in (0, 0, 1, 1, 2, 2)]
    plain = model_ratings(
        [a for a, _ in battles], [b for _, b in battles], [0, 0, 1, 0.5, 1, 1], rounds=0
    )
    mine = {m["model"]: m["rating"] for m in humans["models"]}
    assert mine == pytest.approx(dict(zip(plain.models, plain.rating, strict=True)))
    assert humans["models"][0]["bootstrap"] is None
    top = ratings_json(path, "--rounds", "0")["models"][0]["model"]
    anchored = ratings_json(path, "--rounds", "0", "--anchor", f"{top}=1200")
    assert anchored["models"][0]["rating"] == pytest.approx(1200)
    text = tiebreak("stats", path, "--ratings", "--rounds", "50")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].startswith("rubric r · overall · judge m: 6 generators, 60 verdicts")
    assert "1 verdicts left out: their pair names no two generators" in text.stdout
    assert any(line.startswith(top) for line in lines)
    assert "win rate of the row against the column" in text.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--ratings", "--anchor", "nobody=1000"), "--anchor: 'nobody' is not among"),
        (("--ratings", "--by", "model"), "--ratings goes alone"),
        (("--humans",), "--humans goes with --ratings"),
        (("--ratings", "--judge-model", "nobody"), "judge 'nobody' has no answers"),
    ],
)
def test_ratings_refuse_bad_options_in_one_line(tmp_path, args, says) -> None:
    from tests.helpers import tiebreak

    path, _ = rated_project(tmp_path, verdicts=30)
    done = tiebreak("stats", path, *args)
    assert done.returncode == 1 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and says in done.stderr
    bad = tiebreak("stats", path, "--ratings", "--anchor", "1200")
    assert bad.returncode == 2 and "expected MODEL=RATING" in bad.stderr


def test_a_script_reads_the_same_ratings_through_the_api(tmp_path) -> None:
    from dataclasses import asdict

    from desktop import api

    path, _ = rated_project(tmp_path, verdicts=80)
    with api.open_project(path) as store:
        (ratings,) = api.rate_generators(store, "r", rounds=20, seed=4)
    assert isinstance(ratings, api.GeneratorRatings)
    assert json.loads(json.dumps(asdict(ratings))) == ratings_json(
        path, "--rubric", "r", "--rounds", "20", "--seed", "4"
    )
