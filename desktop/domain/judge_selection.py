"""Which judge configuration to trust: each one scored against a reference verdict.

A configuration is a judge model with its prompt and a way of using the two orders (or a
jury); the reference is the reviewers' consensus or a gold label imported with the data.
Everything here is arrays over the same pairs, so one paired bootstrap (one matrix of
resample counts, seeded) serves every row, and each row's difference to the best row has
its own interval: two judges measured on the same pairs are compared on the same resamples.

Codes, in the pair's own A/B frame (a vote on the swapped order is already flipped back):
``A`` 0, ``B`` 1, tie 2, not asked -1, parse failure -2, error -3.

The three accuracies, each named for where it comes from (pairs with a decisive reference):

- JudgeBench (``utils/metrics.py`` ``compute_final_metrics``): each order's vote adds +1
  when it names the label's side, -1 when it names the other, 0 for a tie or no verdict;
  the pair is right only when the sum is above 0, so one right order and one wrong is wrong,
  one right and one tie is right. With one order asked this is "the vote equals the label".
- RewardBench: the configuration's verdict scores 1 when right, 0.5 for a tie or no
  verdict (a parse failure or an error), 0 when wrong.
- MT-bench "without ties": pairs where neither the reference nor the verdict is a tie (nor
  missing), the share that agree.

Cohen's kappa and Scott's pi use the three categories over pairs with a reference and a
verdict; Scott's pi takes chance from the two raters' pooled shares (Fleiss' kappa with two
raters).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from desktop.domain.errors import TiebreakError
from desktop.domain.limits import MAX_ROUNDS
from desktop.domain.verdicts import Verdict

A, B, TIE = 0, 1, 2
MISSING, PARSE_FAILURE, ERROR = -1, -2, -3
CODE: dict[Verdict, int] = {Verdict.A: A, Verdict.B: B, Verdict.TIE: TIE}

Codes = npt.NDArray[np.int8]
Floats = npt.NDArray[np.float64]


class OrderUse(enum.StrEnum):
    """How a configuration's two orders make one verdict."""

    ONE = "one order"  # only the first order's vote
    CONSERVATIVE = "both, conservative"  # MT-bench: both orders agree, else a tie
    AVERAGED = "both, averaged"  # the orders' votes summed: the sign wins, 0 a tie


class Metric(enum.StrEnum):
    """A figure the best row is chosen by."""

    JUDGEBENCH = "judgebench"
    REWARDBENCH = "rewardbench"
    MTBENCH = "mtbench"
    KAPPA = "kappa"
    PI = "pi"


@dataclass(frozen=True)
class Configuration:
    """One row's answers, arrays over the table's pairs (codes as in the module docstring).

    ``first`` is the vote with the pair shown as stored, ``second`` with it swapped (flipped
    back). ``repeated`` counts per pair the orders asked more than once, ``stable`` those of
    them whose repetitions all agreed. ``answers``/``parse_failures``/``errors`` count the
    stored answers, ``tokens_in``/``tokens_out``/``seconds`` sum them (NaN: not known).
    """

    name: str
    use: OrderUse
    first: Codes
    second: Codes
    answers: npt.NDArray[np.int64]
    parse_failures: npt.NDArray[np.int64]
    errors: npt.NDArray[np.int64]
    tokens_in: Floats
    tokens_out: Floats
    seconds: Floats
    repeated: npt.NDArray[np.int64] | None = None
    stable: npt.NDArray[np.int64] | None = None
    price_in: float | None = None  # per million input tokens
    price_out: float | None = None  # per million output tokens


@dataclass(frozen=True)
class Estimate:
    """A figure with its percentile-bootstrap interval (None where undefined)."""

    value: float | None
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Row:
    name: str
    use: OrderUse
    pairs: int  # pairs with a reference that this configuration was asked about
    judgebench: Estimate
    rewardbench: Estimate
    mtbench: Estimate
    mtbench_pairs: int
    kappa: Estimate
    pi: Estimate
    difference: Estimate  # primary metric minus the best row's, on the same resamples
    best: bool
    near_best: bool  # the difference's interval holds 0: not distinguishable from the best
    consistency: float | None  # pairs with both orders answered whose orders agree
    prefer_first: float | None  # decisive votes naming the response shown first
    stability: float | None  # repeated orders whose repetitions all agreed
    parse_failure_share: float | None
    error_share: float | None
    tokens_per_pair: float | None
    seconds_per_pair: float | None
    cost_per_pair: float | None


