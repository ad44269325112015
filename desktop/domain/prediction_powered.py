"""Prediction-powered win rates: a few human verdicts and many judge verdicts in one
estimate with an honest interval (PPI++: Angelopoulos, Duchi and Zrnic 2023; applied to LLM
judges in "AutoEval Done Right", Boyeau et al. 2024).

Every value is B's score of a pair (``head_to_head.b_score``: B 1, tie 0.5, A 0, or the
judge's fractional preference). ``y`` are the humans' scores on the reviewed pairs, ``yhat``
the judge's on the same pairs, ``yhat_unlabeled`` the judge's on the rest. The estimate is

    theta = mean(w_u * lam * yhat_unlabeled) + mean(w * (y - lam * yhat))

the judge's win rate on the rest, corrected by how far it strays from the humans where both
answered. ``lam`` (power tuning) weighs the judge by how well it tracks the humans: 0 ignores
it (the humans alone), 1 is plain PPI. The formulas are ``ppi_py``'s (ppi_py/ppi.py, 0.2.3:
``ppi_mean_pointestimate``, ``ppi_mean_ci`` with its default tuning ``_calc_lam_glm``,
``classical_mean_ci``) so the numbers equal that package's to rounding:

- weights are scaled to average 1 (``w / sum(w) * n``); none means all ones;
- lam = cov(g, g_hat) / ((1 + n/N) var(g_hat ∪ g_hat_u)), clipped to [0, 1], where
  g = w (y - theta_1), g_hat = w (yhat - theta_1), g_hat_u = w_u (yhat_u - theta_1) and
  theta_1 the estimate at lam = 1; the covariance divides by n, the pooled variance by
  n + N - 1 (numpy's ``cov``);
- the interval is normal (z, not t): theta ± z sqrt(var(w_u lam yhat_u)/N +
  var(w (y - lam yhat))/n), each variance dividing by its count (``std`` with ddof 0).

Weights are inverse inclusion probabilities (``review_sample.ipw_weights``): a sample that
favours uncertain verdicts stays unbiased. Where the judge's scores do not vary at all lam
is 0 (ppi_py gives NaN; any lam gives the same estimate there). A figure that the data
cannot give (no reviewed pair, one reviewed pair, no other pair) is None.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

Values = Sequence[float] | np.ndarray


@dataclass(frozen=True)
class MeanInterval:
    """A mean with its two-sided interval at level 1 - alpha."""

    estimate: float
    lower: float
    upper: float
    n: int

    @property
    def half_width(self) -> float:
        return (self.upper - self.lower) / 2


@dataclass(frozen=True)
class PPIEstimate(MeanInterval):
    """The PPI++ estimate, with the terms its interval is made of (for ``review_budget``).

    ``rectifier_var`` is var(w (y - lam yhat)) over the reviewed pairs and ``imputed_var``
    var(w_u lam yhat_u) over the rest, so the half-width is
    z sqrt(rectifier_var / n + imputed_var / n_unlabeled). The moments both follow from
    when more pairs are reviewed: ``var_y``, ``cov``, ``var_yhat`` are var(w y),
    cov(w y, w yhat), var(w yhat) over the reviewed pairs, ``var_yhat_unlabeled`` is
    var(w_u yhat_u), and ``slope`` the ratio that tuned lam: lam = slope / (1 + n / N),
    clipped to [0, 1]."""

    n_unlabeled: int
    lam: float
    alpha: float
    rectifier_var: float
    imputed_var: float
    var_y: float
    cov: float
    var_yhat: float
    var_yhat_unlabeled: float
    slope: float


def z_value(alpha: float) -> float:
    """The normal quantile of a two-sided interval at level 1 - alpha."""
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}")
    return NormalDist().inv_cdf(1.0 - alpha / 2.0)


def _array(values: Values, name: str) -> np.ndarray:
    out = np.asarray(values, dtype=float).reshape(-1)
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} holds a value that is not a finite number")
    return out


def _weights(w: Values | None, n: int, name: str) -> np.ndarray:
    """ppi_py's ``construct_weight_vector``: scaled to average 1, or all ones."""
    if w is None:
        return np.ones(n)
    out = _array(w, name)
    if out.shape[0] != n:
        raise ValueError(f"{name} has {out.shape[0]} weights for {n} values")
    if np.any(out <= 0):
        raise ValueError(f"{name} must be positive")
    scaled: np.ndarray = out / out.sum() * n
    return scaled


def classical_mean(
    values: Values, *, alpha: float = 0.05, w: Values | None = None
) -> MeanInterval | None:
    """The (weighted) mean and normal interval of ``values`` alone: ppi_py's
    ``classical_mean_ci``. The humans alone, or the judge alone. None under two values."""
    y = _array(values, "values")
    n = y.shape[0]
    if n < 2:
        return None
    wy = _weights(w, n, "w") * y
    mean = float(wy.mean())
    half = z_value(alpha) * float(wy.std()) / math.sqrt(n)
    return MeanInterval(mean, mean - half, mean + half, n)


