"""What `tiebreak stats` shows of issue 21 on a real project: B's win rate by the judge
alone, the humans alone and PPI++ equal to ppi-python's on the project's verdicts (plain,
and weighted by a drawn sample's probabilities), the further reviews a --target needs,
the judge's biases equal to AlpacaEval's analyze.py formulas, the calibration curve equal
to scikit-learn's, and `tiebreak sample` repeatable from its seed."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from desktop.adapters.store import open_project
from desktop.services.importing import import_file
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.stats_helpers import add_rubric, judge, review
from tests.test_judge_biases import alpaca_length_bias, alpaca_list_bias, alpaca_prefer_1

DIMS = ("overall",)
SCORE = {"A": 0.0, "B": 1.0, "tie": 0.5}
N, REVIEWED = 240, 70


def build(tmp_path: Path, seed: int = 3) -> tuple[Path, dict]:
    """N pairs judged by m (with a confidence), the first REVIEWED reviewed by a human who
    agrees with the judge two times in three; responses of varied length, some with lists."""
    rng = random.Random(seed)
    path = new_project(tmp_path)
    rows, truth = [], {"judge": {}, "human": {}, "conf": {}, "texts": {}}
    for i in range(1, N + 1):
        a = " ".join(rng.choice(["word", "reply", "text"]) for _ in range(rng.randint(2, 40)))
        b = " ".join(rng.choice(["long", "answer", "here"]) for _ in range(rng.randint(2, 40)))
        if rng.random() < 0.3:
            b = "Steps:\n- first\n- second\n" + b
        rows.append({"id": f"p{i}", "instruction": f"q{i}", "output_1": a, "output_2": b})
        truth["texts"][i] = (a, b)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(store, "r", DIMS)
        for i in range(1, N + 1):
            verdict = rng.choices(["A", "B", "tie"], [0.4, 0.45, 0.15])[0]
            conf = round(rng.uniform(0.34, 1.0), 3)
            judge(store, i, overall=verdict, conf={"overall": conf})
            truth["judge"][i], truth["conf"][i] = verdict, conf
        for i in range(1, REVIEWED + 1):
            human = truth["judge"][i] if rng.random() < 2 / 3 else rng.choice(["A", "B", "tie"])
            review(store, f"p{i}", "overall", human, dims=DIMS)
            truth["human"][i] = human
    return path, truth


def stats_json(path: Path, *args: str) -> dict:
    done = tiebreak("stats", path, "--rubric", "r", "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["rubrics"][0]


@pytest.mark.parametrize("alpha", [0.05, 0.1])
def test_win_rates_equal_ppi_python_on_the_project(tmp_path: Path, alpha: float) -> None:
    ppi = pytest.importorskip("ppi_py")
    path, truth = build(tmp_path)
    got = stats_json(path, "--alpha", str(alpha))
    d = got["overall"]["dimensions"][0]["win_rates"]
    y = np.array([SCORE[truth["human"][i]] for i in sorted(truth["human"])])
    yhat = np.array([SCORE[truth["judge"][i]] for i in sorted(truth["human"])])
    rest = np.array([SCORE[v] for i, v in truth["judge"].items() if i not in truth["human"]])
    point = ppi.ppi_mean_pointestimate(y, yhat, rest)
    low, high = ppi.ppi_mean_ci(y, yhat, rest, alpha=alpha)
    combined = d["combined"]
    assert combined["estimate"] == pytest.approx(float(np.ravel(point)[0]), abs=1e-9)
    assert combined["lower"] == pytest.approx(float(np.ravel(low)[0]), abs=1e-9)
    assert combined["upper"] == pytest.approx(float(np.ravel(high)[0]), abs=1e-9)
    low, high = ppi.classical_mean_ci(y, alpha=alpha)
    assert (d["humans"]["lower"], d["humans"]["upper"]) == pytest.approx(
        (float(np.ravel(low)[0]), float(np.ravel(high)[0])), abs=1e-9
    )
    everything = [SCORE[v] for v in truth["judge"].values()]
    assert d["judge"]["estimate"] == pytest.approx(np.mean(everything), abs=1e-12)
    assert got["alpha"] == alpha
    # the reviewed pairs were not drawn by a sample, and the text says so in one line
    assert got["sample"]["not_drawn_reviewed"] == REVIEWED
    text = tiebreak("stats", path, "--rubric", "r").stdout
    assert sum("were not drawn by a sample" in line for line in text.splitlines()) == 1
    assert "PPI++" in text


def test_a_sample_weights_the_win_rates_by_its_probabilities(tmp_path: Path) -> None:
    ppi = pytest.importorskip("ppi_py")
    path, truth = build(tmp_path)
    drawn = tiebreak(
        "sample", path, "--rubric", "r", "--size", "40", "--method", "uncertain", "--json"
    )
    assert drawn.returncode == 0, drawn.stderr
    sample = json.loads(drawn.stdout)
    # drawn again (sample #2): the same seed draws the same pairs, in the same order
    again = tiebreak("sample", path, "--rubric", "r", "--size", "40", "--method", "uncertain")
    assert [f"#{p}" for p, _ in sample["pairs"]] == [
        line.split()[0] for line in again.stdout.splitlines()[1:]
    ]
    assert len(sample["pairs"]) == 40 and sample["frame"] == N
    with open_project(path) as store:  # review the first 25 of the sample, blind
        for pid, _ in sample["pairs"][:25]:
            review(store, f"p{pid}", "overall", "B", dims=DIMS, reviewer="bo")
        probability = dict(
            store.conn.execute("SELECT pair_id, probability FROM sample_pairs").fetchall()
        )
    got = stats_json(path)
    # a pair reviewed by two reviewers counts their label, as the export does (one each
    # way is a dispute: no label, left out)
    humans = {}
    with open_project(path) as store:
        from desktop.adapters.store.pair_reader import FIGURE_COLUMNS, PairQuery, read_pairs
        from desktop.domain.judge_policy import policy_for
        from desktop.domain.pair_view import PairView

        for record in read_pairs(store, PairQuery("r", ("m",), FIGURE_COLUMNS)):
            human = PairView(record, policy_for("m")).human("overall")
            if human is not None:
                humans[record.id] = SCORE[human.value]
    # the sample's pairs with a human verdict (some were reviewed before it was drawn)
    drawn_ids = [pid for pid, _ in sample["pairs"] if pid in humans]
    share = len(drawn_ids) / 40
    y = np.array([humans[i] for i in sorted(drawn_ids)])
    yhat = np.array([SCORE[truth["judge"][i]] for i in sorted(drawn_ids)])
    rest_ids = [i for i in sorted(truth["judge"]) if i not in drawn_ids]
    rest = np.array([SCORE[truth["judge"][i]] for i in rest_ids])
    w = np.array([1 / (probability[i] * share) for i in sorted(drawn_ids)])
    w_u = np.array([1 / (1 - probability[i] * share) for i in rest_ids])
    point = ppi.ppi_mean_pointestimate(y, yhat, rest, w=w, w_unlabeled=w_u)
    low, high = ppi.ppi_mean_ci(y, yhat, rest, alpha=0.05, w=w, w_unlabeled=w_u)
    combined = got["overall"]["dimensions"][0]["win_rates"]["combined"]
    assert combined["n"] == len(drawn_ids) >= 20  # 25 reviewed, a few of them now disputes
    assert combined["estimate"] == pytest.approx(float(np.ravel(point)[0]), abs=1e-9)
    assert (combined["lower"], combined["upper"]) == pytest.approx(
        (float(np.ravel(low)[0]), float(np.ravel(high)[0])), abs=1e-9
    )
    assert got["sample"]["drawn_reviewed"] == len(drawn_ids)
    text = tiebreak("stats", path, "--rubric", "r").stdout
    line = next(x for x in text.splitlines() if x.startswith("sample #2"))
    assert line.startswith(f"sample #2 (uncertain, 40 pairs, seed 0): {len(drawn_ids)} of its"), (
        line
    )


def test_a_sample_larger_than_the_judged_pairs_is_one_line(tmp_path: Path) -> None:
    path, _ = build(tmp_path)
    done = tiebreak("sample", path, "--rubric", "r", "--size", str(N + 1))
    assert done.returncode == 1
    assert (
        done.stderr.strip().splitlines()
        == [f"tiebreak: rubric 'r': a sample of 1 to {N} judged pairs, not {N + 1}"]
        or "a sample of 1 to 240 judged pairs" in done.stderr
    )


def test_target_says_how_many_more_reviews(tmp_path: Path) -> None:
    path, _ = build(tmp_path)
    got = stats_json(path, "--target", "±7")
    target = got["overall"]["dimensions"][0]["target"]
    assert target["half_width"] == pytest.approx(0.07)
    assert target["more"] > 0 and target["expected_half_width"] <= 0.07
    text = tiebreak("stats", path, "--rubric", "r", "--target", "±7").stdout
    assert f"overall: ±7 points needs {target['more']:,} more human verdicts" in text
    bad = tiebreak("stats", path, "--target", "lots")
    assert bad.returncode == 2 and "not a number of points" in bad.stderr


def test_biases_and_calibration_equal_the_references(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    sk = pytest.importorskip("sklearn.calibration")
    path, truth = build(tmp_path)
    got = stats_json(path)["overall"]["dimensions"][0]
    pref = {"A": 1.0, "B": 2.0, "tie": 1.5}
    frame = pd.DataFrame(
        [
            {
                "instruction": f"q{i}",
                "output_1": truth["texts"][i][0],
                "output_2": truth["texts"][i][1],
                "preference": pref[v],
            }
            for i, v in truth["judge"].items()
        ]
    )
    biases = got["biases"]
    assert biases["prefer_longer"] == pytest.approx(alpaca_length_bias(frame), abs=1e-12)
    assert biases["prefer_lists"] == pytest.approx(alpaca_list_bias(frame), abs=1e-12)
    assert biases["prefer_output_1"] == pytest.approx(alpaca_prefer_1(frame), abs=1e-12)
    reviewed = sorted(truth["human"])
    agreed = [truth["judge"][i] == truth["human"][i] for i in reviewed]
    conf = [truth["conf"][i] for i in reviewed]
    prob_true, prob_pred = sk.calibration_curve(agreed, conf, n_bins=10, strategy="uniform")
    bins = got["calibration"]["bins"]
    assert [b["agreement"] for b in bins] == pytest.approx(list(prob_true), abs=1e-12)
    assert [b["confidence"] for b in bins] == pytest.approx(list(prob_pred), abs=1e-12)
    counts = [b["count"] for b in bins]
    ece = sum(
        c / len(reviewed) * abs(a - p) for c, a, p in zip(counts, prob_true, prob_pred, strict=True)
    )
    assert got["calibration"]["ece"] == pytest.approx(ece, abs=1e-12)


def generators_project(tmp_path: Path, seed: int = 8) -> tuple[Path, dict]:
    """Three generators against one baseline, 90 pairs each, judged by "m" and by "m2"
    (each with its own verdicts), the first 30 of each generator's pairs reviewed."""
    rng = random.Random(seed)
    path = new_project(tmp_path)
    rows, truth = [], {"judge": {}, "m2": {}, "human": {}, "generator": {}, "texts": {}}
    generators = ("g1", "g2", "g3")
    for i in range(1, 271):
        generator = generators[(i - 1) % 3]
        a = " ".join(rng.choice(["word", "text"]) for _ in range(rng.randint(2, 30)))
        b = " ".join(rng.choice(["long", "answer"]) for _ in range(rng.randint(2, 40)))
        if rng.random() < 0.3:
            b = "1. first\n2. second\n" + b
        rows.append(
            {
                "id": f"p{i}",
                "instruction": f"q{i}",
                "output_1": a,
                "output_2": b,
                "generator_1": "base",
                "generator_2": generator,
            }
        )
        truth["generator"][i], truth["texts"][i] = generator, (a, b)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(store, "r", DIMS)
        lean = {"g1": 0.3, "g2": 0.5, "g3": 0.7}
        for i in range(1, 271):
            p_b = lean[truth["generator"][i]]
            verdict = rng.choices(["A", "B", "tie"], [0.9 - p_b, p_b, 0.1])[0]
            judge(store, i, overall=verdict)
            truth["judge"][i] = verdict
            other = rng.choice(["A", "B", "B", "tie"])
            judge(store, i, model="m2", overall=other)
            truth["m2"][i] = other
        for i in range(1, 91):  # the first 30 pairs of each generator
            human = truth["judge"][i] if rng.random() < 0.7 else rng.choice(["A", "B", "tie"])
            review(store, f"p{i}", "overall", human, dims=DIMS)
            truth["human"][i] = human
    return path, truth


