"""A sample to review: exactly the size asked, repeatable from its seed, each pair drawn
with the probability it reports, and figures weighted by those probabilities unbiased
however strongly the draw favoured uncertain verdicts (checked by simulation)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from desktop.domain.prediction_powered import classical_mean, ppi_mean
from desktop.domain.review_sample import (
    draw_sample,
    inclusion_probabilities,
    ipw_weights,
    verdict_uncertainty,
)


def test_uncertainty_of_a_verdict() -> None:
    assert verdict_uncertainty() == 0.0
    assert verdict_uncertainty(1.0) == 0.0
    assert verdict_uncertainty(0.75) == 0.5
    assert verdict_uncertainty(0.4) == 1.0  # below a coin toss between two: as unsure as can be
    assert verdict_uncertainty(0.95, flipped=True) == 1.0
    assert verdict_uncertainty(0.0) == 1.0  # a jury split evenly: none behind its tie
    assert verdict_uncertainty(2 / 3) == pytest.approx(2 / 3)  # a jury of three, 2 to 1


def test_probabilities_sum_to_the_size_keep_the_floor_and_never_pass_one() -> None:
    rng = random.Random(1)
    u = [rng.random() ** 3 for _ in range(500)] + [1.0] * 5
    p = inclusion_probabilities(u, 100, floor=0.1)
    assert sum(p) == pytest.approx(100)
    assert max(p) <= 1.0 and min(p) > 0
    surest, least_sure = min(range(505), key=u.__getitem__), 500
    assert p[surest] / p[least_sure] == pytest.approx((0.1 + 0.9 * u[surest]) / 1.0)
    # so uncertain and so few pairs that some are certain to be drawn
    p = inclusion_probabilities([1.0] * 3 + [0.0] * 20, 6, floor=0.05)
    assert p[:3] == [1.0, 1.0, 1.0] and sum(p) == pytest.approx(6)
    assert inclusion_probabilities([0.3] * 10, 4) == pytest.approx([0.4] * 10)
    for bad in ({"size": 0}, {"size": 11}, {"size": 2, "floor": 0.0}):
        with pytest.raises(ValueError):
            inclusion_probabilities([0.3] * 10, **{"size": 5, **bad})


def test_the_same_seed_draws_the_same_pairs_whatever_their_order() -> None:
    rng = random.Random(2)
    pairs = list(range(1000, 3000))
    u = {pair: rng.random() for pair in pairs}
    first = draw_sample(pairs, 150, seed=7, uncertainties=[u[p] for p in pairs])
    shuffled = pairs[:]
    rng.shuffle(shuffled)
    again = draw_sample(shuffled, 150, seed=7, uncertainties=[u[p] for p in shuffled])
    assert again == first
    assert len(first) == 150 and len({d.pair for d in first}) == 150
    other = draw_sample(pairs, 150, seed=8, uncertainties=[u[p] for p in pairs])
    assert {d.pair for d in other} != {d.pair for d in first}
    uniform = draw_sample(pairs, 150, seed=7)
    assert [d.probability for d in uniform] == pytest.approx([150 / 2000] * 150)
    with pytest.raises(ValueError, match="twice"):
        draw_sample([1, 2, 2], 1, seed=0)


@pytest.mark.slow
def test_each_pair_is_drawn_as_often_as_its_probability_says() -> None:
    """2,000 draws of 40 among 200 pairs: each pair's frequency against its probability,
    within 4.5 standard errors for every pair (chance of a false alarm about 1 in 1,000)."""
    rng = random.Random(3)
    u = [rng.random() ** 2 for _ in range(200)]
    p = inclusion_probabilities(u, 40, floor=0.1)
    hits = [0] * 200
    for seed in range(2000):
        for d in draw_sample(list(range(200)), 40, seed=seed, uncertainties=u, floor=0.1):
            hits[d.pair] += 1
            assert d.probability == p[d.pair]
    for pair in range(200):
        se = (p[pair] * (1 - p[pair]) / 2000) ** 0.5
        assert abs(hits[pair] / 2000 - p[pair]) < 4.5 * se + 1e-9


@pytest.mark.slow
def test_weighted_figures_over_an_uncertainty_first_sample_are_unbiased() -> None:
    """A project of 1,500 pairs where the judge is wrong more often where it is unsure, and
    the humans prefer B less there. An uncertainty-first sample of 100, drawn 800 times:
    the plain mean of the reviewed pairs is biased (the flaw the sample fixes); weighted by
    1 / probability (and the rest 1 / (1 - p)), the humans' mean and PPI++ average to the
    project's true win rate, PPI++ with a smaller spread."""
    rng = np.random.default_rng(4)
    size, pairs = 100, 1500
    u = rng.random(pairs) ** 2
    truth = np.where(
        rng.random(pairs) < 0.7 - 0.4 * u, 1.0, np.where(rng.random(pairs) < 0.15, 0.5, 0.0)
    )
    judge = np.where(rng.random(pairs) < 0.95 - 0.6 * u, truth, 1.0 - truth)
    true_rate = truth.mean()
    probs = inclusion_probabilities(list(u), size, floor=0.1)
    naive, humans, combined = [], [], []
    for seed in range(800):
        drawn = draw_sample(range(pairs), size, seed=seed, uncertainties=list(u), floor=0.1)
        picked = np.array([d.pair for d in drawn])
        rest = np.setdiff1d(np.arange(pairs), picked)
        w, w_rest = ipw_weights([d.probability for d in drawn], [probs[i] for i in rest])
        y, yhat = truth[picked], judge[picked]
        naive.append(y.mean())
        humans.append(classical_mean(y, w=w).estimate)
        combined.append(ppi_mean(y, yhat, judge[rest], w=w, w_unlabeled=w_rest).estimate)

    def off_by(values: list[float]) -> float:
        """How far the average lands from the truth, in Monte Carlo standard errors."""
        return abs(np.mean(values) - true_rate) / (np.std(values) / np.sqrt(len(values)))

    assert off_by(naive) > 20
    for unbiased in (humans, combined):
        assert off_by(unbiased) < 3.5
    assert np.std(combined) < np.std(humans)  # and the judge narrows it


def test_weights_for_part_of_a_sample_and_bad_probabilities() -> None:
    w, w_rest = ipw_weights([0.5, 0.25], [0.5, 0.1], reviewed_share=0.5)
    assert w == [4.0, 8.0] and w_rest == pytest.approx([1 / 0.75, 1 / 0.95])
    assert ipw_weights([0.5], [0.0]) == ([2.0], [1.0])  # judged after the sample was drawn
    with pytest.raises(ValueError, match="certain"):
        ipw_weights([0.5], [1.0])
    with pytest.raises(ValueError, match="probability"):
        ipw_weights([0.0], [])
