"""Benchmark: `tiebreak stats` with every figure of issue 21 (the win rate three ways with
PPI++, --target, biases, calibration) on a 100,000-pair project with 20,000 human verdicts,
against today's `tiebreak stats` of a reference checkout (say main, with its own .venv) on
the same project, in one run. Target: within 1.5x the reference's time.

The project is built by the reference checkout (its schema), with bench_import_export's
pairs and judge answers (both orders on half the pairs, a confidence on every verdict) and
20,000 human verdicts on 10,000 pairs; this checkout reads its own copy (brought up to its
schema by one untimed run). Per round each side runs `stats --json` in a child process
(start-up included, output to a file), the order alternating; it prints the medians, their
ratio and every sample as JSON. Never fails on a time.

    .venv/bin/python tests/bench/bench_stats_figures.py --reference /work/main   # 100,000
    .venv/bin/python tests/bench/bench_stats_figures.py --quick   # 5,000 pairs (CI)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TARGET = 1.5

_BUILD = """
import sys
sys.path.insert(0, {root!r})
from pathlib import Path
from tests.bench import bench_import_export as b
n, out = {n}, Path({project!r})
jsonl = out.with_suffix(".jsonl")
b.generate(jsonl, n)
import subprocess
subprocess.run([sys.executable, "-m", "desktop", "new", str(out)], check=True, capture_output=True)
# Imported here, not by `tiebreak import`: a large import's command starts `tiebreak index`
# in the background, which would share the machine with what is timed. It runs to its end
# here instead, as it has on a user's project by the time they look at its figures.
from desktop.adapters.store import open_project
from desktop.services.importing import import_file
with open_project(out) as store:
    import_file(store, jsonl)
subprocess.run([sys.executable, "-m", "desktop", "index", "--quiet", str(out)], check=True,
               capture_output=True)
b.add_verdicts(out, n)
"""


def python_of(root: Path) -> str:
    venv = root / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def build(reference: Path, project: Path, n: int, human: int) -> None:
    """The reference's project, then ``human`` verdicts on human / 2 pairs (both
    dimensions), replacing bench_import_export's."""
    script = _BUILD.format(root=str(reference), n=n, project=str(project))
    subprocess.run([python_of(reference), "-c", script], check=True, cwd=reference)
    rng = random.Random(7)
    conn = sqlite3.connect(project)
    with conn:
        conn.execute("DELETE FROM human_verdicts")
        rubric = conn.execute("SELECT name FROM rubrics").fetchone()[0]
        ids = [r[0] for r in conn.execute("SELECT id FROM pairs")]
        rows = []
        for pid in rng.sample(ids, human // 2):
            for dim in ("overall", "correctness"):
                verdict = rng.choice(("A", "B", "tie"))
                rows.append((pid, rubric, dim, verdict, "reviewer-1", "gui", "2025-01-01T00:00"))
        conn.executemany(
            "INSERT INTO human_verdicts (pair_id, rubric_name, dimension, verdict, reviewer,"
            " mode, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
    conn.close()


def timed(root: Path, args: list[str], out: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one command in a child process."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.perf_counter()
    with out.open("wb") as sink:
        child = subprocess.Popen(
            [python_of(root), "-m", "desktop", *args], cwd=root, stdout=sink, env=env
        )
        _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{root}: {' '.join(args)} failed ({status})")
    return wall, usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--reference",
        type=Path,
        default=None,
        help="a checkout of today's main (default: this one, as CI has no other)",
    )
    parser.add_argument("--quick", action="store_true", help="5,000 pairs, one round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    n, human, rounds = (5000, 1000, 1) if args.quick else (100_000, 20_000, args.rounds)
    if args.reference is None:  # CI: this checkout's plain `stats` against the one with --target
        args.reference = REPO
    if not (args.reference / "desktop").is_dir():
        print(f"no reference checkout at {args.reference}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="bench-stats-") as tmp:
        work = Path(tmp)
        reference_project = work / "reference.tiebreak"
        print(f"building {n:,} pairs, {human:,} human verdicts…", file=sys.stderr)
        build(args.reference, reference_project, n, human)
        ours_project = work / "ours.tiebreak"
        shutil.copy(reference_project, ours_project)
        sides = {
            "reference": (args.reference, ["stats", str(reference_project), "--json"]),
            "ours": (REPO, ["stats", str(ours_project), "--json", "--target", "±2"]),
        }
        timed(REPO, sides["ours"][1], work / "warm.json")  # brings the copy to our schema
        timed(args.reference, sides["reference"][1], work / "warm-ref.json")
        samples: dict[str, dict[str, list[float]]] = {s: {"wall": [], "cpu": []} for s in sides}
        for r in range(rounds):
            order = list(sides) if r % 2 == 0 else list(reversed(sides))
            for name in order:
                root, command = sides[name]
                wall, cpu = timed(root, command, work / f"{name}.json")
                samples[name]["wall"].append(wall)
                samples[name]["cpu"].append(cpu)
                print(f"round {r + 1}: {name} {wall:.2f} s", file=sys.stderr)
        ours = json.loads((work / "ours.json").read_text())["rubrics"][0]
        overall = next(d for d in ours["overall"]["dimensions"] if d["dimension"] == "overall")
        medians = {s: {k: statistics.median(v) for k, v in samples[s].items()} for s in sides}
        print(
            json.dumps(
                {
                    "pairs": n,
                    "human_verdicts": human,
                    "rounds": rounds,
                    "reference": str(args.reference),
                    "median_s": medians,
                    "ratio_wall": medians["ours"]["wall"] / medians["reference"]["wall"],
                    "ratio_cpu": medians["ours"]["cpu"] / medians["reference"]["cpu"],
                    "target_ratio": TARGET,
                    "samples": samples,
                    "figures_shown": {
                        "ppi": overall["win_rates"]["combined"] is not None,
                        "target_more": (overall["target"] or {}).get("more"),
                        "biases": overall["biases"] is not None,
                        "calibration": overall["calibration"] is not None,
                    },
                    "load_average": os.getloadavg(),
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
