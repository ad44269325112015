"""The agreement arithmetic: hand-computed values on small fixed data, then the same
figures against scikit-learn, statsmodels and `krippendorff` on random data."""

from __future__ import annotations

import math
import random
import warnings
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.domain import agreement as ag
from desktop.domain.sampling import bootstrap_win_rate, seeded
from desktop.domain.verdicts import Verdict

A, B, T = Verdict.A, Verdict.B, Verdict.TIE

# judge (rows) × human (columns): A: 4 A, 1 B, 1 tie; B: 3 B; tie: 2 B, 1 tie.
PAIRS = [(A, A)] * 4 + [(A, B), (A, T)] + [(B, B)] * 3 + [(T, B)] * 2 + [(T, T)]


def test_confusion_and_two_rater_figures_by_hand() -> None:
    matrix = ag.confusion(PAIRS)
    assert matrix == [[4, 1, 1], [0, 3, 0], [0, 2, 1]]
    assert ag.percent_agreement(matrix) == pytest.approx(8 / 12)
    # half credit for (A, tie) and the two (tie, B): (8 + 1.5) / 12
    assert ag.agreement_tie_half(matrix) == pytest.approx(9.5 / 12)
    assert ag.agreement_without_ties(matrix) == (pytest.approx(7 / 8), 8)
    # rows 6, 3, 3; columns 4, 6, 2: p_e = (24 + 18 + 6) / 144 = 1/3; p_o = 2/3
    assert ag.cohen_kappa(matrix) == pytest.approx(0.5)
    summary = ag.summarize(matrix)
    assert (summary.n, summary.n_no_ties, summary.kappa) == (12, 8, pytest.approx(0.5))


def test_undefined_figures_are_none() -> None:
    empty = ag.empty_matrix()
    assert ag.percent_agreement(empty) is None
    assert ag.cohen_kappa(empty) is None
    assert ag.agreement_without_ties(ag.confusion([(T, T)])) == (None, 0)
    assert ag.cohen_kappa(ag.confusion([(A, A), (A, A)])) is None  # chance agreement is 1
    assert ag.fleiss_kappa([(2, 0, 0), (3, 0, 0)]) is None
    assert ag.krippendorff_alpha([(2, 0, 0), (3, 0, 0)]) is None
    assert ag.krippendorff_alpha([(1, 0, 0), (0, 1, 0)]) is None  # nothing pairable
    assert ag.loo_reviewer_agreement([(1, 0, 0)]) is None
    assert ag.win_rate(0, 0, 0) is None
    assert bootstrap_win_rate(0, 0, 0, rng=seeded("none")) is None


def test_fleiss_and_krippendorff_by_hand() -> None:
    items = [(2, 0, 0), (0, 2, 0), (1, 1, 0), (1, 0, 0)]  # the last has one verdict: left out
    # P_i = 1, 1, 0 -> 2/3; p_A = p_B = 1/2 -> P_e = 1/2; kappa = (2/3 - 1/2) / (1/2)
    assert ag.fleiss_kappa(items) == pytest.approx(1 / 3)
    # coincidences on the diagonal 2 + 2 + 0 = 4 of n = 6; n_A = n_B = 3
    # alpha = 1 - (n - 1)(n - 4) / (n^2 - 9 - 9) = 1 - 5 * 2 / 18
    assert ag.krippendorff_alpha(items) == pytest.approx(4 / 9)


def test_leave_one_out_by_hand() -> None:
    # A A A B: each A meets a majority of A (3 hits), the B meets A A A (miss) -> 3/4
    assert ag.loo_reviewer_agreement([(3, 1, 0)]) == pytest.approx(3 / 4)
    # A A B B: every subset of three has the other verdict in the majority -> 0
    assert ag.loo_reviewer_agreement([(2, 2, 0)]) == 0
    # A A B tie: leaving out an A gives a three-way tie (1/3 for A, twice) -> (2/3) / 4
    assert ag.loo_reviewer_agreement([(2, 1, 1)]) == pytest.approx(1 / 6)
    assert ag.loo_reviewer_agreement([(3, 1, 0), (2, 2, 0)]) == pytest.approx(3 / 8)
    assert ag.loo_judge_agreement([((3, 1, 0), A)]) == 1
    assert ag.loo_judge_agreement([((3, 1, 0), B)]) == 0
    # A A B B, judge A: subsets without an A have B in the majority, without a B have A
    assert ag.loo_judge_agreement([((2, 2, 0), A)]) == pytest.approx(0.5)
    assert ag.loo_judge_agreement([((1, 1, 0), T)]) == 0


def _href_mode(annotations: list[str], rng: random.Random) -> str:
    counts = Counter(annotations)
    top = max(counts.values())
    return rng.choice([k for k, c in counts.items() if c == top])


def test_leave_one_out_is_the_expectation_of_hrefs_random_tie_break() -> None:
    """HREF breaks a tied majority with random.choice; averaged over many draws, its
    figure tends to ours."""
    data_rng = random.Random(3)
    items = [[data_rng.choice("AB") for _ in range(4)] for _ in range(40)]
    judges = [data_rng.choice("AB") for _ in items]
    rng = random.Random(4)
    draws = 400
    inner = outer = 0.0
    for _ in range(draws):
        for anns, judge in zip(items, judges, strict=True):
            rest = [anns[:i] + anns[i + 1 :] for i in range(len(anns))]
            inner += sum(_href_mode(r, rng) == anns[i] for i, r in enumerate(rest)) / len(anns)
            outer += sum(_href_mode(r, rng) == judge for r in rest) / len(anns)
    counts = [ag.counts_of(Verdict(a) for a in anns) for anns in items]
    assert ag.loo_reviewer_agreement(counts) == pytest.approx(inner / draws / 40, abs=0.01)
    assert ag.loo_judge_agreement(
        list(zip(counts, map(Verdict, judges), strict=True))
    ) == pytest.approx(outer / draws / 40, abs=0.01)