@dataclass(frozen=True)
class SelectionTable:
    rows: list[Row]
    primary: Metric
    alpha: float
    rounds: int
    seed: int
    pairs: int  # pairs with a reference
    notes: list[str] = field(default_factory=list)


def verdict_of(use: OrderUse, first: Codes, second: Codes) -> Codes:
    """The configuration's one verdict per pair.

    With both orders used and one of them without a verdict (not asked, a parse failure,
    an error), the other order's verdict stands; with neither, the first order's code.
    """
    if use is OrderUse.ONE:
        return first.copy()
    both = (first >= 0) & (second >= 0)
    # One order without a verdict: the other order's verdict; neither: the first's code.
    out = np.where(second >= 0, second, first)
    out = np.where(first >= 0, first, out)
    if use is OrderUse.CONSERVATIVE:
        agree = np.where(first == second, first, TIE)
        return np.where(both, agree, out).astype(np.int8)
    total = _side(first) + _side(second)
    averaged = np.where(total > 0, A, np.where(total < 0, B, TIE))
    return np.where(both, averaged, out).astype(np.int8)


def _side(codes: Codes) -> npt.NDArray[np.int64]:
    """+1 for A, -1 for B, 0 for a tie or no verdict."""
    side: npt.NDArray[np.int64] = (codes == A).astype(np.int64) - (codes == B).astype(np.int64)
    return side


def judgebench_right(use: OrderUse, first: Codes, second: Codes, reference: Codes) -> Floats:
    """1 where JudgeBench's rule counts the pair right, else 0."""
    label = np.where(reference == A, 1, -1)
    total = _side(first) * label
    if use is not OrderUse.ONE:
        total = total + _side(second) * label
    right: Floats = (total > 0).astype(np.float64)
    return right


def rewardbench_score(verdict: Codes, reference: Codes) -> Floats:
    right = (verdict == reference).astype(np.float64)
    soft = ((verdict == TIE) | (verdict < MISSING)).astype(np.float64)
    score: Floats = right + 0.5 * soft
    return score


def kappa_pi(cells: Floats) -> tuple[Floats, Floats]:
    """Cohen's kappa and Scott's pi from 3x3 confusion cells, shape (..., 9), row = reference.

    NaN where there are no pairs or chance agreement is already 1.
    """
    m = cells.reshape(*cells.shape[:-1], 3, 3)
    n = m.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p_o = np.trace(m, axis1=-2, axis2=-1) / n
        rows = m.sum(axis=-1) / n[..., None]
        cols = m.sum(axis=-2) / n[..., None]
        p_e_k = (rows * cols).sum(axis=-1)
        p_e_p = (((rows + cols) / 2) ** 2).sum(axis=-1)
        kappa = np.where(p_e_k < 1, (p_o - p_e_k) / (1 - p_e_k), np.nan)
        pi = np.where(p_e_p < 1, (p_o - p_e_p) / (1 - p_e_p), np.nan)
    return kappa, pi


def _share(num: float, den: float) -> float | None:
    return num / den if den else None


