"""The prediction-powered win rate equals the ppi-python package's (``ppi_mean_pointestimate``,
``ppi_mean_ci`` with default tuning, ``classical_mean_ci``) to 1e-9, at any alpha, weighted
or not, on random data and on AlpacaEval's annotations."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from desktop.domain.head_to_head import b_score
from desktop.domain.prediction_powered import (
    classical_mean,
    ppi_mean,
    win_rate_estimates,
)
from tests.conftest import SHARED


def ppi():
    """ppi-python, imported by the test that needs it: imported while pytest collects, it
    would add 250 MB to every process the suite forks (the hostile tests measure theirs)."""
    return pytest.importorskip("ppi_py")


ALPHAS = (0.01, 0.05, 0.1, 0.32)
CLAUDE = (
    SHARED / "data" / "alpaca_eval" / "claude-2.1__weighted_alpaca_eval_gpt4_turbo.annotations.json"
)
FARM = SHARED / "data" / "alpaca_farm_ppo_human_vs_gpt4_annotations.json"


def reference(y, yhat, yhat_u, alpha, w=None, w_u=None) -> tuple[float, float, float]:
    args = (np.asarray(y, float), np.asarray(yhat, float), np.asarray(yhat_u, float))
    weights = {
        "w": None if w is None else np.asarray(w, float),
        "w_unlabeled": None if w_u is None else np.asarray(w_u, float),
    }
    point = ppi().ppi_mean_pointestimate(*args, **weights)
    lower, upper = ppi().ppi_mean_ci(*args, alpha=alpha, alternative="two-sided", **weights)
    return float(np.squeeze(point)), float(np.squeeze(lower)), float(np.squeeze(upper))


def assert_equal_to_ppi_py(y, yhat, yhat_u, alpha, w=None, w_u=None) -> None:
    ours = ppi_mean(y, yhat, yhat_u, alpha=alpha, w=w, w_unlabeled=w_u)
    assert ours is not None
    point, lower, upper = reference(y, yhat, yhat_u, alpha, w, w_u)
    assert ours.estimate == pytest.approx(point, abs=1e-9, rel=0)
    assert ours.lower == pytest.approx(lower, abs=1e-9, rel=0)
    assert ours.upper == pytest.approx(upper, abs=1e-9, rel=0)


def verdict_scores(rng: np.random.Generator, truth: np.ndarray, accuracy: float) -> np.ndarray:
    """A judge that gives the true verdict with probability ``accuracy``, else any of the
    three at random."""
    noise = rng.choice([0.0, 0.5, 1.0], size=truth.shape[0])
    return np.where(rng.random(truth.shape[0]) < accuracy, truth, noise)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", ALPHAS)
def test_random_verdicts_equal_ppi_py(seed: int, alpha: float) -> None:
    rng = np.random.default_rng(seed)
    n, big_n = int(rng.integers(20, 400)), int(rng.integers(50, 5000))
    truth = rng.choice([0.0, 0.5, 1.0], p=[0.45, 0.1, 0.45], size=n + big_n)
    judge = verdict_scores(rng, truth, accuracy=rng.uniform(0.3, 0.95))
    assert_equal_to_ppi_py(truth[:n], judge[:n], judge[n:], alpha)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("alpha", ALPHAS)
def test_fractional_preferences_with_weights_equal_ppi_py(seed: int, alpha: float) -> None:
    """A judge with fractional preferences, reviewed pairs drawn with unequal weights, and
    continuous humans too (lam anywhere in [0, 1], clipped at either end)."""
    rng = np.random.default_rng(100 + seed)
    n, big_n = int(rng.integers(10, 300)), int(rng.integers(20, 3000))
    y = rng.random(n) if seed % 2 else rng.choice([0.0, 0.5, 1.0], size=n)
    slope = rng.choice([-0.5, 0.3, 1.0, 3.0])
    yhat = np.clip(0.5 + slope * (y - 0.5) + rng.normal(0, 0.2, n), 0, 1)
    yhat_u = rng.random(big_n)
    w, w_u = rng.uniform(0.2, 5.0, n), rng.uniform(0.5, 2.0, big_n)
    assert_equal_to_ppi_py(y, yhat, yhat_u, alpha, w, w_u)
    assert_equal_to_ppi_py(y, yhat, yhat_u, alpha, w, None)
    assert_equal_to_ppi_py(y, yhat, yhat_u, alpha, None, w_u)


def test_lam_is_clipped_at_both_ends_and_each_end_is_reached() -> None:
    """Data whose untuned lam is negative, and data whose untuned lam exceeds 1."""
    rng = np.random.default_rng(7)
    y = rng.choice([0.0, 1.0], size=200)
    opposed = 1.0 - y
    shrunk = 0.5 + 0.2 * (y - 0.5)
    rest = rng.random(2000) * 0.2 + 0.4
    assert ppi_mean(y, opposed, rng.random(2000)).lam == 0.0
    assert ppi_mean(y, shrunk, rest).lam == 1.0
    for yhat, yhat_u in ((opposed, rng.random(2000)), (shrunk, rest)):
        assert_equal_to_ppi_py(y, yhat, yhat_u, 0.05)


def claude_pairs() -> list[dict]:
    if not CLAUDE.is_file():
        pytest.skip("../shared/data is not beside this checkout")
    return json.loads(CLAUDE.read_text())


@pytest.mark.parametrize("alpha", ALPHAS)
def test_alpaca_eval_weighted_judge_with_simulated_reviewers(alpha: float) -> None:
    """AlpacaEval 2's weighted GPT-4-turbo annotator on claude-2.1's 805 pairs: the judge's
    score is its fractional preference - 1. The reviewers are simulated, honestly: on 150
    pairs drawn at random, a reviewer prefers B with the probability the annotator gave
    (a calibrated judge), and says tie on one pair in ten."""
    records = claude_pairs()
    rng = random.Random(21)
    judge = [b_score(None, r["preference"]) for r in records]
    reviewed = set(rng.sample(range(len(records)), 150))
    y, yhat, yhat_u = [], [], []
    for i, score in enumerate(judge):
        if i not in reviewed:
            yhat_u.append(score)
            continue
        draw = rng.random()
        y.append(0.5 if draw < 0.1 else float(rng.random() < score))
        yhat.append(score)
    assert_equal_to_ppi_py(y, yhat, yhat_u, alpha)
    figures = win_rate_estimates(y, yhat, yhat_u, alpha=alpha)
    # The judge alone is AlpacaEval's own win rate for claude-2.1 (leaderboard: 15.7335).
    assert figures.judge.estimate * 100 == pytest.approx(15.7335, abs=5e-5)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_alpaca_farm_gpt4_verdicts_as_truth_and_a_length_judge(alpha: float) -> None:
    """The AlpacaFarm file's GPT-4 verdicts (1, 2, or 0 for a draw) stand for the humans on
    200 pairs; the "judge" everywhere is AlpacaEval's own baseline annotator that prefers
    the longer answer (analyze.py's ``_get_longest_predictor``). Inverse-probability weights
    as an uncertainty-first sample would give them."""
    if not FARM.is_file():
        pytest.skip("../shared/data is not beside this checkout")
    records = json.loads(FARM.read_text())
    rng = random.Random(5)
    longest = [0.0 if len(r["output_1"]) > len(r["output_2"]) else 1.0 for r in records]
    truth = [b_score(None, r["preference"]) for r in records]
    order = list(range(len(records)))
    rng.shuffle(order)
    labelled, rest = order[:200], order[200:]
    y = [truth[i] for i in labelled]
    yhat = [longest[i] for i in labelled]
    yhat_u = [longest[i] for i in rest]
    assert_equal_to_ppi_py(y, yhat, yhat_u, alpha)
    w = [1 / rng.uniform(0.1, 0.5) for _ in labelled]
    w_u = [1 / (1 - rng.uniform(0.1, 0.5)) for _ in rest]
    assert_equal_to_ppi_py(y, yhat, yhat_u, alpha, w, w_u)


@pytest.mark.parametrize("alpha", ALPHAS)
def test_humans_and_judge_alone_equal_classical_mean_ci(alpha: float) -> None:
    rng = np.random.default_rng(3)
    y = rng.choice([0.0, 0.5, 1.0], size=120)
    w = rng.uniform(0.5, 3, 120)
    for weights in (None, w):
        ours = classical_mean(y, alpha=alpha, w=weights)
        lower, upper = ppi().classical_mean_ci(y, w=weights, alpha=alpha)
        assert ours.lower == pytest.approx(float(lower), abs=1e-12)
        assert ours.upper == pytest.approx(float(upper), abs=1e-12)
    yhat = verdict_scores(rng, y, 0.7)
    yhat_u = rng.choice([0.0, 0.5, 1.0], size=900)
    figures = win_rate_estimates(y, yhat, yhat_u, alpha=alpha, w=w)
    assert figures.humans == classical_mean(y, alpha=alpha, w=w)
    assert figures.judge == classical_mean(np.concatenate([yhat, yhat_u]), alpha=alpha)
    # lam = 0 is the humans alone; lam = 1 is plain PPI (ppi_py with lam=1)
    assert ppi_mean(y, yhat, yhat_u, alpha=alpha, lam=0).upper == pytest.approx(
        classical_mean(y, alpha=alpha).upper, abs=1e-12
    )
    _, upper = ppi().ppi_mean_ci(y, yhat, yhat_u, alpha=alpha, lam=1)
    assert ppi_mean(y, yhat, yhat_u, alpha=alpha, lam=1).upper == pytest.approx(
        float(upper[0]), abs=1e-12
    )


def test_a_judge_that_tracks_the_humans_narrows_the_interval() -> None:
    rng = np.random.default_rng(11)
    truth = rng.choice([0.0, 0.5, 1.0], p=[0.4, 0.1, 0.5], size=20_300)
    judge = verdict_scores(rng, truth, 0.85)
    figures = win_rate_estimates(truth[:300], judge[:300], judge[300:])
    assert figures.combined.half_width < 0.75 * figures.humans.half_width
    assert 0.5 < figures.combined.lam <= 1


def test_undefined_figures_are_none_and_bad_input_is_refused() -> None:
    assert ppi_mean([1.0], [1.0], [0.0, 1.0]) is None
    assert ppi_mean([1.0, 0.0], [1.0, 0.0], []) is None
    assert classical_mean([0.5]) is None
    constant = ppi_mean([1.0, 0.0, 0.5], [0.5, 0.5, 0.5], [0.5] * 10)
    assert constant.lam == 0.0 and constant.estimate == pytest.approx(0.5)
    with pytest.raises(ValueError, match="alpha"):
        ppi_mean([1.0, 0.0], [1.0, 0.0], [0.0], alpha=1.5)
    with pytest.raises(ValueError, match="yhat"):
        ppi_mean([1.0, 0.0], [1.0], [0.0])
    with pytest.raises(ValueError, match="positive"):
        ppi_mean([1.0, 0.0], [1.0, 0.0], [0.0], w=[1.0, 0.0])
    with pytest.raises(ValueError, match="finite"):
        ppi_mean([1.0, float("nan")], [1.0, 0.0], [0.0])
