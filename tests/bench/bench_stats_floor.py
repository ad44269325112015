"""Benchmark: `tiebreak stats --json` against its floor (issue 33), a short numpy script
(``stats_floor.py``) reading the same project file for the core of the same figures: per
dimension, the judge's win rate over both orders with a bootstrap interval, and its
agreement and Cohen's κ with the reviewers' label. Target: `stats` within 2× the floor's
CPU time, and at most 400 MB at a million pairs.

The project is bench_stats_figures' (its pairs, both orders on half of them, 20% of pairs
reviewed on two dimensions), measured and indexed as after `tiebreak index`. Per round each
side runs in a child process (start-up included), the order alternating; the figures both
give are checked equal (the counts, agreement and κ exactly, and the intervals exactly too:
both draw from the stream `stats` names each figure by). Prints
the medians, their ratio, the peak memory and every sample as JSON; never fails on a time.

    .venv/bin/python tests/bench/bench_stats_floor.py                     # 100,000 pairs
    .venv/bin/python tests/bench/bench_stats_floor.py --pairs 1000000
    .venv/bin/python tests/bench/bench_stats_floor.py --quick             # 5,000 (CI)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TARGET = 2.0
TARGET_PEAK_MB = 400
FLOOR = Path(__file__).with_name("stats_floor.py")


def _run(command: list[str], out: Path) -> tuple[float, float, float]:
    """(wall s, CPU s, peak MB) of one child process, its output to ``out``."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(REPO)}
    start = time.perf_counter()
    with out.open("wb") as sink:
        child = subprocess.Popen(command, cwd=REPO, stdout=sink, env=env)
        _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed ({status})")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def _apart(ours: float | None, theirs: float | None, limit: float) -> bool:
    return (ours is None) != (theirs is None) or (
        ours is not None and theirs is not None and abs(ours - theirs) > limit
    )


def compare(stats: dict, floor: dict) -> list[str]:
    """Where the two disagree (empty: nowhere)."""
    wrong = []
    rubric = stats["rubrics"][0]
    for d in rubric["overall"]["dimensions"]:
        dim, theirs = d["dimension"], floor["dimensions"][d["dimension"]]
        for key in ("n", "a", "b", "tie"):
            if d["judge_win"][key] != theirs["judge_win"][key]:
                wrong.append(f"{dim} judge_win.{key}")
        for key in ("rate", "low", "high"):
            ours, their = d["judge_win"][key], theirs["judge_win"][key]
            if _apart(ours, their, 1e-12):
                wrong.append(f"{dim} judge_win.{key}: {ours} against {their}")
        vs = d["vs_human"]
        if vs["n"] != theirs["vs_human"]["n"] or vs["confusion"] != theirs["vs_human"]["confusion"]:
            wrong.append(f"{dim} vs_human counts")
        for key in ("agreement", "kappa"):
            ours, their = vs[key], theirs["vs_human"][key]
            if _apart(ours, their, 1e-12):
                wrong.append(f"{dim} vs_human.{key}: {ours} against {their}")
    return wrong


def main(argv: list[str] | None = None) -> int:
    from tests.bench.bench_stats_figures import build

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="5,000 pairs, one round")
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    n, rounds = (5000, 1) if args.quick else (args.pairs, args.rounds)
    with tempfile.TemporaryDirectory(prefix="bench-floor-") as tmp:
        work = Path(tmp)
        project = work / "p.tiebreak"
        print(f"building {n:,} pairs…", file=sys.stderr)
        build(REPO, project, n, n // 5)
        sides = {
            "stats": [sys.executable, "-m", "desktop", "stats", str(project), "--json"],
            "floor": [
                sys.executable,
                str(Path(__file__).with_name("stats_floor.py")),
                str(project),
            ],
        }
        _run(sides["stats"], work / "warm.json")  # the file's pages in the cache, both alike
        samples: dict[str, dict[str, list[float]]] = {
            s: {"wall": [], "cpu": [], "peak_mb": []} for s in sides
        }
        for r in range(rounds):
            for name in list(sides) if r % 2 == 0 else list(reversed(sides)):
                wall, cpu, peak = _run(sides[name], work / f"{name}.json")
                for key, value in zip(("wall", "cpu", "peak_mb"), (wall, cpu, peak), strict=True):
                    samples[name][key].append(value)
                print(f"round {r + 1}: {name} {wall:.2f} s", file=sys.stderr)
        wrong = compare(
            json.loads((work / "stats.json").read_text()),
            json.loads((work / "floor.json").read_text()),
        )
    medians = {s: {k: statistics.median(v) for k, v in samples[s].items()} for s in sides}
    print(
        json.dumps(
            {
                "pairs": n,
                "rounds": rounds,
                "median": medians,
                "ratio_cpu": medians["stats"]["cpu"] / medians["floor"]["cpu"],
                "ratio_wall": medians["stats"]["wall"] / medians["floor"]["wall"],
                "target_ratio": TARGET,
                "stats_peak_mb": max(samples["stats"]["peak_mb"]),
                "target_peak_mb": TARGET_PEAK_MB,
                "figures_equal": not wrong,
                "differences": wrong,
                "samples": samples,
                "load_average": os.getloadavg(),
            },
            indent=2,
        )
    )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