@pytest.mark.parametrize("alpha", [0.05, 0.2])
def test_per_generator_win_rates_equal_ppi_python(tmp_path: Path, alpha: float) -> None:
    ppi = pytest.importorskip("ppi_py")
    path, truth = generators_project(tmp_path)
    args = ("--by", "model", "--judge-model", "m", "--alpha", str(alpha))
    done = tiebreak("stats", path, "--json", *args)
    assert done.returncode == 0, done.stderr
    (board,) = json.loads(done.stdout)["rubrics"]
    assert board["alpha"] == alpha
    rows = {r["generator"]: r for r in board["rows"]}
    assert set(rows) == {"g1", "g2", "g3"}
    for generator, row in rows.items():
        mine = [i for i, g in truth["generator"].items() if g == generator]
        reviewed = [i for i in mine if i in truth["human"]]
        y = np.array([SCORE[truth["human"][i]] for i in reviewed])
        yhat = np.array([SCORE[truth["judge"][i]] for i in reviewed])
        rest = np.array([SCORE[truth["judge"][i]] for i in mine if i not in truth["human"]])
        point = float(np.ravel(ppi.ppi_mean_pointestimate(y, yhat, rest))[0])
        low, high = (float(np.ravel(v)[0]) for v in ppi.ppi_mean_ci(y, yhat, rest, alpha=alpha))
        combined = row["win_rates"]["combined"]
        assert (combined["estimate"], combined["lower"], combined["upper"]) == pytest.approx(
            (point, low, high), abs=1e-9
        )
        low, high = (float(np.ravel(v)[0]) for v in ppi.classical_mean_ci(y, alpha=alpha))
        humans = row["win_rates"]["humans"]
        assert (humans["lower"], humans["upper"]) == pytest.approx((low, high), abs=1e-9)
        assert row["win_rates"]["judge"]["estimate"] == pytest.approx(row["win_rate"] / 100)
    text = tiebreak("stats", path, *args)
    assert "B's win rate by the judge alone, the humans alone and PPI++" in text.stdout
    g3 = next(line for line in text.stdout.splitlines() if line.startswith("g3 "))
    c = rows["g3"]["win_rates"]["combined"]
    shown = f"{100 * c['estimate']:.1f}% ({100 * c['lower']:.1f}–{100 * c['upper']:.1f})"
    assert g3.endswith(shown)