def _tuned_lam(
    y: np.ndarray, yhat: np.ndarray, yhat_u: np.ndarray, w: np.ndarray, w_u: np.ndarray
) -> tuple[float, float]:
    """(lam, slope): ppi_py's ``_calc_lam_glm`` for a mean, clipped to [0, 1]."""
    n, big_n = y.shape[0], yhat_u.shape[0]
    theta_1 = float((w_u * yhat_u).mean() + (w * (y - yhat)).mean())
    grads = w * (y - theta_1)
    grads_hat = w * (yhat - theta_1)
    grads_hat_u = w_u * (yhat_u - theta_1)
    cov = float(((grads - grads.mean()) * (grads_hat - grads_hat.mean())).sum()) / n
    pooled = float(np.var(np.concatenate([grads_hat, grads_hat_u]), ddof=1))
    if pooled <= 0.0:
        return 0.0, 0.0
    slope = cov / pooled
    return min(max(slope / (1.0 + n / big_n), 0.0), 1.0), slope


def ppi_mean(
    y: Values,
    yhat: Values,
    yhat_unlabeled: Values,
    *,
    alpha: float = 0.05,
    w: Values | None = None,
    w_unlabeled: Values | None = None,
    lam: float | None = None,
) -> PPIEstimate | None:
    """PPI++ point estimate and two-sided interval of the mean of ``y`` (module docstring).
    ``lam`` None tunes it; a number fixes it (0: the humans alone; 1: plain PPI)."""
    y_, yhat_, yhat_u = (
        _array(y, "y"),
        _array(yhat, "yhat"),
        _array(yhat_unlabeled, "yhat_unlabeled"),
    )
    n, big_n = y_.shape[0], yhat_u.shape[0]
    if yhat_.shape[0] != n:
        raise ValueError(f"y has {n} values but yhat has {yhat_.shape[0]}")
    if n < 2 or big_n < 1:
        return None
    w_ = _weights(w, n, "w")
    w_u = _weights(w_unlabeled, big_n, "w_unlabeled")
    tuned, slope = _tuned_lam(y_, yhat_, yhat_u, w_, w_u)
    lam_ = tuned if lam is None else float(lam)
    rectifier = w_ * (y_ - lam_ * yhat_)
    imputed = w_u * (lam_ * yhat_u)
    estimate = float(imputed.mean() + rectifier.mean())
    rectifier_var, imputed_var = float(rectifier.var()), float(imputed.var())
    half = z_value(alpha) * math.sqrt(imputed_var / big_n + rectifier_var / n)
    wy, wyhat = w_ * y_, w_ * yhat_
    return PPIEstimate(
        estimate=estimate,
        lower=estimate - half,
        upper=estimate + half,
        n=n,
        n_unlabeled=big_n,
        lam=lam_,
        alpha=alpha,
        rectifier_var=rectifier_var,
        imputed_var=imputed_var,
        var_y=float(wy.var()),
        cov=float(((wy - wy.mean()) * (wyhat - wyhat.mean())).mean()),
        var_yhat=float(wyhat.var()),
        var_yhat_unlabeled=float((w_u * yhat_u).var()),
        slope=slope,
    )


@dataclass(frozen=True)
class WinRateEstimates:
    """The three answers to "what is B's win rate?", side by side.

    ``judge``: the judge's verdicts on every pair (biased by whatever the judge gets wrong;
    its interval is about the judge, not the truth). ``humans``: the reviewed pairs alone.
    ``combined``: PPI++. Each is None where the data cannot give it."""

    judge: MeanInterval | None
    humans: MeanInterval | None
    combined: PPIEstimate | None


def win_rate_estimates(
    y: Values,
    yhat: Values,
    yhat_unlabeled: Values,
    *,
    alpha: float = 0.05,
    w: Values | None = None,
    w_unlabeled: Values | None = None,
) -> WinRateEstimates:
    """The judge alone, the humans alone (weighted by ``w``) and PPI++ at level 1 - alpha.

    The judge alone counts every pair once (its verdicts are a census, not a sample), so
    it takes no weights."""
    everything = np.concatenate([_array(yhat, "yhat"), _array(yhat_unlabeled, "yhat_unlabeled")])
    return WinRateEstimates(
        judge=classical_mean(everything, alpha=alpha),
        humans=classical_mean(y, alpha=alpha, w=w),
        combined=ppi_mean(y, yhat, yhat_unlabeled, alpha=alpha, w=w, w_unlabeled=w_unlabeled),
    )