def test_win_rate_by_hand() -> None:
    assert ag.win_rate(3, 1, 2) == pytest.approx(4 / 6)


def test_bootstrap_interval() -> None:
    assert bootstrap_win_rate(50, 0, 0, rng=seeded("all A")) == (1.0, 1.0)
    assert bootstrap_win_rate(0, 0, 9, rng=seeded("all ties")) == (0.5, 0.5)
    first = bootstrap_win_rate(40, 25, 5, rng=seeded("q:judge"))
    assert first == bootstrap_win_rate(40, 25, 5, rng=seeded("q:judge"))  # seeded
    assert first != bootstrap_win_rate(40, 25, 5, rng=seeded("q:human"))  # its own stream
    low, high = first
    assert low < ag.win_rate(40, 25, 5) < high


def test_seeds_are_stable_across_processes() -> None:
    """A figure's interval is the same in every run: the seed is a hash of its name that
    does not depend on PYTHONHASHSEED (the first draws of seeded("tiebreak"), pinned)."""
    assert seeded("tiebreak").integers(0, 1000, 3).tolist() == _FIRST_DRAWS


_FIRST_DRAWS = [47, 933, 747]


def test_bootstrap_matches_resampling_the_pairs() -> None:
    """Drawing the counts gives the interval that resampling pairs one by one gives."""
    np = pytest.importorskip("numpy")
    a, b, tie = 30, 22, 8
    scores = np.array([1.0] * a + [0.0] * b + [0.5] * tie)
    draws = np.random.default_rng(11).choice(scores, size=(20000, len(scores)))
    naive = np.quantile(draws.mean(axis=1), [0.025, 0.975])
    fast = bootstrap_win_rate(a, b, tie, rng=seeded("resampling"), resamples=20000)
    assert fast[0] == pytest.approx(naive[0], abs=0.01)
    assert fast[1] == pytest.approx(naive[1], abs=0.01)


# ---- against the reference libraries -----------------------------------------------------

verdicts = st.sampled_from(ag.LABELS)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(verdicts, verdicts), min_size=1, max_size=60))
def test_cohen_kappa_matches_scikit_learn(pairs: list[tuple[Verdict, Verdict]]) -> None:
    metrics = pytest.importorskip("sklearn.metrics")
    ours = ag.cohen_kappa(ag.confusion(pairs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = metrics.cohen_kappa_score(
            [str(x) for x, _ in pairs], [str(y) for _, y in pairs], labels=["A", "B", "tie"]
        )
    if ours is None:
        assert math.isnan(theirs)
    else:
        assert ours == pytest.approx(theirs, abs=1e-9)


def _items(rng: random.Random, n: int, raters: int | None) -> list[tuple[int, int, int]]:
    """Per-pair counts with some agreement built in: each pair leans towards one verdict."""
    out = []
    for _ in range(n):
        m = raters if raters is not None else rng.randint(0, 5)
        lean = rng.choice(ag.LABELS)
        out.append(
            ag.counts_of(lean if rng.random() < 0.6 else rng.choice(ag.LABELS) for _ in range(m))
        )
    return out


@pytest.mark.parametrize("seed", range(30))
def test_fleiss_kappa_matches_statsmodels(seed: int) -> None:
    np = pytest.importorskip("numpy")
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = random.Random(seed)
    items = _items(rng, rng.randint(2, 80), rng.randint(2, 6))
    ours = ag.fleiss_kappa(items)
    with np.errstate(all="ignore"):
        theirs = inter_rater.fleiss_kappa(np.array(items), method="fleiss")
    if ours is None:
        assert math.isnan(theirs)
    else:
        assert ours == pytest.approx(theirs, abs=1e-9)


@pytest.mark.parametrize("seed", range(30))
def test_krippendorff_alpha_matches_the_krippendorff_package(seed: int) -> None:
    np = pytest.importorskip("numpy")
    krippendorff = pytest.importorskip("krippendorff")
    rng = random.Random(100 + seed)
    items = _items(rng, rng.randint(2, 80), None)  # 0 to 5 verdicts per pair
    items.append((1, 1, 0))  # at least one pairable unit, as the package requires
    ours = ag.krippendorff_alpha(items)
    with np.errstate(all="ignore"):
        theirs = krippendorff.alpha(value_counts=np.array(items), level_of_measurement="nominal")
    if ours is None:
        assert math.isnan(theirs)
    else:
        assert ours == pytest.approx(theirs, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(verdicts, min_size=2, max_size=2), min_size=2, max_size=40))
def test_two_raters_fleiss_and_alpha_agree_with_libraries(rows: list[list[Verdict]]) -> None:
    np = pytest.importorskip("numpy")
    krippendorff = pytest.importorskip("krippendorff")
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    items = [ag.counts_of(r) for r in rows]
    with np.errstate(all="ignore"):
        fleiss = inter_rater.fleiss_kappa(np.array(items), method="fleiss")
    ours = ag.fleiss_kappa(items)
    assert math.isnan(fleiss) if ours is None else ours == pytest.approx(fleiss, abs=1e-9)
    alpha = ag.krippendorff_alpha(items)
    if alpha is not None:
        with np.errstate(all="ignore"):
            theirs = krippendorff.alpha(
                value_counts=np.array(items), level_of_measurement="nominal"
            )
        assert alpha == pytest.approx(theirs, abs=1e-9)
