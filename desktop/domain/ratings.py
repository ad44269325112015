"""Ratings across generators, as Chatbot Arena shows them: Bradley-Terry strengths
(``bradley_terry``) on the Elo scale, 95% intervals by the sandwich estimator and by
bootstrap, ranks that respect the intervals, and the win rate between every two.

Elo scale: rating = offset + strength * scale / ln(base), scale 400 and base 10 as Arena's,
so 400 points are 10:1 odds. The offset makes the ratings average ``mean`` (1000, as
arena-rank's ``init_rating``), or gives the ``anchor`` model the rating named; an anchor
moves every rating and bound by the same amount (the intervals are those of the
mean-anchored fit). A model's rank is 1 + the number of models whose lower bound lies above
its upper bound, so models whose intervals overlap share a rank, as Arena ranks them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from desktop.domain import bradley_terry as bt
from desktop.domain.prediction_powered import z_value

Interval = tuple[float, float]


@dataclass(frozen=True)
class Ratings:
    """One entry per model in ``models`` (sorted by name). ``win_rate[i][j]`` is the share
    of verdicts between models i and j that went to i (a tie half), None where they never
    met; ``expected_win_rate[i][j]`` what the ratings predict for that share.
    ``mle_exists`` False: some model or group won or lost every verdict against the rest,
    so their ratings are held finite only by a ridge and the intervals understate how
    little is known (``bradley_terry.mle_exists``); say so beside the figures."""

    models: tuple[str, ...]
    rating: tuple[float, ...]
    battles: tuple[int, ...]
    sandwich: tuple[Interval, ...]
    sandwich_rank: tuple[int, ...]
    bootstrap: tuple[Interval, ...] | None  # None with no bootstrap rounds
    bootstrap_rank: tuple[int, ...] | None
    win_rate: tuple[tuple[float | None, ...], ...]
    expected_win_rate: tuple[tuple[float, ...], ...]
    mle_exists: bool
    level: float
    rounds: int
    seed: int

    def by_rating(self) -> list[int]:
        """Model indices from the highest rating down."""
        return sorted(range(len(self.models)), key=lambda i: -self.rating[i])


def ranks(intervals: Sequence[Interval]) -> tuple[int, ...]:
    """1 + the number of models whose lower bound exceeds this model's upper bound."""
    lowers = np.array([lo for lo, _ in intervals])
    return tuple(1 + int((lowers > hi).sum()) for _, hi in intervals)


def _observed(n: np.ndarray, s: np.ndarray) -> tuple[tuple[float | None, ...], ...]:
    """Row's share against column from the (A, B) count and B-score matrices."""
    met = n + n.T
    won = (n - s) + s.T  # as A: the verdicts not won by B; as B: B's score
    return tuple(
        tuple(float(won[i, j] / met[i, j]) if met[i, j] > 0 else None for j in range(len(n)))
        for i in range(len(n))
    )


def model_ratings(
    model_a: Sequence[str] | np.ndarray,
    model_b: Sequence[str] | np.ndarray,
    b_score: Sequence[float] | np.ndarray,
    *,
    rounds: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    anchor: tuple[str, float] | None = None,
    scale: float = 400.0,
    base: float = 10.0,
    mean: float = 1000.0,
) -> Ratings:
    """Ratings of every model from verdicts given as three parallel sequences: the model
    shown as A, the one shown as B, and B's score (1 B won, 0.5 tie, 0 A won, or a
    fractional preference). ``rounds`` 0 skips the bootstrap."""
    data = bt.battles(model_a, model_b, b_score)
    if len(data.models) < 2 or data.total == 0:
        raise ValueError("ratings need verdicts between at least two different models")
    if not 0.0 < level < 1.0:
        raise ValueError(f"the level must be between 0 and 1, got {level}")
    if rounds < 0:
        raise ValueError(f"rounds must be 0 or more, got {rounds}")
    strengths = bt.fit(data)
    unit = scale / math.log(base)
    offset = mean
    if anchor is not None:
        name, value = anchor
        if name not in data.models:
            raise ValueError(f"the anchor {name!r} is not among the rated models")
        offset = value - strengths[data.models.index(name)] * unit
    rating = strengths * unit + offset
    half = z_value(1.0 - level) * bt.sandwich_se(data, strengths) * unit
    sandwich = tuple(zip((rating - half).tolist(), (rating + half).tolist(), strict=True))
    boot: tuple[Interval, ...] | None = None
    if rounds:
        samples = bt.bootstrap(data, strengths, rounds, seed) * unit + offset
        tail = (1.0 - level) / 2.0
        lower, upper = np.quantile(samples, [tail, 1.0 - tail], axis=0)
        boot = tuple(zip(lower.tolist(), upper.tolist(), strict=True))
    n, s = data.matrices()
    expected = 1.0 / (1.0 + base ** ((rating[None, :] - rating[:, None]) / scale))
    return Ratings(
        models=data.models,
        rating=tuple(rating.tolist()),
        battles=tuple(int(x) for x in data.per_model()),
        sandwich=sandwich,
        sandwich_rank=ranks(sandwich),
        bootstrap=boot,
        bootstrap_rank=None if boot is None else ranks(boot),
        win_rate=_observed(n[0], s[0]),
        expected_win_rate=tuple(tuple(row) for row in expected.tolist()),
        mle_exists=bt.mle_exists(data),
        level=level,
        rounds=rounds,
        seed=seed,
    )
