"""Agreement between verdicts: judge against human, reviewer against reviewer.

Plain arithmetic over counts, so every figure can be checked by hand. Categories are
always A, B, tie in that order; a figure that is undefined for the data (no pairs, or
chance agreement already 1) is None, never a made-up 0 or 1.

- Two raters: a 3×3 confusion matrix (rows the first rater, columns the second), exact
  agreement, agreement with a tie against a decision counted as half (AlpacaEval's
  convention), agreement without ties (MT-bench's "w/o tie": pairs where either rater
  said tie are left out), and Cohen's kappa.
- Several raters per pair: per-pair counts (n_A, n_B, n_tie); Fleiss' kappa, nominal
  Krippendorff's alpha, and HREF's leave-one-out agreement.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from desktop.domain.verdicts import Verdict

LABELS: tuple[Verdict, ...] = (Verdict.A, Verdict.B, Verdict.TIE)
_INDEX = {v: i for i, v in enumerate(LABELS)}
TIE = 2

Matrix = list[list[int]]


def empty_matrix() -> Matrix:
    return [[0, 0, 0] for _ in LABELS]


def add_to_matrix(matrix: Matrix, first: Verdict, second: Verdict) -> None:
    matrix[_INDEX[first]][_INDEX[second]] += 1


def confusion(pairs: Iterable[tuple[Verdict, Verdict]]) -> Matrix:
    """Counts of (first rater's verdict, second rater's verdict)."""
    matrix = empty_matrix()
    for first, second in pairs:
        add_to_matrix(matrix, first, second)
    return matrix


def total(matrix: Matrix) -> int:
    return sum(map(sum, matrix))


def percent_agreement(matrix: Matrix) -> float | None:
    n = total(matrix)
    return sum(matrix[i][i] for i in range(3)) / n if n else None


def agreement_tie_half(matrix: Matrix) -> float | None:
    """A tie against A or B counts half; A against B counts nothing."""
    n = total(matrix)
    if not n:
        return None
    half = sum(matrix[i][TIE] + matrix[TIE][i] for i in range(2))
    return (sum(matrix[i][i] for i in range(3)) + 0.5 * half) / n


def agreement_without_ties(matrix: Matrix) -> tuple[float | None, int]:
    """(agreement, pairs counted) over pairs where neither rater said tie."""
    n = sum(matrix[i][j] for i in range(2) for j in range(2))
    return ((matrix[0][0] + matrix[1][1]) / n if n else None), n


def cohen_kappa(matrix: Matrix) -> float | None:
    """(p_o - p_e) / (1 - p_e), chance from each rater's own marginals."""
    n = total(matrix)
    if not n:
        return None
    rows = [sum(matrix[i]) for i in range(3)]
    cols = [sum(matrix[i][j] for i in range(3)) for j in range(3)]
    p_o = sum(matrix[i][i] for i in range(3)) / n
    p_e = sum(rows[i] * cols[i] for i in range(3)) / (n * n)
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1.0 - p_e)


@dataclass(frozen=True)
class Agreement:
    """Two raters over the same pairs; ``confusion`` rows are the first rater."""

    n: int
    agreement: float | None
    agreement_tie_half: float | None
    agreement_no_ties: float | None
    n_no_ties: int
    kappa: float | None
    confusion: Matrix


def summarize(matrix: Matrix) -> Agreement:
    no_ties, n_no_ties = agreement_without_ties(matrix)
    return Agreement(
        n=total(matrix),
        agreement=percent_agreement(matrix),
        agreement_tie_half=agreement_tie_half(matrix),
        agreement_no_ties=no_ties,
        n_no_ties=n_no_ties,
        kappa=cohen_kappa(matrix),
        confusion=[list(row) for row in matrix],
    )


# ---- several raters per pair ------------------------------------------------------------


