"""Benchmark: style-controlled ratings (``desktop.domain.contextual_bradley_terry``) against
arena-rank's ``ContextualBradleyTerry`` on the same battles, in one run.

Times the fit with the sandwich on each side (arena-rank: ``ContextualPairDataset`` then
``compute_ratings_and_cis`` with the sandwich, its JIT compile included, as a user meets
it), and our bootstrap of ``--rounds`` rounds; checks the ratings and sandwich bounds are
equal to 0.01 points. Battles among models whose answers differ in length; the judge
favours the longer answer. Prints one JSON object; exits non-zero only when a side fails,
never because a target is missed (read ``meets_targets``).

    .venv/bin/python tests/bench/bench_style_control.py          # 200,000 battles x 50, 100 rounds
    .venv/bin/python tests/bench/bench_style_control.py --quick  # 20,000 x 10, 10 rounds (CI)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EQUAL_WITHIN = 0.01


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args()
    battles, models = (20_000, 10) if args.quick else (200_000, 50)
    rounds = args.rounds if args.rounds is not None else (10 if args.quick else 100)
    sys.path.insert(0, str(REPO))
    import numpy as np
    import pandas as pd
    from arena_rank.models.contextual_bradley_terry import ContextualBradleyTerry
    from arena_rank.utils.data_utils import ContextualPairDataset

    from desktop.domain import contextual_bradley_terry as cbt
    from tests.test_style_control import styled_battles

    names, a, b, outcome, x = styled_battles(11, models, battles)
    reg = cbt.fastchat_reg(battles)
    unit = 400 / math.log(10)
    start = time.perf_counter()
    data = cbt.StyleBattles(tuple(names), a, b, outcome, x, np.ones(battles))
    theta = cbt.fit(data, reg)
    se = cbt.sandwich_se(data, theta, reg)
    ours_seconds = time.perf_counter() - start
    start = time.perf_counter()
    cbt.bootstrap(data, rounds, 0, reg)
    boot_seconds = time.perf_counter() - start
    cols = [f"f{i}" for i in range(x.shape[1])]
    frame = pd.DataFrame(x, columns=cols)
    frame["model_a"] = [names[i] for i in a]
    frame["model_b"] = [names[i] for i in b]
    frame["outcome"] = outcome
    start = time.perf_counter()
    dataset = ContextualPairDataset.from_pandas(
        frame, cols, outcome_col="outcome", outcome_map=float, reweighted=False
    )
    model = ContextualBradleyTerry(
        models, x.shape[1], reg=reg, ftol=1e-15, gtol=1e-12, max_iter=10_000
    )
    theirs = model.compute_ratings_and_cis(dataset, significance_level=0.05)
    arena_seconds = time.perf_counter() - start
    k = models
    rating = theta[:k] * unit + 1000
    half = 1.959963984540054 * se[:k] * unit
    gap = max(
        float(np.abs(np.asarray(theirs["ratings"]) - rating).max()),
        float(np.abs(np.asarray(theirs["rating_lower"]) - (rating - half)).max()),
        float(np.abs(np.asarray(theirs["rating_upper"]) - (rating + half)).max()),
    )
    report = {
        "battles": battles,
        "models": models,
        "ours": {"fit_and_sandwich_seconds": ours_seconds, "bootstrap_seconds": boot_seconds,
                 "bootstrap_rounds": rounds},
        "arena_rank": {"fit_and_sandwich_seconds": arena_seconds},
        "largest_difference_points": gap,
        "meets_targets": {"equal": gap <= EQUAL_WITHIN, "faster": ours_seconds < arena_seconds},
    }  # fmt: skip
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
