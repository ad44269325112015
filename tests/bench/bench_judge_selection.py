"""Benchmark: the judge-selection table with its paired bootstrap.

Target (issue 31 item 1): 10 configurations on 10,000 reference-labelled pairs with 1,000
paired resamples in at most 2 s (``desktop.domain.judge_selection.selection_table``, from
arrays in memory to the finished rows). The reference, in the same run: the obvious loop,
one row at a time, one resample at a time (numpy per resample, statsmodels' ``cohens_kappa``
for the point kappas), timed on ``--reference-rounds`` resamples and extrapolated linearly;
its point figures must equal ours.

Prints one JSON object on stdout; exits non-zero only when the figures differ, never because
a target is missed (read ``meets_targets``).

    .venv/bin/python tests/bench/bench_judge_selection.py          # 10 x 10,000 x 1,000
    .venv/bin/python tests/bench/bench_judge_selection.py --quick  # 5 x 2,000 x 100 (CI)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from desktop.domain import judge_selection as js

SEED = 20261202
TARGET_SECONDS = 2.0


def make(configs: int, pairs: int) -> tuple[np.ndarray, list[js.Configuration]]:
    """Gold labels A/B; each configuration right with its own accuracy, some ties and
    failures, both orders asked, the order use cycling through the three."""
    rng = np.random.default_rng(SEED)
    ref = rng.integers(0, 2, pairs).astype(np.int8)
    out = []
    uses = list(js.OrderUse)
    for i in range(configs):
        acc = 0.6 + 0.3 * i / max(configs - 1, 1)
        orders = []
        for _ in range(2):
            right = rng.random(pairs) < acc
            codes = np.where(right, ref, 1 - ref).astype(np.int8)
            codes[rng.random(pairs) < 0.05] = js.TIE
            codes[rng.random(pairs) < 0.01] = js.PARSE_FAILURE
            orders.append(codes)
        out.append(
            js.configuration(
                f"judge {i}",
                uses[i % 3],
                orders[0],
                orders[1],
                tokens_in=rng.integers(200, 800, pairs).astype(float),
                tokens_out=rng.integers(5, 50, pairs).astype(float),
                seconds=rng.random(pairs),
                price_in=1.0,
                price_out=4.0,
            )
        )
    return ref, out


def naive(ref: np.ndarray, configs: list[js.Configuration], rounds: int) -> list[float]:
    """Per row, per resample: the JudgeBench accuracy; kappa once by statsmodels."""
    from statsmodels.stats.inter_rater import cohens_kappa

    rng = np.random.default_rng(SEED)
    n = ref.size
    kappas = []
    for c in configs:
        right = js.judgebench_right(c.use, c.first, c.second, ref)
        for _ in range(rounds):
            idx = rng.integers(0, n, n)
            float(right[idx].mean())
        verdict = js.verdict_of(c.use, c.first, c.second)
        ok = verdict >= 0
        table = np.zeros((3, 3))
        np.add.at(table, (ref[ok], verdict[ok]), 1)
        kappas.append(float(cohens_kappa(table).kappa))
    return kappas


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reference-rounds", type=int, default=100)
    args = parser.parse_args()
    configs, pairs, rounds = (5, 2_000, 100) if args.quick else (10, 10_000, 1_000)
    ref, rows = make(configs, pairs)
    start = time.perf_counter()
    table = js.selection_table(ref, rows, rounds=rounds, seed=1)
    ours = time.perf_counter() - start
    ref_rounds = min(args.reference_rounds, rounds)
    start = time.perf_counter()
    kappas = naive(ref, rows, ref_rounds)
    reference = (time.perf_counter() - start) * rounds / ref_rounds
    # The table is ranked: each row is matched to its configuration by name.
    by_name = {r.name: r for r in table.rows}
    diff = max(
        abs((by_name[c.name].kappa.value or 0.0) - k) for c, k in zip(rows, kappas, strict=True)
    )
    result = {
        "configurations": configs,
        "pairs": pairs,
        "rounds": rounds,
        "seconds": round(ours, 3),
        "reference_loop_seconds_extrapolated": round(reference, 3),
        "reference_rounds_timed": ref_rounds,
        "kappa_max_difference_to_statsmodels": diff,
        "best": [r.name for r in table.rows if r.best],
        "near_best": [r.name for r in table.rows if r.near_best],
        "meets_targets": {"seconds_at_most_2": ours <= TARGET_SECONDS},
    }
    print(json.dumps(result, indent=2))
    return 0 if diff < 1e-9 else 1


if __name__ == "__main__":
    raise SystemExit(main())
