"""Benchmark: Bradley-Terry ratings with bootstrap intervals, ours against arena-rank's.

Target (issue 21): ratings with 1,000 bootstrap rounds on 1,000,000 verdicts among 100
generators faster than arena-rank (``BradleyTerry``, LMArena's package) on the same
verdicts and rounds on the same machine, the ratings equal (to 0.01 points).

Both sides run in their own child process on the same verdicts (written once to a file by
a third), each timing its whole computation from verdicts in memory to ratings, sandwich
and bootstrap intervals: ours is ``desktop.domain.ratings.model_ratings``; arena-rank's is
``PairDataset.from_pandas`` then ``compute_ratings_and_cis`` with the sandwich and with the
bootstrap (its worker pool on every core; started with 'spawn', because jax's threads hang
its workers after a fork). Imports and reading the file are not timed.

arena-rank refits (and recompiles) every bootstrap round in its pool, about 7 s a round on
two busy cores, so 1,000 rounds take hours. ``--reference-rounds R`` times its bootstrap on
R rounds and on one round per worker (the pool's start-up), and extrapolates linearly to
the rounds asked (``arena_rank.extrapolated``); give the full number to time them all.

Prints one JSON object on stdout, progress on stderr; exits non-zero only when a side
fails, never because a target is missed (read ``meets_targets``).

    .venv/bin/python tests/bench/bench_ratings.py          # 1,000,000 x 100 x 1,000 rounds
    .venv/bin/python tests/bench/bench_ratings.py --quick  # 20,000 x 20 x 10 rounds (CI)
    .venv/bin/python tests/bench/bench_ratings.py --reference-rounds 1000  # no extrapolation
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SEED = 20240621
TIE_SHARE = 0.1
EQUAL_WITHIN = 0.01  # rating points


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


# ---------------------------------------------------------------- children


def make(path: str, models: int, verdicts: int) -> None:
    """Verdicts between models of normal strengths (sd 1 in log-odds), every pairing
    equally likely, one in ten a tie."""
    import numpy as np

    rng = np.random.default_rng(SEED)
    strength = rng.normal(0.0, 1.0, models)
    a = rng.integers(0, models, verdicts)
    b = (a + rng.integers(1, models, verdicts)) % models
    p_b = 1.0 / (1.0 + np.exp(strength[a] - strength[b]))
    tie = rng.random(verdicts) < TIE_SHARE
    score = np.where(tie, 0.5, (rng.random(verdicts) < p_b).astype(float))
    np.savez(path, a=a, b=b, score=score, names=np.array([f"model-{i:03d}" for i in range(models)]))


def _usage() -> dict:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "cpu_seconds": own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
        "peak_rss_mb": own.ru_maxrss / 1024,
    }


def ours(path: str, rounds: int, out: str) -> None:
    import numpy as np

    sys.path.insert(0, str(REPO))
    from desktop.domain.ratings import model_ratings

    data = np.load(path)
    names = data["names"]
    model_a, model_b, score = names[data["a"]], names[data["b"]], data["score"]
    start = time.perf_counter()
    result = model_ratings(model_a, model_b, score, rounds=rounds, seed=0)
    seconds = time.perf_counter() - start
    report = {
        "seconds": seconds,
        **_usage(),
        "models": list(result.models),
        "ratings": list(result.rating),
        "sandwich": [list(x) for x in result.sandwich],
        "bootstrap": [list(x) for x in result.bootstrap or ()],
    }
    Path(out).write_text(json.dumps(report))


def arena(path: str, rounds: int, timed_rounds: int, out: str) -> None:
    import multiprocessing

    multiprocessing.set_start_method("spawn", force=True)
    import numpy as np
    import pandas as pd
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    data = np.load(path)
    names, score = data["names"], data["score"]
    winner = np.where(score == 0.5, "tie", np.where(score == 1.0, "model_b", "model_a"))
    frame = pd.DataFrame(
        {"model_a": names[data["a"]], "model_b": names[data["b"]], "winner": winner}
    )
    start = time.perf_counter()
    dataset = PairDataset.from_pandas(frame)
    model = BradleyTerry(n_competitors=len(dataset.competitors))
    sandwich = model.compute_ratings_and_cis(dataset, significance_level=0.05)
    fitted = time.perf_counter()

    def bootstrap(count: int) -> tuple[float, dict]:
        began = time.perf_counter()
        out = model.compute_ratings_and_cis(
            dataset, significance_level=0.05, ci_method="bootstrap", num_bootstrap=count, seed=0
        )
        return time.perf_counter() - began, out

    workers = os.cpu_count() or 1
    boot_seconds, boot = bootstrap(timed_rounds)
    report = {"fit_and_sandwich_seconds": fitted - start, "bootstrap_rounds_timed": timed_rounds}
    if timed_rounds >= rounds:
        report |= {"seconds": fitted - start + boot_seconds, "extrapolated": False}
    else:  # the pool's start-up once, then the rest at the rate measured
        startup, _ = bootstrap(workers)
        per_round = max(boot_seconds - startup, 0.0) / (timed_rounds - workers)
        report |= {
            "seconds": fitted - start + startup + per_round * (rounds - workers),
            "extrapolated": True,
            "bootstrap_seconds_timed": boot_seconds,
            "pool_startup_seconds": startup,
            "seconds_per_round": per_round,
        }
    report |= {
        **_usage(),
        "workers": workers,
        "models": list(dataset.competitors),
        "ratings": np.asarray(sandwich["ratings"]).tolist(),
        "sandwich": np.stack([sandwich["rating_lower"], sandwich["rating_upper"]], 1).tolist(),
        "bootstrap": np.stack([boot["rating_lower"], boot["rating_upper"]], 1).tolist(),
    }
    Path(out).write_text(json.dumps(report))


# ---------------------------------------------------------------- parent


def child(kind: str, *args: object) -> dict:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        out = fh.name
    try:
        cmd = [sys.executable, __file__, "--child", kind, *map(str, args), out]
        log(f"  {kind} ...")
        code = subprocess.call(cmd, cwd=REPO)
        if code != 0:
            raise SystemExit(f"bench_ratings: the {kind} child failed (exit {code})")
        return json.loads(Path(out).read_text()) if kind != "make" else {}
    finally:
        Path(out).unlink(missing_ok=True)


def largest_difference(first: list, second: list) -> float:
    import numpy as np

    return float(np.abs(np.asarray(first, float) - np.asarray(second, float)).max())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for CI")
    parser.add_argument("--models", type=int)
    parser.add_argument("--verdicts", type=int)
    parser.add_argument("--rounds", type=int)
    parser.add_argument(
        "--reference-rounds",
        type=int,
        help="arena-rank's bootstrap rounds actually timed (default: all in --quick, else 100)",
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        if kind == "make":
            make(rest[0], int(rest[1]), int(rest[2]))
        elif kind == "ours":
            ours(rest[0], int(rest[1]), rest[2])
        else:
            arena(rest[0], int(rest[1]), int(rest[2]), rest[3])
        return 0

    models = args.models or (20 if args.quick else 100)
    verdicts = args.verdicts or (20_000 if args.quick else 1_000_000)
    rounds = args.rounds or (10 if args.quick else 1000)
    timed = min(rounds, args.reference_rounds or (rounds if args.quick else 100))
    if timed < rounds and timed <= (os.cpu_count() or 1):
        parser.error("--reference-rounds must exceed the number of cores to extrapolate")
    log(f"bench_ratings: {verdicts:,} verdicts among {models} models, {rounds} bootstrap rounds")
    with tempfile.TemporaryDirectory(prefix="bench-ratings-") as tmp:
        data = str(Path(tmp) / "verdicts.npz")
        child("make", data, models, verdicts)
        load_before = os.getloadavg()
        mine = child("ours", data, rounds)
        log(f"  ours: {mine['seconds']:.1f} s")
        theirs = child("arena", data, rounds, timed)
        how = " (extrapolated)" if theirs["extrapolated"] else ""
        log(f"  arena-rank: {theirs['seconds']:.1f} s{how}")
    same_models = mine["models"] == theirs["models"]
    rating_gap = largest_difference(mine["ratings"], theirs["ratings"]) if same_models else None
    sandwich_gap = largest_difference(mine["sandwich"], theirs["sandwich"]) if same_models else None

    def mean_width(bounds: list) -> float:
        return sum(hi - lo for lo, hi in bounds) / len(bounds)

    report = {
        "verdicts": verdicts,
        "models": models,
        "rounds": rounds,
        "ours": {
            k: v for k, v in mine.items() if k not in ("models", "ratings", "sandwich", "bootstrap")
        },
        "arena_rank": {
            k: v
            for k, v in theirs.items()
            if k not in ("models", "ratings", "sandwich", "bootstrap")
        },
        "speedup": theirs["seconds"] / mine["seconds"],
        "largest_rating_difference": rating_gap,
        "largest_sandwich_bound_difference": sandwich_gap,
        # different random draws (and arena-rank's over the rounds timed): the two
        # bootstraps agree only within their own noise
        "bootstrap_width_ours_over_arena": mean_width(mine["bootstrap"])
        / mean_width(theirs["bootstrap"]),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "meets_targets": {
            "faster_than_arena_rank": mine["seconds"] < theirs["seconds"],
            "ratings_equal": rating_gap is not None and rating_gap <= EQUAL_WITHIN,
            "sandwich_equal": sandwich_gap is not None and sandwich_gap <= EQUAL_WITHIN,
        },
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
