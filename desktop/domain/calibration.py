"""Is the judge's confidence worth its number? For verdicts that came with a confidence
(the probability of the verdict given) and a reviewer's verdict, how often the two agree
per confidence bin, and the expected calibration error.

Bins: ``bins`` equal widths over [0, 1], edges i / bins as numpy's ``linspace`` computes
them (i * (1 / bins)); each bin holds the confidences above its lower edge up to and
including its upper edge, the first one 0 too. That is scikit-learn's
``calibration_curve(strategy="uniform")``, so its curve is this curve. Agreement is exact:
the reviewer gave the judge's verdict (a tie against A is a disagreement).

ECE = sum over bins of (verdicts in the bin / all verdicts) * |agreement - mean
confidence| in the bin: 0 for a judge whose 0.8 is right 80% of the time, at every level.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_BINS = 10


@dataclass(frozen=True)
class CalibrationBin:
    lower: float  # edges: (lower, upper], the first bin [0, upper]
    upper: float
    count: int
    confidence: float  # mean confidence of its verdicts
    agreement: float  # share of them the reviewer agreed with


@dataclass(frozen=True)
class Calibration:
    bins: tuple[CalibrationBin, ...]  # the bins holding a verdict, lowest first
    ece: float | None  # None with no verdicts
    n: int


def edges(bins: int) -> list[float]:
    step = 1.0 / bins
    return [i * step for i in range(bins)] + [1.0]


def calibration(items: Iterable[tuple[float, bool]], bins: int = DEFAULT_BINS) -> Calibration:
    """The curve and ECE over (confidence, reviewer agreed) items."""
    if bins < 1:
        raise ValueError(f"a calibration curve needs at least one bin, got {bins}")
    bounds = edges(bins)
    inner = bounds[1:-1]
    count = [0] * bins
    conf = [0.0] * bins
    agree = [0] * bins
    for confidence, agreed in items:
        if not 0.0 <= confidence <= 1.0:
            raise ValueError(f"a confidence must be from 0 to 1, got {confidence}")
        i = bisect_left(inner, confidence)
        count[i] += 1
        conf[i] += confidence
        agree[i] += bool(agreed)
    n = sum(count)
    out = tuple(
        CalibrationBin(bounds[i], bounds[i + 1], count[i], conf[i] / count[i], agree[i] / count[i])
        for i in range(bins)
        if count[i]
    )
    ece = sum(b.count / n * abs(b.agreement - b.confidence) for b in out) if n else None
    return Calibration(out, ece, n)
