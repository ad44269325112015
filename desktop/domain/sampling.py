"""A percentile bootstrap of the win rate, drawn with numpy from a seed named by the figure.

A win rate depends only on how many verdicts are A, B and tie, so resampling the pairs
with replacement is the same as drawing those three counts from a multinomial: A's count
from Binomial(n, p_A), then the ties from what is left. All resamples are drawn at once,
so an interval costs the same for 80 pairs as for 800,000 and about 0.1 ms in all.

The seed is a name (a figure's key) rather than a number so that each figure has its own
stream: adding a dimension or a section does not move another figure's interval.
"""

from __future__ import annotations

import hashlib

import numpy as np


def seeded(name: str) -> np.random.Generator:
    """numpy's default generator (PCG64) seeded by a stable hash of ``name``: the same on
    every machine and Python, unlike ``hash()``."""
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "little"))


def bootstrap_win_rate(
    a: int,
    b: int,
    tie: int,
    *,
    rng: np.random.Generator,
    resamples: int = 2000,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of (A + tie/2) / n (numpy's linear quantiles); None
    with no verdicts."""
    n = a + b + tie
    if n == 0:
        return None
    got_a = rng.binomial(n, a / n, resamples)
    got_tie = rng.binomial(n - got_a, tie / (n - a) if n > a else 0.0)
    rates = (got_a + 0.5 * got_tie) / n
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(rates, [tail, 1.0 - tail])
    return float(low), float(high)
