"""Benchmark: import and CSV export of plain pairs at up to a million, against sqlite-utils
(issue 33).

Targets:

* import: the user's wait (``tiebreak new`` is not counted; ``tiebreak import`` of the
  JSONL file, to its return) at most 1.3x ``sqlite-utils insert DB pairs FILE --nl`` plus
  building the same FTS5 trigram index on that table (``content=pairs``, ``detail=none``,
  ``columnsize=0``, one ``rebuild``), both measured in the same run. A large import
  returns before its pairs are in the search index; the index is built after it, in a
  process of its own (``services/search_indexing.py``): how long that takes
  (``index_after_s``, from the import's return until the index holds every pair) is
  printed too, with the search's time while it runs and once it is built;
* export: ``tiebreak export`` to CSV of those pairs with a judge's and a reviewer's
  verdicts at most 1.5x ``sqlite-utils rows PROJECT pairs --csv`` on the same file.

Each figure is a whole command in a child process, timed and measured as
``bench_import_export.run`` does (wall seconds and the child's CPU seconds; the best of
``--repeat`` runs). Prints one JSON object on stdout, progress on stderr; exits non-zero
only when something fails (a command errors, a count is wrong, a search misses a pair),
never because a target is missed.

    .venv/bin/python tests/bench/bench_import_million.py --quick            # 21,000 pairs (CI)
    .venv/bin/python tests/bench/bench_import_million.py                    # 100,000 pairs
    .venv/bin/python tests/bench/bench_import_million.py --pairs 1000000    # the full run
"""

from __future__ import annotations

import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

from desktop.adapters.store.project import open_project  # noqa: E402
from desktop.adapters.store.search_backlog import first_unindexed  # noqa: E402
from desktop.services.importing import INDEX_NOW_MOST  # noqa: E402
from desktop.services.pair_list import list_rows  # noqa: E402
from tests.bench.bench_import_export import (  # noqa: E402
    RUBRIC,
    Bench,
    BenchError,
    add_verdicts,
    bench_main,
    best,
    check_export,
    count_csv_rows,
    count_pairs,
    generate,
    log,
    remove_db,
    run,
)

IMPORT_TARGET = 1.3
EXPORT_TARGET = 1.5
QUICK_PAIRS = INDEX_NOW_MOST + 1000  # just enough for the index to be built after the import
#: The reference's index: the project's own (migration m005) on sqlite-utils' table.
_INDEX = (
    "CREATE VIRTUAL TABLE pairs_search USING fts5(instruction, response_a, response_b,"
    " content='pairs', content_rowid='rowid', tokenize='trigram', detail='none',"
    " columnsize=0); INSERT INTO pairs_search(pairs_search) VALUES ('rebuild');"
)
#: Searched once the index is built and while it is: a word of the generator's vocabulary
#: (a page fills at once), a text in no pair (every candidate read), and the last pair's
#: external id.
_COMMON, _ABSENT = "photosynthesis", "zebra crossing"


def _index_script(db: Path) -> list[str]:
    return [
        sys.executable,
        "-c",
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2])",
        str(db),
        _INDEX,
    ]


def _wait_indexed(project: Path, limit_s: float) -> float:
    """Seconds until the project's search index holds every pair (polled read-only)."""
    start = time.perf_counter()
    while True:
        with open_project(project, readonly=True) as store:
            if first_unindexed(store.conn) is None:
                return time.perf_counter() - start
        if time.perf_counter() - start > limit_s:
            raise BenchError(f"{project}: the search index was not built in {limit_s:.0f} s")
        time.sleep(0.1)


def _search_ms(project: Path, text: str, repeat: int = 5) -> tuple[float, list[int]]:
    """The best time of the pair list's first page of a search (ms), and its ids."""
    times, ids = [], []
    with open_project(project, readonly=True) as store:
        for _ in range(repeat):
            start = time.perf_counter()
            rows = list_rows(store, RUBRIC, None, search=text, limit=60)
            times.append((time.perf_counter() - start) * 1000)
            ids = [r.id for r in rows]
    return min(times), ids


def _scan_ids(project: Path, text: str, most: int = 60) -> list[int]:
    """The same page by reading every pair (``LIKE``: the texts here hold no NUL)."""
    like = f"%{text}%"
    conn = sqlite3.connect(f"{project.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return [
            r[0]
            for r in conn.execute(
                "SELECT id FROM pairs WHERE instruction LIKE ? OR response_a LIKE ?"
                " OR response_b LIKE ? OR external_id = ? ORDER BY id LIMIT ?",
                [like, like, like, text, most],
            )
        ]
    finally:
        conn.close()


def _searches(project: Path, texts: list[str]) -> dict[str, float]:
    """Each text's first page, timed, checked against the scan's."""
    out = {}
    for text in texts:
        ms, ids = _search_ms(project, text)
        if ids != _scan_ids(project, text):
            raise BenchError(f"search {text!r}: {ids[:5]}... is not the scan's")
        out[text] = round(ms, 2)
    return out


