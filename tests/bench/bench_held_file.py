"""Benchmark: what a write pays to know that the project's path still names the file it
holds, and to keep the write-ahead log copied into the file (desktop/adapters/store/
held_file.py), against the same write without either, in one run.

Each write is a reviewer's verdict written through the store as the window writes it (one
transaction, BEGIN IMMEDIATE to COMMIT), on a project of generated pairs:

* ``unchecked`` — the reference: the store as it was before (no look at the path, SQLite's
  own checkpoint when the log reaches 1,000 pages);
* ``window`` — a verdict key in the window: the look before the write (a stat and
  ``PRAGMA data_version`` inside the transaction); the log is copied into the file once
  the reviewer pauses for a second (``pause_ms``: that copy, after one write);
* ``judging`` — a judging job's writes: the look, and the log copied in at most every
  second (a job commits every answer as it arrives);
* ``command`` — a command's write (``tiebreak override``, an import): the look, and the
  log copied in and emptied after the write (two fsyncs), as a command makes a few.

The variants are interleaved, ``--rounds`` times each; per-write medians in microseconds,
and the extra against ``unchecked``. Prints one JSON object on stdout, progress on stderr;
never fails on a time. Figures from a shared machine are noisy: compare within one run.

    .venv/bin/python tests/bench/bench_held_file.py            # 2,000 writes a round
    .venv/bin/python tests/bench/bench_held_file.py --quick    # 200 writes, for CI
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

from desktop.adapters.store import open_project  # noqa: E402
from desktop.adapters.store.project import ProjectStore  # noqa: E402
from desktop.services.importing import import_file  # noqa: E402
from tests.bench.bench_import_export import generate, log  # noqa: E402
from tests.held_projects import give_verdict  # noqa: E402
from tests.helpers import new_project  # noqa: E402

PAIRS = 1000


def _unchecked(store: ProjectStore) -> None:
    store._held = None  # the store without the look, as it was
    store.conn.execute("PRAGMA wal_autocheckpoint = 1000")


VARIANTS: dict[str, Callable[[ProjectStore], None]] = {
    "unchecked": _unchecked,
    "window": lambda store: store.settle_every(None),
    "judging": lambda store: store.settle_every(1.0),
    "command": lambda store: store.settle_every(0.0),
}


def pause_ms(project: Path) -> float:
    """The window's copy of one verdict into the file, once the reviewer pauses."""
    with open_project(project) as store:
        store.settle_every(None)
        give_verdict(store, "bench-000001", "A")
        started = time.perf_counter()
        store.verify(idle=0)
        return (time.perf_counter() - started) * 1000


def one_round(project: Path, name: str, writes: int) -> float:
    """Median microseconds per write."""
    times = []
    with open_project(project) as store:
        VARIANTS[name](store)
        for i in range(writes):
            started = time.perf_counter()
            give_verdict(store, f"bench-{i % PAIRS + 1:06d}", "AB"[i % 2])
            times.append(time.perf_counter() - started)
    return statistics.median(times) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="200 writes a round")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    writes = 200 if args.quick else 2000
    with tempfile.TemporaryDirectory(prefix="bench-held-") as tmp:
        folder = Path(tmp)
        project = new_project(folder)
        generate(folder / "pairs.jsonl", PAIRS)
        with open_project(project) as store:
            import_file(store, folder / "pairs.jsonl")
        medians: dict[str, list[float]] = {name: [] for name in VARIANTS}
        pauses = []
        for round_ in range(args.rounds):
            for name in VARIANTS:
                medians[name].append(one_round(project, name, writes))
            pauses.append(pause_ms(project))
            log(
                f"round {round_ + 1}: "
                + ", ".join(f"{n} {m[-1]:.0f} us" for n, m in medians.items())
            )
    per_write = {name: round(min(values), 1) for name, values in medians.items()}
    reference = per_write["unchecked"]
    print(
        json.dumps(
            {
                "writes_per_round": writes,
                "rounds": args.rounds,
                "per_write_us": per_write,
                "reference": "unchecked: the same write without the look or our checkpoints",
                "extra_us": {
                    name: round(value - reference, 1)
                    for name, value in per_write.items()
                    if name != "unchecked"
                },
                "ratio": {
                    name: round(value / reference, 2)
                    for name, value in per_write.items()
                    if name != "unchecked"
                },
                "pause_ms": round(statistics.median(pauses), 2),
                "python": sys.version.split()[0],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
