"""Exact binomial draws from a seeded ``random.Random`` and a percentile bootstrap of the
win rate built on them.

A win rate depends only on how many verdicts are A, B and tie, so resampling the pairs
with replacement is the same as drawing those three counts from a multinomial. Drawing
the counts (two binomials) costs the same for 80 pairs as for 800,000; resampling the
pairs one by one would not. ``random.binomialvariate`` only arrived in Python 3.12.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence


def binomial(rng: random.Random, n: int, p: float) -> int:
    """A draw from Binomial(n, p): by waiting times when n·p is small, else Hörmann's
    BTRS rejection sampler (Hörmann 1993, "The generation of binomial random variates")."""
    if n < 0 or not 0.0 <= p <= 1.0:
        raise ValueError(f"binomial needs n >= 0 and 0 <= p <= 1, got n={n}, p={p}")
    if n == 0 or p == 0.0:
        return 0
    if p == 1.0:
        return n
    if p > 0.5:
        return n - binomial(rng, n, 1.0 - p)
    if n * p < 10.0:
        return _waiting_times(rng, n, p)
    return _btrs(rng, n, p)


def _waiting_times(rng: random.Random, n: int, p: float) -> int:
    """Count successes by adding geometric gaps between them until the trials run out."""
    log_q = math.log1p(-p)
    successes = trial = 0
    while True:
        trial += math.floor(math.log(1.0 - rng.random()) / log_q) + 1
        if trial > n:
            return successes
        successes += 1


def _btrs(rng: random.Random, n: int, p: float) -> int:
    q = 1.0 - p
    spq = math.sqrt(n * p * q)
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = math.log(p / q)
    m = math.floor((n + 1) * p)
    h = math.lgamma(m + 1) + math.lgamma(n - m + 1)
    while True:
        u = rng.random() - 0.5
        v = rng.random()
        us = 0.5 - abs(u)
        if us <= 0.0:
            continue
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v *= alpha / (a / (us * us) + b)
        if v <= 0.0:
            return k
        if math.log(v) <= h - math.lgamma(k + 1) - math.lgamma(n - k + 1) + (k - m) * lpq:
            return k


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (numpy's default "linear" method)."""
    if not sorted_values:
        raise ValueError("quantile of no values")
    h = (len(sorted_values) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def bootstrap_win_rate(
    a: int,
    b: int,
    tie: int,
    *,
    rng: random.Random,
    resamples: int = 2000,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of (A + tie/2) / n; None with no verdicts."""
    n = a + b + tie
    if n == 0:
        return None
    p_a = a / n
    p_tie_rest = tie / (n - a) if n > a else 0.0
    rates = []
    for _ in range(resamples):
        got_a = binomial(rng, n, p_a)
        got_tie = binomial(rng, n - got_a, p_tie_rest)
        rates.append((got_a + 0.5 * got_tie) / n)
    rates.sort()
    tail = (1.0 - level) / 2.0
    return quantile(rates, tail), quantile(rates, 1.0 - tail)