def _value(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def _estimate(point: float, samples: Floats, alpha: float) -> Estimate:
    if np.isnan(point):
        return Estimate(None)
    ok = samples[~np.isnan(samples)]
    if not ok.size:
        return Estimate(float(point))
    low, high = np.quantile(ok, [alpha / 2, 1 - alpha / 2])
    return Estimate(float(point), float(low), float(high))


# Resamples are drawn this many (pair, round) cells at a time (about 100 MB of working
# arrays), so the memory a table takes does not grow with rounds x pairs.
_BLOCK_CELLS = 4_000_000


def _resample_blocks(n: int, rounds: int, seed: int) -> Iterator[npt.NDArray[np.float32]]:
    """``resample_counts`` a block of rounds at a time, from one generator: the same counts
    however the rounds are cut (a test holds it)."""
    rng = np.random.default_rng(seed)
    step = max(1, _BLOCK_CELLS // max(n, 1))
    for start in range(0, rounds, step):
        size = min(step, rounds - start)
        draws = rng.integers(0, n, size=(size, n))
        flat = (draws + (np.arange(size) * n)[:, None]).ravel()
        yield np.bincount(flat, minlength=size * n).reshape(size, n).astype(np.float32)


def selection_table(
    reference: Codes,
    configurations: Sequence[Configuration],
    *,
    primary: Metric = Metric.JUDGEBENCH,
    alpha: float = 0.05,
    rounds: int = 1000,
    seed: int = 0,
) -> SelectionTable:
    """One row per configuration over the pairs whose reference is A, B or tie."""
    if not 0 < alpha < 1:
        raise TiebreakError(f"alpha must be between 0 and 1, not {alpha}")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise TiebreakError(f"rounds must be between 1 and {MAX_ROUNDS:,}, not {rounds:,}")
    if not configurations:
        raise TiebreakError("no judge configuration has verdicts on pairs with a reference")
    keep = np.asarray(reference) >= 0
    ref = np.asarray(reference, dtype=np.int8)[keep]
    n = int(ref.size)
    if not n:
        raise TiebreakError("no pair has a reference verdict")
    decisive_ref = ref != TIE
    # Per row: numerator/denominator columns for three accuracies, then 9 confusion cells.
    columns: list[Floats] = []
    for c in configurations:
        first, second = c.first[keep], c.second[keep]
        verdict = verdict_of(c.use, first, second)
        asked = (first != MISSING) | ((second != MISSING) & (c.use is not OrderUse.ONE))
        scored = asked & decisive_ref
        jb = judgebench_right(c.use, first, second, ref) * scored
        rb = rewardbench_score(verdict, ref) * scored
        mt_mask = decisive_ref & (verdict >= 0) & (verdict != TIE)
        mt = (verdict == ref) & mt_mask
        cell = np.where(verdict >= 0, ref.astype(np.int64) * 3 + verdict, -1)
        onehot = (cell[:, None] == np.arange(9)[None, :]).astype(np.float64)
        columns += [jb, rb, scored.astype(np.float64), mt.astype(np.float64)]
        columns += [mt_mask.astype(np.float64)]
        columns += list(onehot.T)
    per_row = 14
    matrix = np.stack(columns, axis=1)  # (n, rows * 14)
    point = matrix.sum(axis=0)
    # The 0, 0.5 and 1 cells are exact in float32, and so is a resample's sum of them
    # (at most its n pairs, in halves: exact below 2**23 pairs).
    cells = matrix.astype(np.float32)
    boot = np.concatenate(
        [w @ cells for w in _resample_blocks(n, rounds, seed)], axis=0
    )  # (rounds, rows * 14)
    k = len(configurations)

    def figures(sums: Floats) -> dict[Metric, Floats]:
        s = sums.reshape(*sums.shape[:-1], k, per_row)
        with np.errstate(invalid="ignore", divide="ignore"):
            den = np.where(s[..., 2] > 0, s[..., 2], np.nan)
            mden = np.where(s[..., 4] > 0, s[..., 4], np.nan)
            kappa, pi = kappa_pi(s[..., 5:])
            return {
                Metric.JUDGEBENCH: s[..., 0] / den,
                Metric.REWARDBENCH: s[..., 1] / den,
                Metric.MTBENCH: s[..., 3] / mden,
                Metric.KAPPA: kappa,
                Metric.PI: pi,
            }

    at = figures(point.astype(np.float64))
    sampled = figures(boot.astype(np.float64))
    main = at[primary]
    notes: list[str] = []
    if np.all(np.isnan(main)):
        best_index = -1
        notes.append(f"no configuration has a {primary.value} figure")
    else:
        best_index = int(np.nanargmax(main))
    rows: list[Row] = []
    for i, c in enumerate(configurations):
        if best_index >= 0 and not np.isnan(main[i]):
            diff = sampled[primary][:, i] - sampled[primary][:, best_index]
            difference = _estimate(float(main[i] - main[best_index]), diff, alpha)
        else:
            difference = Estimate(None)
        near = (
            difference.low is not None
            and difference.high is not None
            and difference.low <= 0 <= difference.high
        )
        rows.append(
            _row(
                c,
                keep,
                ref,
                {m: _estimate(float(at[m][i]), sampled[m][:, i], alpha) for m in Metric},
                int(point[i * per_row + 2]),
                int(point[i * per_row + 4]),
                difference,
                best=i == best_index,
                near_best=i == best_index or near,
            )
        )

    # Ranked: by the primary figure, best first (a row without one last; ties as given).
    def rank(row: Row) -> tuple[bool, float]:
        value = getattr(row, primary.value).value
        return (value is None, -(value or 0.0))

    rows.sort(key=rank)
    return SelectionTable(rows, primary, alpha, rounds, seed, n, notes)


def _row(
    c: Configuration,
    keep: npt.NDArray[np.bool_],
    ref: Codes,
    est: dict[Metric, Estimate],
    scored: int,
    mt_pairs: int,
    difference: Estimate,
    *,
    best: bool,
    near_best: bool,
) -> Row:
    first, second = c.first[keep], c.second[keep]
    two = c.use is not OrderUse.ONE
    asked = (first != MISSING) | ((second != MISSING) & two)
    pairs = int(asked.sum())
    both = (first >= 0) & (second >= 0)
    consistency = _share(float((both & (first == second)).sum()), float(both.sum()))
    # Shown first: A in the stored order, B in the swapped one.
    firsts = (first == A).sum() + ((second == B).sum() if two else 0)
    decisive = ((first == A) | (first == B)).sum()
    if two:
        decisive += ((second == A) | (second == B)).sum()
    prefer_first = _share(float(firsts), float(decisive))
    stability = None
    if c.repeated is not None and c.stable is not None:
        stability = _share(float(c.stable[keep].sum()), float(c.repeated[keep].sum()))
    answers = float(c.answers[keep].sum())
    # Per pair over the pairs whose counts are known (NaN: imported without them).
    tokens = c.tokens_in[keep] + c.tokens_out[keep]
    counted = ~np.isnan(tokens)
    tokens_per_pair = _share(float(tokens[counted].sum()), float(counted.sum()))
    seconds = c.seconds[keep]
    timed = ~np.isnan(seconds)
    seconds_per_pair = _share(float(seconds[timed].sum()), float(timed.sum()))
    cost = None
    if counted.any() and (c.price_in is not None or c.price_out is not None):
        t_in, t_out = (
            float(c.tokens_in[keep][counted].sum()),
            float(c.tokens_out[keep][counted].sum()),
        )
        cost = (t_in * (c.price_in or 0.0) + t_out * (c.price_out or 0.0)) / 1e6 / counted.sum()
    del ref
    return Row(
        name=c.name,
        use=c.use,
        pairs=pairs,
        judgebench=est[Metric.JUDGEBENCH],
        rewardbench=est[Metric.REWARDBENCH],
        mtbench=est[Metric.MTBENCH],
        mtbench_pairs=mt_pairs,
        kappa=est[Metric.KAPPA],
        pi=est[Metric.PI],
        difference=difference,
        best=best,
        near_best=near_best,
        consistency=consistency if two else None,
        prefer_first=prefer_first,
        stability=stability,
        parse_failure_share=_share(float(c.parse_failures[keep].sum()), answers),
        error_share=_share(float(c.errors[keep].sum()), answers),
        tokens_per_pair=tokens_per_pair,
        seconds_per_pair=seconds_per_pair,
        cost_per_pair=cost,
    )


def configuration(
    name: str,
    use: OrderUse,
    first: Sequence[int] | Codes,
    second: Sequence[int] | Codes | None = None,
    **arrays: object,
) -> Configuration:
    """A configuration from plain lists (tests, importers): counts default to one answer
    per asked order, tokens and seconds to unknown (NaN)."""
    f = np.asarray(first, dtype=np.int8)
    s = np.asarray(second if second is not None else [MISSING] * len(f), dtype=np.int8)
    codes = np.stack([f, s]) if use is not OrderUse.ONE else f[None, :]
    unknown = np.full(len(f), np.nan)
    defaults: dict[str, object] = {
        "answers": (codes != MISSING).sum(axis=0).astype(np.int64),
        "parse_failures": (codes == PARSE_FAILURE).sum(axis=0).astype(np.int64),
        "errors": (codes == ERROR).sum(axis=0).astype(np.int64),
        "tokens_in": unknown,
        "tokens_out": unknown,
        "seconds": unknown,
    }
    defaults.update(arrays)
    return Configuration(name=name, use=use, first=f, second=s, **defaults)  # type: ignore[arg-type]