def counts_of(verdicts: Iterable[Verdict]) -> tuple[int, int, int]:
    """(n_A, n_B, n_tie) of one pair's verdicts."""
    out = [0, 0, 0]
    for verdict in verdicts:
        out[_INDEX[verdict]] += 1
    return out[0], out[1], out[2]


def fleiss_kappa(items: Iterable[Sequence[int]]) -> float | None:
    """Fleiss' kappa over pairs with at least two verdicts.

    Each pair's agreement uses its own number of verdicts, so pairs rated by different
    numbers of reviewers can be mixed; with the same number everywhere this is exactly
    Fleiss' (1971) formula."""
    agree_sum = 0.0
    items_n = 0
    category = [0, 0, 0]
    for counts in items:
        m = sum(counts)
        if m < 2:
            continue
        items_n += 1
        agree_sum += (sum(c * c for c in counts) - m) / (m * (m - 1))
        for j in range(3):
            category[j] += counts[j]
    ratings = sum(category)
    if not items_n:
        return None
    p_bar = agree_sum / items_n
    p_e = sum((c / ratings) ** 2 for c in category)
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def krippendorff_alpha(items: Iterable[Sequence[int]]) -> float | None:
    """Krippendorff's alpha for nominal data from per-pair counts; pairs with fewer than
    two verdicts cannot be paired and are left out, as the method prescribes.

    alpha = 1 - (n - 1) * sum_{c != k} o_ck / sum_{c != k} n_c n_k, with o the
    coincidence matrix and n_c its marginals."""
    same = 0.0  # sum of the coincidence matrix's diagonal
    marginals = [0, 0, 0]
    for counts in items:
        m = sum(counts)
        if m < 2:
            continue
        same += sum(c * (c - 1) for c in counts) / (m - 1)
        for j in range(3):
            marginals[j] += counts[j]
    n = sum(marginals)
    expected = n * n - sum(c * c for c in marginals)
    if n < 2 or expected == 0:
        return None
    return 1.0 - (n - 1) * (n - same) / expected


def _mode_share(counts: Sequence[int], target: int) -> float:
    """The chance that a mode of ``counts``, ties broken at random, is ``target``."""
    top = max(counts)
    if top == 0:
        return 0.0
    modes = [i for i, c in enumerate(counts) if c == top]
    return 1.0 / len(modes) if target in modes else 0.0


def _without(counts: Sequence[int], index: int) -> list[int]:
    rest = list(counts)
    rest[index] -= 1
    return rest


def loo_reviewer_agreement(items: Iterable[Sequence[int]]) -> float | None:
    """HREF's inner human agreement: each verdict against the majority of the pair's other
    verdicts, averaged per pair, then over pairs with at least two verdicts. HREF breaks a
    tied majority at random; this takes the expectation of that draw, so it is exact."""
    scores = []
    for counts in items:
        m = sum(counts)
        if m < 2:
            continue
        hits = sum(c * _mode_share(_without(counts, j), j) for j, c in enumerate(counts) if c)
        scores.append(hits / m)
    return sum(scores) / len(scores) if scores else None


def loo_judge_agreement(items: Iterable[tuple[Sequence[int], Verdict]]) -> float | None:
    """HREF's judge agreement: the judge's verdict against the majority of each
    leave-one-out subset of the reviewers, so the judge meets the same majorities a
    reviewer does in ``loo_reviewer_agreement``."""
    scores = []
    for counts, judge in items:
        m = sum(counts)
        if m < 2:
            continue
        target = _INDEX[judge]
        hits = sum(c * _mode_share(_without(counts, j), target) for j, c in enumerate(counts) if c)
        scores.append(hits / m)
    return sum(scores) / len(scores) if scores else None


# ---- the judge on its own ---------------------------------------------------------------


def win_rate(a: int, b: int, tie: int) -> float | None:
    """The share of pairs A wins, a tie counting half."""
    n = a + b + tie
    return (a + 0.5 * tie) / n if n else None
