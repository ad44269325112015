"""Ratings with style control, as Chatbot Arena shows them beside the plain ones: each
model's Bradley-Terry rating once the answers' style (length and markdown, see
``style_features``) is accounted for, and the style coefficients, with intervals by the
sandwich estimator and by bootstrap. The arithmetic is ``contextual_bradley_terry``
(arena-rank's ``ContextualBradleyTerry``); the scale, anchor and ranks are ``ratings``'.

A coefficient is in log-odds per standard deviation of its feature: 0.25 on tokens means an
answer one standard deviation longer (relative to its rival) has 1.28 times the odds of
winning at equal ratings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from desktop.domain import contextual_bradley_terry as cbt
from desktop.domain.prediction_powered import z_value
from desktop.domain.ratings import Interval, ranks
from desktop.domain.style_features import FEATURES, battle_features


@dataclass(frozen=True)
class StyleRatings:
    """One entry per model in ``models`` (sorted by name), one per feature in FEATURES."""

    models: tuple[str, ...]
    rating: tuple[float, ...]
    sandwich: tuple[Interval, ...]
    sandwich_rank: tuple[int, ...]
    bootstrap: tuple[Interval, ...] | None
    bootstrap_rank: tuple[int, ...] | None
    coefficient: tuple[float, ...]
    coefficient_sandwich: tuple[Interval, ...]
    coefficient_bootstrap: tuple[Interval, ...] | None
    reg: float


def style_ratings(
    model_a: Sequence[str],
    model_b: Sequence[str],
    b_score: Sequence[float],
    style_a: np.ndarray,
    style_b: np.ndarray,
    *,
    rounds: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    anchor: tuple[str, float] | None = None,
    reg: float | None = None,
) -> StyleRatings:
    """Style-controlled ratings from battles (as ``ratings.model_ratings`` takes them) and
    each side's (N, 4) style counts; ``reg`` default FastChat's ridge (``fastchat_reg``)."""
    names = sorted(set(model_a) | set(model_b))
    if len(names) < 2 or not len(model_a):
        raise ValueError("ratings need verdicts between at least two different models")
    index = {m: i for i, m in enumerate(names)}
    a = np.array([index[m] for m in model_a], dtype=np.int64)
    b = np.array([index[m] for m in model_b], dtype=np.int64)
    keep = a != b
    features = battle_features(np.asarray(style_a)[keep], np.asarray(style_b)[keep])
    outcome = 1.0 - np.asarray(b_score, dtype=float)[keep]
    data = cbt.StyleBattles(
        tuple(names), a[keep], b[keep], outcome, features, np.ones(int(keep.sum()))
    )
    reg = cbt.fastchat_reg(len(outcome)) if reg is None else reg
    theta = cbt.fit(data, reg)
    k = len(names)
    unit = 400.0 / math.log(10.0)
    offset = 1000.0
    if anchor is not None:
        if anchor[0] not in index:
            raise ValueError(f"the anchor {anchor[0]!r} is not among the rated models")
        offset = anchor[1] - theta[index[anchor[0]]] * unit
    z = z_value(1.0 - level)
    se = cbt.sandwich_se(data, theta, reg)
    rating = theta[:k] * unit + offset
    half = z * se * unit
    sandwich = tuple(zip((rating - half[:k]).tolist(), (rating + half[:k]).tolist(), strict=True))
    coef = theta[k:]
    coef_sandwich = tuple(
        zip((coef - z * se[k:]).tolist(), (coef + z * se[k:]).tolist(), strict=True)
    )
    boot = coef_boot = None
    if rounds:
        samples = cbt.bootstrap(data, rounds, seed, reg)
        tail = (1.0 - level) / 2.0
        lower, upper = np.quantile(samples, [tail, 1.0 - tail], axis=0)
        boot = tuple(
            zip(
                (lower[:k] * unit + offset).tolist(),
                (upper[:k] * unit + offset).tolist(),
                strict=True,
            )
        )
        coef_boot = tuple(zip(lower[k:].tolist(), upper[k:].tolist(), strict=True))
    assert len(coef) == len(FEATURES)
    return StyleRatings(
        models=tuple(names),
        rating=tuple(rating.tolist()),
        sandwich=sandwich,
        sandwich_rank=ranks(sandwich),
        bootstrap=boot,
        bootstrap_rank=None if boot is None else ranks(boot),
        coefficient=tuple(coef.tolist()),
        coefficient_sandwich=coef_sandwich,
        coefficient_bootstrap=coef_boot,
        reg=reg,
    )
