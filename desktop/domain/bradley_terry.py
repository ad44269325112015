"""Bradley-Terry strengths from pairwise verdicts, in natural units (log-odds), with their
uncertainty by the sandwich estimator and by bootstrap. ``ratings`` puts them on the Elo
scale; the methods are LMArena's ``arena-rank`` (``BradleyTerry``, 0.1.1), computed
differently so that a million verdicts and a thousand bootstrap rounds take seconds.

P(B beats A) = 1 / (1 + exp(r_A - r_B)); a verdict scores B 1, a tie 0.5 (half a win each
way), A 0, or a fractional preference as given. The fit maximises the likelihood
sum s d - log(1 + exp(d)), d = r_B - r_A, over the verdicts.

Why it is fast: the likelihood depends on the verdicts only through the count of each
distinct (model A, model B, score) cell, and those counts through two K x K matrices (the
verdicts and the total score between every two models), so Newton's method on K strengths
replaces any pass over the verdicts. A bootstrap over verdicts resamples those cells: a
multinomial draw of the same total over the cells, as arena-rank draws it, and each round
is again K x K work, many rounds at once.

Two numerical guards, both documented where they act: a ridge of 1e-9 per verdict on the
strengths (a model that won or lost every verdict has no finite maximum; the ridge keeps it
finite, and moves any other strength by far less than 0.001 Elo points), and arena-rank's
own 1e-5 per verdict on the sandwich's Hessian diagonal (the strengths are only defined up
to a common shift). A verdict of a model against itself says nothing and is left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

RIDGE = 1e-9  # per verdict, on the strengths (module docstring)
HESSIAN_REG = 1e-5  # per verdict, arena-rank's BradleyTerry.hessian_reg
_CHUNK = 64  # bootstrap rounds fitted at once: 64 x K x K arrays
_MAX_STEP = 2.0  # largest Newton step in log-odds; a longer one is scaled down


@dataclass(frozen=True)
class Battles:
    """Verdicts as counts of distinct cells: ``count[i]`` verdicts of ``models[a[i]]``
    (as A) against ``models[b[i]]`` (as B) that scored B ``score[i]``."""

    models: tuple[str, ...]
    a: np.ndarray
    b: np.ndarray
    score: np.ndarray
    count: np.ndarray

    @property
    def total(self) -> int:
        return int(self.count.sum())

    def per_model(self) -> np.ndarray:
        """Verdicts each model took part in."""
        k = len(self.models)
        return np.bincount(self.a, self.count, k) + np.bincount(self.b, self.count, k)

    def matrices(self, counts: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(n, s): n[i, j] verdicts with i as A and j as B, s[i, j] B's total score in them;
        with ``counts`` of shape (R, cells), one pair of K x K matrices per row."""
        k = len(self.models)
        counts = self.count[None, :] if counts is None else counts
        rows = counts.shape[0]
        flat = (np.arange(rows)[:, None] * (k * k) + (self.a * k + self.b)[None, :]).ravel()
        weights = counts.ravel().astype(float)
        n = np.bincount(flat, weights, rows * k * k).reshape(rows, k, k)
        s = np.bincount(flat, weights * np.tile(self.score, rows), rows * k * k)
        return n, s.reshape(rows, k, k)


