"""How many more reviews: reviewing the number it gives reaches the chosen half-width
(checked by simulation), and the closed form in its docstring holds."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from desktop.domain.prediction_powered import PPIEstimate, ppi_mean, z_value
from desktop.domain.review_budget import half_width_after, more_reviews_needed

POPULATION = 20_000


def project(seed: int, accuracy: float) -> tuple[np.random.Generator, np.ndarray, np.ndarray]:
    """Human scores on every pair of a project and a judge right ``accuracy`` of the time
    (otherwise any verdict at random)."""
    rng = np.random.default_rng(seed)
    truth = rng.choice([0.0, 0.5, 1.0], p=[0.4, 0.1, 0.5], size=POPULATION)
    noise = rng.choice([0.0, 0.5, 1.0], size=POPULATION)
    return rng, truth, np.where(rng.random(POPULATION) < accuracy, truth, noise)


@pytest.mark.slow
@pytest.mark.parametrize(("accuracy", "target"), [(0.8, 0.02), (0.5, 0.03)])
def test_reviewing_that_many_more_reaches_the_width(accuracy: float, target: float) -> None:
    """200 reviewed pairs drawn at random; ask how many more for ±target; review that many
    more from the rest (the same random order) and measure the interval again. Over 200
    such projects the half-width reached averages the target within 4% and about half of
    them reach it (the estimate is a forecast, not a guarantee)."""
    rng, truth, judge = project(1, accuracy)
    ratios, more = [], []
    for _ in range(200):
        order = rng.permutation(POPULATION)
        now = ppi_mean(truth[order[:200]], judge[order[:200]], judge[order[200:]])
        m = more_reviews_needed(now, target)
        assert m is not None and m > 0
        k = 200 + m
        later = ppi_mean(truth[order[:k]], judge[order[:k]], judge[order[k:]])
        ratios.append(later.half_width / target)
        more.append(m)
    assert abs(np.mean(ratios) - 1) < 0.04
    assert 0.3 < np.mean(np.array(ratios) <= 1) < 0.7
    # and the judge counts: the humans alone would need far more than PPI++ asks for
    humans_alone = truth.var() * (z_value(0.05) / target) ** 2 - 200
    assert np.median(more) < 0.8 * humans_alone


def estimate(**moments: float) -> PPIEstimate:
    base = PPIEstimate(
        estimate=0.5,
        lower=0.4,
        upper=0.6,
        n=100,
        n_unlabeled=9_900,
        lam=0.0,
        alpha=0.05,
        rectifier_var=0.0,
        imputed_var=0.0,
        var_y=0.2,
        cov=0.12,
        var_yhat=0.18,
        var_yhat_unlabeled=0.18,
        slope=0.12 / 0.18,
    )
    return replace(base, **moments)


def test_the_closed_form_in_the_docstring() -> None:
    """Where lam is not clipped and the judge's variance is the same on both sides:
    n' = (s_yy - s_yj^2 / s) / ((h / z)^2 - s_yj^2 / (s M))."""
    est = estimate()
    s_yy, s_yj, s = 0.2, 0.12, 0.18
    total = est.n + est.n_unlabeled
    for h in (0.05, 0.02, 0.012, 0.01):
        n_prime = (s_yy - s_yj**2 / s) / ((h / z_value(0.05)) ** 2 - s_yj**2 / (s * total))
        assert more_reviews_needed(est, h) == math.ceil(n_prime) - est.n
        assert half_width_after(est, math.ceil(n_prime) - est.n) <= h
        assert half_width_after(est, math.ceil(n_prime) - est.n - 1) > h
    assert more_reviews_needed(est, 0.0075) is None  # below z sqrt(s_yy / M): never


def test_already_there_unreachable_and_bad_targets() -> None:
    _, truth, judge = project(2, 0.7)
    now = ppi_mean(truth[:300], judge[:300], judge[300:])
    assert more_reviews_needed(now, now.half_width * 1.01) == 0
    # no review narrows the interval below the humans' own with every pair reviewed
    floor = z_value(0.05) * math.sqrt(now.var_y / POPULATION)
    assert more_reviews_needed(now, floor * 0.9) is None
    assert more_reviews_needed(now, floor * 1.1) is not None
    with pytest.raises(ValueError, match="above 0"):
        more_reviews_needed(now, 0)


def test_at_todays_count_the_projection_is_todays_interval() -> None:
    _, truth, judge = project(3, 0.75)
    now = ppi_mean(truth[:500], judge[:500], judge[500:])
    assert half_width_after(now, 0) == pytest.approx(now.half_width, rel=1e-12)
