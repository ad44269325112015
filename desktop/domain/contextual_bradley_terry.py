"""Bradley-Terry with style control: strengths and style coefficients fitted together, as
LMArena's ``arena-rank`` ``ContextualBradleyTerry`` (0.1.1) fits them, in numpy.

P(A beats B) = 1 / (1 + exp(-(r_A - r_B + x . c))), x a battle's style features
(``style_features``), c their coefficients. The fit minimises arena-rank's loss
-mean(w (o z - log(1 + exp(z)))) + reg/2 |c|^2, o A's outcome (1 won, 0.5 tie, 0 lost),
by Newton's method (the loss is smooth and convex, and K + 4 parameters make a small
Hessian); arena-rank runs L-BFGS to the same optimum. The strengths average 0, as
arena-rank's start at 0 and its steps keep their sum. A ridge of 1e-9 on the strengths keeps
a model that won or lost everything finite, as in ``bradley_terry``.

Battles are not collapsed into cells here: each has its own features. The sandwich is
arena-rank's: H^-1 G H^-1 / N with H the data's Hessian plus ``HESSIAN_REG`` on its
diagonal and G the per-battle gradients' covariance less its ridge correction. The
bootstrap resamples battles with replacement (numpy's PCG64 from the seed) and refits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

REG = 1.0  # arena-rank's ContextualBradleyTerry.reg default, on the mean loss
FASTCHAT_REG = 0.5  # FastChat's compute_style_control reg, on the summed loss
HESSIAN_REG = 1e-5  # arena-rank's hessian_reg
RIDGE = 1e-9  # on the strengths (module docstring)
_MAX_STEP = 2.0


@dataclass(frozen=True)
class StyleBattles:
    """One row per battle: ``a``, ``b`` index ``models``; ``outcome`` is A's (1 - B's
    score); ``features`` (N, F) standardised; ``weights`` (N,) mean 1 (all 1 unweighted)."""

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    features: np.ndarray
    weights: np.ndarray


def fastchat_reg(battles: int) -> float:
    """FastChat's ridge (0.5 on the loss summed over battles) as arena-rank's ``reg`` (on
    the mean): what LMArena's published style coefficients were fitted with. arena-rank's
    default of 1 on the mean is N times as strong and shrinks the coefficients several-fold
    wherever a model's own style varies little between its answers."""
    return FASTCHAT_REG / max(battles, 1)


def _expit(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        out: np.ndarray = 1.0 / (1.0 + np.exp(-x))
    return out


def _logits(data: StyleBattles, theta: np.ndarray) -> np.ndarray:
    k = len(data.models)
    out: np.ndarray = theta[data.a] - theta[data.b] + data.features @ theta[k:]
    return out


def _outer(data: StyleBattles, values: np.ndarray) -> np.ndarray:
    """(1/N) sum of values_i v_i v_i^T, v_i = (e_A - e_B, x_i): the shape of both the
    Hessian and the gradients' covariance."""
    k, n = len(data.models), len(data.a)
    x = data.features
    pairs = np.bincount(data.a * k + data.b, values, k * k).reshape(k, k)
    sym = pairs + pairs.T
    ratings = -sym
    ratings[np.diag_indices(k)] += sym.sum(axis=1)
    weighted = values[:, None] * x
    cross = np.stack(
        [
            np.bincount(data.a, weighted[:, f], k) - np.bincount(data.b, weighted[:, f], k)
            for f in range(x.shape[1])
        ],
        axis=1,
    ).reshape(k, x.shape[1])
    block: np.ndarray = np.block([[ratings, cross], [cross.T, x.T @ weighted]]) / n
    return block


def fit(
    data: StyleBattles, reg: float = REG, counts: np.ndarray | None = None, tol: float = 1e-11
) -> np.ndarray:
    """(K + F,) strengths (averaging 0) then coefficients, minimising the loss; ``counts``
    (N,) how often each battle is drawn (a bootstrap resample), default once each."""
    k, f = len(data.models), data.features.shape[1]
    w = data.weights if counts is None else data.weights * counts
    penalty = np.concatenate([np.full(k, RIDGE), np.full(f, reg)])
    theta = np.zeros(k + f)
    n = len(data.a)
    for _ in range(100):
        p = _expit(_logits(data, theta))
        resid = w * (data.outcome - p)
        grad = np.concatenate(
            [
                np.bincount(data.a, resid, k) - np.bincount(data.b, resid, k),
                data.features.T @ resid,
            ]
        )
        grad = -grad / n + penalty * theta
        hess = _outer(data, w * p * (1.0 - p)) + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        longest = float(np.abs(step).max())
        step *= min(1.0, _MAX_STEP / max(longest, 1e-300))
        theta -= step
        if longest < tol:
            break
    theta[:k] -= theta[:k].mean()
    return theta


def sandwich_se(data: StyleBattles, theta: np.ndarray, reg: float = REG) -> np.ndarray:
    """Standard errors (K + F,) of the strengths and coefficients, arena-rank's sandwich."""
    k, n = len(data.models), len(data.a)
    p = _expit(_logits(data, theta))
    hess = _outer(data, p * (1.0 - p) * data.weights) + HESSIAN_REG * np.eye(len(theta))
    grad_cov = _outer(data, ((data.outcome - p) * data.weights) ** 2)
    shrunk = np.concatenate([np.zeros(k), theta[k:]])
    grad_cov -= (reg**2 / n) * np.outer(shrunk, shrunk)
    inverse = np.linalg.inv(hess)
    errors: np.ndarray = np.sqrt(np.diag(inverse @ grad_cov @ inverse) / n)
    return errors


def bootstrap(data: StyleBattles, rounds: int, seed: int, reg: float = REG) -> np.ndarray:
    """(rounds, K + F) refits on resamples of the battles drawn with replacement."""
    if rounds < 1:
        raise ValueError(f"a bootstrap needs at least one round, got {rounds}")
    rng = np.random.default_rng(seed)
    n = len(data.a)
    out = np.empty((rounds, len(data.models) + data.features.shape[1]))
    for i in range(rounds):
        counts = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        out[i] = fit(data, reg, counts)
    return out
