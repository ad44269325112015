"""How many more human verdicts a prediction-powered win rate needs to reach a chosen
interval half-width.

With n pairs reviewed out of M judged (N = M - n judged only), the PPI++ interval's
half-width is z sqrt(V), where

    V(n) = (s_yy - 2 lam s_yj + lam^2 s_jj) / n + lam^2 s_uu / (M - n)
    lam  = clip(slope / (1 + n / (M - n)), 0, 1)

s_yy, s_yj, s_jj the (weighted) variance of the humans' scores, their covariance with the
judge's and the variance of the judge's on the reviewed pairs, s_uu the variance of the
judge's on the rest, and ``slope`` the ratio that tuned lam (``PPIEstimate``). Reviewing m
more moves m pairs from the rest to the reviewed; the moments are today's estimates of
what those pairs will look like, and lam is tuned again for n + m as ppi_py would.

Where lam is not clipped (0 < lam < 1) and the judge's variance is the same on both sides
(s_jj = s_uu = s, slope = s_yj / s), substituting lam gives the closed form

    V(n') = (s_yy - s_yj^2 / s) / n' + s_yj^2 / (s M)
          = s_yy ((1 - rho^2) / n' + rho^2 / M),   rho = corr(humans, judge)

so the half-width h is reached at

    n' = (s_yy - s_yj^2 / s) / ((h / z)^2 - s_yj^2 / (s M)),    m = ceil(n') - n.

A judge that tracks the humans perfectly (rho = 1) needs no more reviews; one that says
nothing (rho = 0) needs the humans' own n' = s_yy (z / h)^2; and no review reaches a
half-width below z sqrt(s_yy / M), the humans' interval with every pair reviewed.
``more_reviews_needed`` evaluates V at every n' from n to M (clipping included) and takes
the first that reaches the width, so it holds where the closed form does not.
"""

from __future__ import annotations

import math

import numpy as np

from desktop.domain.prediction_powered import PPIEstimate, z_value


def projected_variance(estimate: PPIEstimate, reviewed: np.ndarray) -> np.ndarray:
    """V at each count of reviewed pairs in ``reviewed`` (from n to M; module docstring)."""
    total = estimate.n + estimate.n_unlabeled
    n = reviewed.astype(float)
    rest = total - n
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(estimate.slope / (1.0 + n / rest), 0.0, 1.0)
        rectifier = estimate.var_y - 2.0 * lam * estimate.cov + lam**2 * estimate.var_yhat
        imputed = np.where(rest > 0, lam**2 * estimate.var_yhat_unlabeled / rest, 0.0)
    everything = estimate.var_y / n  # every pair reviewed: the humans alone
    return np.where(rest > 0, rectifier / n + imputed, everything)


def more_reviews_needed(estimate: PPIEstimate, half_width: float) -> int | None:
    """Further human verdicts after which the interval at ``estimate.alpha`` is expected
    to be at most ±``half_width``: 0 if it already is, None if reviewing every pair would
    not get there."""
    if not half_width > 0:
        raise ValueError(f"the half-width must be above 0, got {half_width}")
    if estimate.half_width <= half_width:
        return 0
    target = (half_width / z_value(estimate.alpha)) ** 2
    counts = np.arange(estimate.n, estimate.n + estimate.n_unlabeled + 1)
    reached = np.nonzero(projected_variance(estimate, counts) <= target)[0]
    if reached.size == 0:
        return None
    return int(counts[reached[0]]) - estimate.n


def half_width_after(estimate: PPIEstimate, more: int) -> float:
    """The half-width expected after ``more`` further reviews."""
    reviewed = min(estimate.n + more, estimate.n + estimate.n_unlabeled)
    variance = projected_variance(estimate, np.array([reviewed]))[0]
    return z_value(estimate.alpha) * math.sqrt(float(variance))
