"""The calibration curve equals scikit-learn's ``calibration_curve`` (uniform bins), and
its expected calibration error a hand computation."""

from __future__ import annotations

import random

import pytest

from desktop.domain.calibration import calibration, edges


def test_a_hand_computed_curve_and_ece() -> None:
    """Five bins. (0.2, 0.4]: 0.3 right, 0.4 wrong: agreement 0.5, confidence 0.35;
    (0.6, 0.8]: 0.7, 0.7, 0.8 all right: 1 against 0.7333; (0.8, 1]: 0.9 wrong: 0 against 0.9.
    ECE = 2/6 * 0.15 + 3/6 * 0.26667 + 1/6 * 0.9 = 0.33333."""
    items = [(0.3, True), (0.4, False), (0.7, True), (0.7, True), (0.8, True), (0.9, False)]
    curve = calibration(items, bins=5)
    assert [(b.count, b.agreement) for b in curve.bins] == [(2, 0.5), (3, 1.0), (1, 0.0)]
    assert [b.confidence for b in curve.bins] == pytest.approx([0.35, 2.2 / 3, 0.9])
    assert [x for b in curve.bins for x in (b.lower, b.upper)] == pytest.approx(
        [0.2, 0.4, 0.6, 0.8, 0.8, 1.0]
    )
    assert curve.ece == pytest.approx(2 / 6 * 0.15 + 3 / 6 * (1 - 2.2 / 3) + 1 / 6 * 0.9)
    assert curve.n == 6


def test_a_calibrated_judge_has_a_small_ece() -> None:
    rng = random.Random(1)
    items = []
    for _ in range(50_000):
        confidence = rng.uniform(0.34, 1.0)
        items.append((confidence, rng.random() < confidence))
    assert calibration(items).ece < 0.01
    overconfident = [(min(1.0, c + 0.15), agreed) for c, agreed in items]
    assert calibration(overconfident).ece == pytest.approx(0.15, abs=0.02)


@pytest.mark.parametrize("bins", [1, 3, 5, 10, 20])
@pytest.mark.parametrize("seed", range(3))
def test_the_curve_equals_scikit_learn(bins: int, seed: int) -> None:
    """Random confidences, and confidences exactly on bin edges (stored ones are rounded,
    so 0.7 is common), each with an agreement drawn at that rate."""
    sklearn_calibration = pytest.importorskip("sklearn.calibration")
    rng = random.Random(seed)
    on_edges = [round(i / 10, 1) for i in range(11)] + edges(bins)
    confidences = [rng.random() for _ in range(2000)] + on_edges * 20
    agreed = [rng.random() < c for c in confidences]
    curve = calibration(zip(confidences, agreed, strict=True), bins=bins)
    prob_true, prob_pred = sklearn_calibration.calibration_curve(agreed, confidences, n_bins=bins)
    assert [b.agreement for b in curve.bins] == pytest.approx(prob_true.tolist(), abs=1e-12)
    assert [b.confidence for b in curve.bins] == pytest.approx(prob_pred.tolist(), abs=1e-12)


def test_nothing_and_bad_confidences() -> None:
    assert calibration([]).ece is None and calibration([]).bins == ()
    with pytest.raises(ValueError, match="confidence"):
        calibration([(1.2, True)])
    with pytest.raises(ValueError, match="bin"):
        calibration([(0.5, True)], bins=0)
