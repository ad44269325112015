"""Benchmark: what the check for a damaged project costs, against the commands that pay it.

Before the first write, a project is checked with ``PRAGMA quick_check`` (see
``desktop/adapters/store/damage.py``). This measures, on a generated project of 100,000
pairs of about 2 KB with verdicts (the import/export benchmark's data):

* each candidate check on its own connection, warm (file in the page cache, best of
  ``--repeat``) and cold (the file's pages dropped from the cache first, where the
  platform allows it), and whether it finds the issue's damage: 8 KB of garbage a third
  into a copy of the file;
* the writing commands as a user runs them (child processes, start-up included): after
  another program changed the file (so the whole file is checked), after only Tiebreak
  changed it since it was last found sound (so it is not), and with the check replaced
  by nothing; interleaved, best of ``--repeat``.

Prints one JSON object on stdout, progress on stderr; never fails on a time.

    .venv/bin/python tests/bench/bench_damage_check.py            # 100,000 pairs
    .venv/bin/python tests/bench/bench_damage_check.py --quick    # 5,000 pairs, for CI
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

from tests.bench.bench_import_export import (  # noqa: E402
    RUBRIC,
    add_verdicts,
    generate,
    log,
)

# Each candidate, and what it reads.
CHECKS = {
    "quick_check": "PRAGMA quick_check(1)",
    "integrity_check": "PRAGMA integrity_check(1)",
    # Only the tables an override writes: cheap, but blind to damage anywhere else.
    "quick_check_human_verdicts": "PRAGMA quick_check(human_verdicts)",
    # Only the table an import writes most of.
    "quick_check_pairs": "PRAGMA quick_check(pairs)",
}

# A command run with the check replaced by nothing: the same command line otherwise.
_WITHOUT_CHECK = """
import sys
from desktop.adapters.store import damage
damage.ensure_sound = lambda *args: None
from desktop.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.strip()}")
    return seconds


def drop_cache(path: Path) -> bool:
    """Evict one file's pages from the page cache (no other file is touched)."""
    if not hasattr(os, "posix_fadvise"):
        return False
    os.sync()
    with path.open("rb") as fh:
        os.posix_fadvise(fh.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    return True


def run_check(path: Path, sql: str) -> tuple[float, str]:
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        start = time.perf_counter()
        try:
            result = str(conn.execute(sql).fetchall()[0][0])
        except sqlite3.DatabaseError as exc:
            result = f"error: {exc}"
        return time.perf_counter() - start, result
    finally:
        conn.close()


def damaged_copy(path: Path, work: Path) -> Path:
    copy = work / "damaged.tiebreak"
    shutil.copyfile(path, copy)
    size = copy.stat().st_size
    with copy.open("r+b") as fh:
        fh.seek(size // 3)
        fh.write(random.Random(12).randbytes(8192))
    return copy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="5,000 pairs, for CI")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, help="working folder (default: a temporary one)")
    args = parser.parse_args(argv)
    n = 5000 if args.quick else args.pairs
    repeat = max(1, args.repeat)
    py = sys.executable
    work = args.out or Path(tempfile.mkdtemp(prefix="tiebreak-bench-damage-"))
    work.mkdir(parents=True, exist_ok=True)
    project = work / "bench.tiebreak"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{project}{suffix}").unlink(missing_ok=True)

    log(f"building a project of {n:,} pairs in {work}")
    generate(work / "pairs.jsonl", n)
    timed([py, "-m", "desktop", "new", str(project)])
    timed([py, "-m", "desktop", "import", str(project), str(work / "pairs.jsonl")])
    add_verdicts(project, n)
    small = work / "more.jsonl"
    small.write_text(
        "".join(
            json.dumps({"instruction": f"new {i}", "output_1": "a", "output_2": "b"}) + "\n"
            for i in range(100)
        )
    )
    damaged = damaged_copy(project, work)

    checks: dict[str, dict[str, object]] = {}
    for name, sql in CHECKS.items():
        warm = min(run_check(project, sql)[0] for _ in range(repeat))
        cold = run_check(project, sql)[0] if drop_cache(project) else None
        _, verdict = run_check(damaged, sql)
        checks[name] = {
            "warm_s": round(warm, 4),
            "cold_s": None if cold is None else round(cold, 4),
            "finds_the_damage": verdict != "ok",
        }
        log(f"  {name}: warm {warm:.3f} s, finds the damage: {verdict != 'ok'}")

    commands = {
        "override one verdict": [
            "override",
            str(project),
            "bench-000017",
            "overall",
            "B",
            "--rubric",
            RUBRIC,
        ],
        "import 100 pairs": ["import", str(project), str(small)],
    }
    figures: dict[str, dict[str, float]] = {}
    for label, words in commands.items():
        checked, remembered, bare = [], [], []
        for _ in range(repeat):  # interleaved, so load on the machine hits all alike
            os.utime(project)  # as if another program had written it: checked in full
            checked.append(timed([py, "-m", "desktop", *words]))
            remembered.append(timed([py, "-m", "desktop", *words]))  # only Tiebreak since
            bare.append(timed([py, "-c", _WITHOUT_CHECK, *words]))
        figures[label] = {
            "after_an_outside_change_s": round(min(checked), 3),
            "after_tiebreak_alone_s": round(min(remembered), 3),
            "without_any_check_s": round(min(bare), 3),
        }
        log(f"  {label}: {figures[label]}")

    print(
        json.dumps(
            {
                "pairs": n,
                "repeat": repeat,
                "project_mb": round(project.stat().st_size / 1e6, 1),
                "checks": checks,
                "chosen": "quick_check",
                "commands": figures,
            },
            indent=2,
        )
    )
    if not args.out:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