def test_every_judges_biases_equal_alpaca_evals_formulas(tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    path, truth = generators_project(tmp_path)
    got = stats_json(path, "--judge-model", "m")
    pref = {"A": 1.0, "B": 2.0, "tie": 1.5}
    rows = {(r["judge"], r["dimension"]): r["biases"] for r in got["judge_biases"]}
    assert list(rows) == [("m", "overall"), ("m2", "overall")]  # the chosen judge first
    for name, verdicts in (("m", truth["judge"]), ("m2", truth["m2"])):
        frame = pd.DataFrame(
            [
                {
                    "instruction": f"q{i}",
                    "output_1": truth["texts"][i][0],
                    "output_2": truth["texts"][i][1],
                    "preference": pref[v],
                }
                for i, v in verdicts.items()
            ]
        )
        biases = rows[(name, "overall")]
        assert biases["prefer_longer"] == pytest.approx(alpaca_length_bias(frame), abs=1e-12)
        assert biases["prefer_lists"] == pytest.approx(alpaca_list_bias(frame), abs=1e-12)
        assert biases["prefer_output_1"] == pytest.approx(alpaca_prefer_1(frame), abs=1e-12)
        assert biases["preferences"] == len(verdicts)
    assert got["overall"]["dimensions"][0]["biases"] == rows[("m", "overall")]
    # the answers of m2 count nowhere else: m's answers and figures are m's alone
    assert got["overall"]["answers"] == len(truth["judge"])
    text = tiebreak("stats", path, "--rubric", "r", "--judge-model", "m").stdout.splitlines()
    head = next(
        i for i, line in enumerate(text) if line.split()[:3] == ["judge", "dimension", "longer"]
    )
    assert [line.split()[:2] for line in text[head + 1 : head + 3]] == [
        ["m", "overall"],
        ["m2", "overall"],
    ]