def measure(bench: Bench) -> dict[str, Any]:
    args, n, repeat, sqlite_utils, work = bench
    if args.quick:
        n = QUICK_PAIRS
    py = sys.executable
    data, ref_db, project = work / "pairs.jsonl", work / "ref.db", work / "bench.tiebreak"
    ref_csv, our_csv = work / "ref.csv", work / "export.csv"
    log(f"generating {n:,} pairs in {data}")
    start = time.perf_counter()
    size = generate(data, n)
    log(f"  {size / 1e6:.1f} MB in {time.perf_counter() - start:.1f} s")
    texts = [_COMMON, _ABSENT, f"bench-{n:06d}"]  # the last pair's external id
    inserts, indexes, imports, after, during = [], [], [], [], []
    for i in range(repeat):
        log(f"import, run {i + 1}/{repeat}")
        remove_db(ref_db)
        inserts.append(
            run(
                [str(sqlite_utils), "insert", str(ref_db), "pairs", str(data), "--nl"],
                label="sqlite-utils insert --nl",
            )
        )
        indexes.append(run(_index_script(ref_db), label="  + the same FTS5 index"))
        remove_db(project)
        run([py, "-m", "desktop", "new", str(project)], label="tiebreak new")
        imports.append(
            run([py, "-m", "desktop", "import", str(project), str(data)], label="tiebreak import")
        )
        with open_project(project, readonly=True) as store:
            behind = first_unindexed(store.conn) is not None
        if behind and i == 0:  # the search while the index is built: every match found
            during.append(_searches(project, texts))
        after.append(_wait_indexed(project, limit_s=3600))
        log(f"  the search index built {after[-1]:.1f} s after the import returned")
    imported = count_pairs(project)
    if imported != n:
        raise BenchError(f"tiebreak import made {imported} pairs, expected {n}")
    indexed = _searches(project, texts)

    log("adding judge results and human verdicts (untimed)")
    added = add_verdicts(project, n)
    ref_exports, our_exports = [], []
    for i in range(repeat):
        log(f"export, run {i + 1}/{repeat}")
        ref_exports.append(
            run(
                [str(sqlite_utils), "rows", str(project), "pairs", "--csv"],
                stdout=ref_csv,
                label="sqlite-utils rows --csv",
            )
        )
        our_exports.append(
            run(
                [py, "-m", "desktop", "export", str(project), str(our_csv), "--rubric", RUBRIC],
                label="tiebreak export",
            )
        )
    check_export(our_csv, n)
    if count_csv_rows(ref_csv) != n:
        raise BenchError(f"sqlite-utils rows wrote {count_csv_rows(ref_csv)} rows, expected {n}")

    insert, index, ours = best(inserts), best(indexes), best(imports)
    reference_s = insert.seconds + index.seconds
    reference_cpu = insert.cpu + index.cpu
    ref_exp, our_exp = best(ref_exports), best(our_exports)
    import_ratio = ours.seconds / reference_s
    export_ratio = our_exp.seconds / ref_exp.seconds
    return {
        "pairs": n,
        "repeat": repeat,
        "jsonl_mb": round(size / 1e6, 1),
        "import": {
            "tiebreak_s": round(ours.seconds, 3),
            "tiebreak_cpu_s": round(ours.cpu, 3),
            "sqlite_utils_insert_s": round(insert.seconds, 3),
            "index_s": round(index.seconds, 3),
            "reference_s": round(reference_s, 3),
            "reference_cpu_s": round(reference_cpu, 3),
            "ratio": round(import_ratio, 3),
            "cpu_ratio": round(ours.cpu / reference_cpu, 3),
            "target_ratio": IMPORT_TARGET,
            "index_after_s": round(min(after), 3),
            "ratio_to_indexed": round((ours.seconds + min(after)) / reference_s, 3),
            "tiebreak_peak_rss_mb": round(ours.peak_rss_mb, 1),
            "project_mb": round(project.stat().st_size / 1e6, 1),
        },
        "search_ms": {
            "indexed": indexed,
            "while_indexing": during[0] if during else None,
        },
        "export": {
            "tiebreak_s": round(our_exp.seconds, 3),
            "tiebreak_cpu_s": round(our_exp.cpu, 3),
            "sqlite_utils_rows_csv_s": round(ref_exp.seconds, 3),
            "sqlite_utils_cpu_s": round(ref_exp.cpu, 3),
            "ratio": round(export_ratio, 3),
            "cpu_ratio": round(our_exp.cpu / ref_exp.cpu, 3),
            "target_ratio": EXPORT_TARGET,
            "tiebreak_peak_rss_mb": round(our_exp.peak_rss_mb, 1),
            **added,
        },
        "meets_targets": {
            "import_time": import_ratio <= IMPORT_TARGET,
            "export_time": export_ratio <= EXPORT_TARGET,
        },
        "quick": args.quick,
    }


def main(argv: list[str] | None = None) -> int:
    return bench_main(argv, __doc__ or "", measure, prefix="tiebreak-bench-million-")


if __name__ == "__main__":
    raise SystemExit(main())
