"""Benchmark: export a project of 100,000 two-to-eight-turn conversation pairs to JSONL
(every message of both sides, the compared turn, the reviewer's verdict per dimension).

Target (issue 20): at most 1.5x the wall time of ``sqlite-utils rows PROJECT pairs --nl``
writing the same project's pairs table as JSON lines, measured in the same run.

The project is made untimed: ``bench_import_conversations.generate``'s Chatbot Arena
votes (each a conversation pair with one person's vote) imported by ``tiebreak import``.
Then, turn about, ``tiebreak export PROJECT OUT.jsonl`` and the reference, each a whole
command in a child process (start-up included), timed and measured as
``bench_import_export.run`` does. Prints one JSON object on stdout, progress on stderr;
exits non-zero only when something fails (a command errors, a count is wrong), never
because a target is missed.

    .venv/bin/python tests/bench/bench_export_conversations.py            # 100,000 pairs
    .venv/bin/python tests/bench/bench_export_conversations.py --quick    # 5,000, for CI
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

from tests.bench.bench_import_conversations import generate  # noqa: E402
from tests.bench.bench_import_export import (  # noqa: E402
    Bench,
    BenchError,
    bench_main,
    best,
    log,
    run,
)

TIME_TARGET = 1.5


def check(out: Path, n: int) -> int:
    """Every pair exported once, each with both whole conversations; the file's size."""
    rows = 0
    with out.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if not (row["conversation_a"] and row["conversation_b"] and row["turn"]):
                raise BenchError(f"{out}: row {rows + 1} has no conversation")
            rows += 1
    if rows != n:
        raise BenchError(f"{out}: {rows:,} rows, expected {n:,}")
    return out.stat().st_size


def measure(bench: Bench) -> dict[str, Any]:
    args, n, repeat, sqlite_utils, work = bench
    repeat = 1 if args.quick else repeat
    py = sys.executable
    data, project = work / "votes.jsonl", work / "conv.tiebreak"
    ours_out, ref_out = work / "export.jsonl", work / "rows.jsonl"
    log(f"generating and importing {n:,} conversation pairs (untimed)")
    start = time.perf_counter()
    generate(data, n)
    run([py, "-m", "desktop", "new", str(project)], label="tiebreak new")
    run([py, "-m", "desktop", "import", str(project), str(data)], label="tiebreak import")
    log(f"  ready in {time.perf_counter() - start:.1f} s")
    ours, refs = [], []
    for i in range(repeat):
        log(f"run {i + 1}/{repeat}")
        commands = [
            (
                refs,
                [str(sqlite_utils), "rows", str(project), "pairs", "--nl"],
                ref_out,
                "sqlite-utils rows --nl",
            ),
            (
                ours,
                [py, "-m", "desktop", "export", str(project), str(ours_out)],
                None,
                "tiebreak export",
            ),
        ]
        for into, cmd, stdout, label in commands if i % 2 == 0 else reversed(commands):
            into.append(run(cmd, stdout=stdout, label=label))
    size = check(ours_out, n)
    ref_size = ref_out.stat().st_size
    ours_best, ref = best(ours), best(refs)
    ratio = ours_best.seconds / ref.seconds
    return {
        "pairs": n,
        "export_mb": round(size / 1e6, 1),
        "sqlite_utils_rows_mb": round(ref_size / 1e6, 1),
        "sqlite_utils_rows_s": round(ref.seconds, 2),
        "export_s": round(ours_best.seconds, 2),
        "export_cpu_s": round(ours_best.cpu, 2),
        "export_peak_rss_mb": round(ours_best.peak_rss_mb, 1),
        "time_ratio": round(ratio, 3),
        "time_target": TIME_TARGET,
        "meets_target": ratio <= TIME_TARGET,
        "runs": {"export_s": [r.seconds for r in ours], "rows_s": [r.seconds for r in refs]},
        "quick": args.quick,
    }


def main(argv: list[str] | None = None) -> int:
    return bench_main(argv, __doc__ or "", measure, prefix="tiebreak-bench-export-", repeat=3)


if __name__ == "__main__":
    sys.exit(main())
