"""Benchmark: import 100,000 two-to-eight-turn conversation pairs (JSONL, Chatbot Arena's
vote shape: ``conversation_a``, ``conversation_b``, ``turn``, ``winner``, ``judge``, ...).

Targets (issue 20):

* time: at most 1.3x the wall time of ``sqlite-utils insert DB votes FILE --nl`` loading
  the same file into a bare table, measured in the same run;
* peak memory (RSS): at most 1.5x that of importing single-turn pairs
  (``bench_import_export.generate``, the same number of records), measured in the same run.

Each figure is a whole command in a child process (start-up included), timed and measured
as ``bench_import_export.run`` does. Prints one JSON object on stdout, progress on stderr;
exits non-zero only when something fails (a command errors, a count is wrong), never
because a target is missed.

    .venv/bin/python tests/bench/bench_import_conversations.py            # 100,000 pairs
    .venv/bin/python tests/bench/bench_import_conversations.py --quick    # 5,000, for CI
"""

from __future__ import annotations

import json
import random
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

from tests.bench.bench_import_export import (  # noqa: E402
    Bench,
    BenchError,
    _sentence_pool,
    _text,
    bench_main,
    best,
    log,
    remove_db,
    run,
)
from tests.bench.bench_import_export import generate as generate_single  # noqa: E402

TIME_TARGET = 1.3
MEMORY_TARGET = 1.5
SEED = 20261125
_MODELS = ("vicuna-13b", "koala-13b", "alpaca-13b", "chatglm-6b", "gpt-4", "claude-v1")
_WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")
_LANGUAGES = ("English", "English", "English", "German", "Spanish", "Chinese")


def generate(path: Path, n: int, seed: int = SEED) -> int:
    """``n`` Arena-style votes, 2 to 8 turns each (user turns shared, answers differing),
    as JSONL; returns the file's size in bytes."""
    rng = random.Random(seed)
    pool = _sentence_pool(rng)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(1, n + 1):
            turns = rng.randint(2, 8)
            a: list[dict[str, str]] = []
            b: list[dict[str, str]] = []
            for _ in range(turns):
                ask = {"role": "user", "content": _text(rng, pool, rng.randint(60, 200))}
                a += [
                    ask,
                    {"role": "assistant", "content": _text(rng, pool, rng.randint(100, 320))},
                ]
                b += [
                    ask,
                    {"role": "assistant", "content": _text(rng, pool, rng.randint(100, 320))},
                ]
            model_a, model_b = rng.sample(_MODELS, 2)
            record = {
                "question_id": f"{rng.getrandbits(128):032x}",
                "model_a": model_a,
                "model_b": model_b,
                "winner": rng.choice(_WINNERS),
                "judge": f"arena_user_{rng.randint(1, 20000)}",
                "conversation_a": a,
                "conversation_b": b,
                "turn": turns,
                "anony": rng.random() < 0.8,
                "language": rng.choice(_LANGUAGES),
                "tstamp": 1682351591.1322 + i,
            }
            fh.write(json.dumps(record, ensure_ascii=False))
            fh.write("\n")
    return path.stat().st_size


def counts(project: Path) -> tuple[int, int]:
    conn = sqlite3.connect(f"{project.resolve().as_uri()}?mode=ro", uri=True)
    try:
        pairs = conn.execute("SELECT count(*) FROM pairs WHERE turn IS NOT NULL").fetchone()[0]
        votes = conn.execute("SELECT count(*) FROM human_verdicts").fetchone()[0]
        return pairs, votes
    finally:
        conn.close()


def measure(bench: Bench) -> dict[str, Any]:
    args, n, repeat, sqlite_utils, work = bench
    py = sys.executable
    data, single = work / "votes.jsonl", work / "single.jsonl"
    ref_db, project, single_project = (
        work / "ref.db",
        work / "conv.tiebreak",
        work / "single.tiebreak",
    )
    log(f"generating {n:,} conversation pairs in {data}")
    start = time.perf_counter()
    size = generate(data, n)
    took = time.perf_counter() - start
    log(f"  {size / 1e6:.1f} MB ({size / n:.0f} bytes a pair) in {took:.1f} s")
    single_size = generate_single(single, n)
    refs, ours, singles = [], [], []
    for i in range(repeat):
        log(f"run {i + 1}/{repeat}")
        remove_db(ref_db)
        refs.append(
            run(
                [str(sqlite_utils), "insert", str(ref_db), "votes", str(data), "--nl"],
                label="sqlite-utils insert --nl",
            )
        )
        for path, source, into in ((project, data, ours), (single_project, single, singles)):
            remove_db(path)
            run([py, "-m", "desktop", "new", str(path)], label="tiebreak new")
            into.append(
                run(
                    [py, "-m", "desktop", "import", str(path), str(source)],
                    label=f"import {source.name}",
                )
            )
    ref, ours_best, single_best = best(refs), best(ours), best(singles)
    pairs, votes = counts(project)
    if (pairs, votes) != (n, n):
        raise BenchError(f"{project}: {pairs} conversation pairs and {votes} votes, expected {n}")
    time_ratio = ours_best.seconds / ref.seconds
    memory_ratio = ours_best.peak_rss_mb / single_best.peak_rss_mb
    return {
        "pairs": n,
        "file_mb": round(size / 1e6, 1),
        "single_turn_file_mb": round(single_size / 1e6, 1),
        "sqlite_utils_insert_s": round(ref.seconds, 2),
        "import_s": round(ours_best.seconds, 2),
        "time_ratio": round(time_ratio, 3),
        "time_target": TIME_TARGET,
        "import_peak_rss_mb": round(ours_best.peak_rss_mb, 1),
        "single_turn_import_s": round(single_best.seconds, 2),
        "single_turn_peak_rss_mb": round(single_best.peak_rss_mb, 1),
        "memory_ratio": round(memory_ratio, 3),
        "memory_target": MEMORY_TARGET,
        "meets_targets": time_ratio <= TIME_TARGET and memory_ratio <= MEMORY_TARGET,
        "quick": args.quick,
    }


def main(argv: list[str] | None = None) -> int:
    return bench_main(argv, __doc__ or "", measure, prefix="tiebreak-bench-conv-")


if __name__ == "__main__":
    sys.exit(main())