def battles(
    model_a: Sequence[str] | np.ndarray,
    model_b: Sequence[str] | np.ndarray,
    b_score: Sequence[float] | np.ndarray,
) -> Battles:
    """Count the cells of verdicts given as three parallel sequences; models sorted by
    name, as arena-rank's ``PairDataset`` sorts them."""
    if not len(model_a) == len(model_b) == len(b_score):
        raise ValueError("model_a, model_b and b_score must have the same length")
    score = np.asarray(b_score, dtype=float)
    if score.size and not (np.all(score >= 0.0) and np.all(score <= 1.0)):
        raise ValueError("a score must be from 0 (A won) to 1 (B won)")
    index: dict[str, int] = {}
    codes = np.fromiter(
        (index.setdefault(m, len(index)) for side in (model_a, model_b) for m in side),
        dtype=np.int64,
        count=2 * len(model_a),
    )
    names = sorted(str(m) for m in index)
    rename = np.empty(len(names), dtype=np.int64)
    rename[[index[m] for m in sorted(index)]] = np.arange(len(names))
    codes = rename[codes]
    a, b = codes[: len(model_a)], codes[len(model_a) :]
    keep = a != b
    levels, score_code = np.unique(score[keep], return_inverse=True)
    k = len(names)
    key = (a[keep] * k + b[keep]) * len(levels) + score_code
    cells, count = np.unique(key, return_counts=True)
    pair, code = np.divmod(cells, max(len(levels), 1))
    return Battles(tuple(names), pair // k, pair % k, levels[code], count)


def mle_exists(data: Battles) -> bool:
    """Whether the likelihood has a finite maximum: every model can be reached from every
    other through "scored against" steps (a win, a tie or a fractional preference), Ford's
    (1957) condition. Where it fails, some model or group won or lost every verdict against
    the rest; the ridge keeps their strengths finite, but no interval means much."""
    n, s = data.matrices()
    scored = ((n[0] - s[0]) + s[0].T) > 0  # scored[i, j]: i scored against j
    k = len(data.models)
    for graph in (scored, scored.T):
        seen, todo = {0}, [0]
        while todo:
            for j in np.nonzero(graph[todo.pop()])[0].tolist():
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        if len(seen) < k:
            return False
    return True


def _expit(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        out: np.ndarray = 1.0 / (1.0 + np.exp(-x))  # numpy types float / array as Any
    return out


def _laplacian(v: np.ndarray) -> np.ndarray:
    """The matrix arena-rank's ``assemble_parwise_matrix`` builds from per-pair values
    v[..., i, j]: +v on both diagonals, -v off them."""
    sym = v + np.swapaxes(v, -1, -2)
    out: np.ndarray = -sym
    diagonal = np.arange(v.shape[-1])
    out[..., diagonal, diagonal] += sym.sum(axis=-1)
    return out


def fit_matrices(
    n: np.ndarray, s: np.ndarray, start: np.ndarray | None = None, tol: float = 1e-11
) -> np.ndarray:
    """Strengths (R, K) maximising each row's likelihood from its (R, K, K) matrices, by
    Newton's method with the ridge; every row's strengths average 0."""
    rows, k, _ = n.shape
    ridge = RIDGE * n.sum(axis=(1, 2))[:, None, None] * np.eye(k)
    r = np.zeros((rows, k)) if start is None else np.array(np.broadcast_to(start, (rows, k)))
    for _ in range(200):
        p = _expit(r[:, None, :] - r[:, :, None])  # P(column beats row)
        resid = s - n * p
        # gradient of the negative log-likelihood plus the ridge
        grad = resid.sum(axis=2) - resid.sum(axis=1) + (ridge[:, 0, 0])[:, None] * r
        hess = _laplacian(n * p * (1.0 - p)) + ridge
        step = np.linalg.solve(hess, grad[..., None])[..., 0]
        longest = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, _MAX_STEP / np.maximum(longest, 1e-300))
        r -= step
        if longest.max() < tol:
            break
    centred: np.ndarray = r - r.mean(axis=1, keepdims=True)
    return centred


def fit(data: Battles) -> np.ndarray:
    """The maximum-likelihood strengths (K,), averaging 0."""
    n, s = data.matrices()
    strengths: np.ndarray = fit_matrices(n, s)[0]
    return strengths


def sandwich_se(data: Battles, strengths: np.ndarray) -> np.ndarray:
    """Standard errors of the strengths by the sandwich estimator, as arena-rank computes
    them: H^-1 G H^-1 with H the Hessian (plus ``HESSIAN_REG`` per verdict on its
    diagonal) and G the covariance of the per-cell gradients."""
    k = len(data.models)
    p = _expit(strengths[data.b] - strengths[data.a])
    hess_cells = p * (1.0 - p) * data.count
    grad_cells = (data.score - p) ** 2 * data.count
    flat = data.a * k + data.b
    hess = _laplacian(np.bincount(flat, hess_cells, k * k).reshape(k, k))
    hess += HESSIAN_REG * data.total * np.eye(k)
    grad_cov = _laplacian(np.bincount(flat, grad_cells, k * k).reshape(k, k))
    inverse = np.linalg.inv(hess)
    errors: np.ndarray = np.sqrt(np.diag(inverse @ grad_cov @ inverse))
    return errors


def bootstrap(data: Battles, strengths: np.ndarray, rounds: int, seed: int) -> np.ndarray:
    """Strengths (rounds, K) refitted on ``rounds`` resamples of the verdicts: each a
    multinomial draw of the cells' counts (numpy's PCG64 from ``seed``), fitted from the
    full data's strengths."""
    if rounds < 1:
        raise ValueError(f"a bootstrap needs at least one round, got {rounds}")
    rng = np.random.default_rng(seed)
    shares = data.count / data.total
    out = np.empty((rounds, len(data.models)))
    for first in range(0, rounds, _CHUNK):
        size = min(_CHUNK, rounds - first)
        counts = rng.multinomial(data.total, shares, size=size)
        n, s = data.matrices(counts)
        out[first : first + size] = fit_matrices(n, s, start=strengths)
    return out
