"""Which pairs to review: a seeded sample, uniform or favouring uncertain verdicts, that
figures can still stand on.

A reviewer who works down the queue labels the judge's hardest verdicts first, so
agreement measured there understates the judge and a win rate from them is biased. A
sample drawn with known inclusion probabilities fixes that: weighting each reviewed pair
by 1 / its probability, and the judged pairs not reviewed by 1 / (1 - it) (``ipw_weights``:
ppi_py's ``w`` and ``w_unlabeled``), makes the figures over them unbiased again, however
strongly the draw favoured uncertain verdicts.

The draw is randomised systematic sampling with probability proportional to size
(Hartley and Rao 1962): the pairs in a seeded random order, each taking a stretch of
length ``pi_i`` of the line [0, size), and the pairs under the points u, u + 1, ...,
u + size - 1 for one uniform u are drawn. Exactly ``size`` pairs, each with probability
exactly ``pi_i``; with equal probabilities it is a simple random sample. The same seed and
the same pairs (in any order) give the same sample.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar


class _Key(Protocol):
    """A pair's key: hashable (distinct keys) and sortable (the draw is in key order)."""

    def __hash__(self) -> int: ...
    def __lt__(self, other: Any, /) -> bool: ...


K = TypeVar("K", bound=_Key)

#: The weight of a verdict the judge is sure of, relative to the most uncertain one.
DEFAULT_FLOOR = 0.2


def verdict_uncertainty(confidence: float | None = None, *, flipped: bool = False) -> float:
    """How unsure the judge is of one verdict, from 0 (sure) to 1; the larger of:
    a verdict that flipped when A and B swapped, 1; a confidence c (the probability of the
    verdict given, or a jury's share of jurors behind its verdict), 2 (1 - c), so a coin
    toss between two verdicts is 1 and so is a jury split evenly. Nothing known is 0 (the
    floor of ``inclusion_probabilities`` still gives it a chance)."""
    signals = [1.0 if flipped else 0.0]
    if confidence is not None:
        signals.append(2.0 * (1.0 - confidence))
    return min(max(max(signals), 0.0), 1.0)


def inclusion_probabilities(
    uncertainties: Sequence[float], size: int, *, floor: float = DEFAULT_FLOOR
) -> list[float]:
    """Each pair's probability of being drawn in a sample of ``size``: proportional to
    floor + (1 - floor) u for uncertainty u in [0, 1], so the surest verdict has ``floor``
    times the chance of the least sure; floor 1 is uniform. A probability that would pass 1
    is 1 and the others share the rest of ``size`` (repeated until none passes)."""
    total = len(uncertainties)
    if not 0 < size <= total:
        raise ValueError(f"a sample needs 1 to {total} pairs, got {size}")
    if not 0.0 < floor <= 1.0:
        raise ValueError(f"floor must be above 0 and at most 1, got {floor}")
    sizes = []
    for u in uncertainties:
        if not 0.0 <= u <= 1.0:
            raise ValueError(f"an uncertainty must be from 0 to 1, got {u}")
        sizes.append(floor + (1.0 - floor) * u)
    certain: set[int] = set()
    while True:
        free = [i for i in range(total) if i not in certain]
        scale = (size - len(certain)) / math.fsum(sizes[i] for i in free)
        over = {i for i in free if sizes[i] * scale >= 1.0}
        if not over:
            break
        certain |= over
    return [1.0 if i in certain else sizes[i] * scale for i in range(total)]


@dataclass(frozen=True)
class Drawn(Generic[K]):
    pair: K
    probability: float  # of being drawn: 1 / probability is its weight


def draw_sample(
    pairs: Sequence[K],
    size: int,
    *,
    seed: int,
    uncertainties: Sequence[float] | None = None,
    floor: float = DEFAULT_FLOOR,
) -> list[Drawn[K]]:
    """``size`` of ``pairs`` (distinct, sortable keys such as pair ids), drawn with the
    probabilities of ``inclusion_probabilities`` (uniform without ``uncertainties``), in
    the random order a reviewer should walk them: stopping part way leaves a smaller sample
    with probabilities in the same proportions."""
    if uncertainties is not None and len(uncertainties) != len(pairs):
        raise ValueError(f"{len(uncertainties)} uncertainties for {len(pairs)} pairs")
    if len(set(pairs)) != len(pairs):
        raise ValueError("a pair is given twice")
    flat = [0.0] * len(pairs) if uncertainties is None else uncertainties
    probabilities = inclusion_probabilities(
        flat, size, floor=1.0 if uncertainties is None else floor
    )
    rng = random.Random(seed)
    order = sorted(range(len(pairs)), key=lambda i: pairs[i])
    rng.shuffle(order)
    start = rng.random()
    chosen: list[int] = []
    reached = 0.0
    for i in order:
        before, reached = reached, reached + probabilities[i]
        # drawn when a point start + j lies in [before, reached)
        if math.floor(reached - start) > math.floor(before - start) and len(chosen) < size:
            chosen.append(i)
    if len(chosen) < size:  # the sum fell short of size by rounding: the last stretch
        chosen.extend(i for i in reversed(order) if i not in chosen)
        chosen = chosen[:size]
    rng.shuffle(chosen)
    return [Drawn(pairs[i], probabilities[i]) for i in chosen]


def ipw_weights(
    reviewed: Sequence[float], rest: Sequence[float], *, reviewed_share: float = 1.0
) -> tuple[list[float], list[float]]:
    """Inverse-probability weights for ``prediction_powered.ppi_mean``: ``w`` = 1 / p for
    the reviewed pairs and ``w_unlabeled`` = 1 / (1 - p) for the judged pairs not reviewed
    (their judge verdicts then stand for every pair), given each pair's inclusion
    probability; p is that times ``reviewed_share``, the part of the sample reviewed so far
    (the sample is walked in random order). A pair outside the sample's frame (judged
    after it was drawn) has probability 0 and weight 1 among the rest; a reviewed pair the
    sample did not draw has none, and belongs in no weighted figure."""
    if not 0.0 < reviewed_share <= 1.0:
        raise ValueError(f"reviewed_share must be above 0 and at most 1, got {reviewed_share}")
    for p in reviewed:
        if not 0.0 < p <= 1.0:
            raise ValueError(f"a reviewed pair's probability must be above 0, at most 1, got {p}")
    if any(not 0.0 <= p * reviewed_share < 1.0 for p in rest):
        raise ValueError("a pair certain to be reviewed is among those not reviewed")
    w = [1.0 / (p * reviewed_share) for p in reviewed]
    return w, [1.0 / (1.0 - p * reviewed_share) for p in rest]
