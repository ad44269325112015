"""Benchmark: import 100,000 pairs from JSONL and export them with verdicts to CSV.

Targets (from the issue):

* import: at most 1.3x the wall time of ``sqlite-utils insert DB pairs FILE --nl``
  loading the same file into a bare table, measured in the same run;
* export: at most 1.5x the wall time of ``sqlite-utils rows DB pairs --csv`` on the
  same table of the same project file;
* export: within 10% of another checkout's (``--reference``, main's) on the same pairs and
  verdicts, measured in the same run;
* peak memory (RSS) of either command under 300 MB;
* importing the same records as one JSON array (streamed): peak RSS at most 1.5x the
  JSONL import's, measured in the same run.

Every figure is for a whole command in a child process (start-up included), timed with
``time.perf_counter`` around the child; its peak RSS comes from ``os.wait4``. Prints one
JSON object on stdout, progress on stderr. Exits non-zero only when something fails (a
command errors, a row count is wrong), never because a target is missed.

    .venv/bin/python tests/bench/bench_import_export.py            # 100,000 pairs
    .venv/bin/python tests/bench/bench_import_export.py --quick    # 5,000 pairs, for CI
    .venv/bin/python tests/bench/bench_import_export.py --reference ../main --repeat 3

With ``--reference``, another checkout (main's) imports the same file and exports the same
pairs and verdicts (a copy of the project without the schema steps it does not know), turn
and turn about with this one: its times and this one's ratio to them are printed too.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

from desktop.adapters.store.project import open_project  # noqa: E402
from desktop.adapters.store.results import insert_results, result_row  # noqa: E402
from desktop.adapters.store.rubrics import now, record_rubric  # noqa: E402
from desktop.domain.results import JudgeResult, Order, Status  # noqa: E402
from desktop.domain.verdicts import Verdict  # noqa: E402
from desktop.services.exporting import export_columns  # noqa: E402
from tests.peak_memory import launcher, read_report  # noqa: E402

IMPORT_TARGET = 1.3
EXPORT_TARGET = 1.5
REFERENCE_EXPORT_TARGET = 1.1  # against --reference (issue 22 item 3: within 10% of main)
JSON_ARRAY_MEMORY_TARGET = 1.5
MEMORY_TARGET_MB = 300
SEED = 20240611
RUBRIC = "precision-correctness"
JUDGE = "bench-judge-7b"
DIMENSIONS = ("precision", "correctness", "format", "overall")

# ---------------------------------------------------------------- data generation

_VOCABULARY = (
    "the model answer explains why water boils at a lower temperature on a mountain"
    " because air pressure drops with altitude so the vapour pressure needed is reached"
    " sooner function returns list dictionary index value error handling retries timeout"
    " cache invalidation consistent hashing latency throughput percentile benchmark"
    " gradient descent learning rate batch normalisation overfitting regularisation"
    " photosynthesis chlorophyll mitochondria enzyme protein membrane osmosis"
    " treaty parliament constitution referendum coalition minister tariff inflation"
    " recipe butter flour oven minutes simmer garlic onion pepper salt"
    " café naïve façade résumé über straße smörgåsbord jalapeño crème brûlée"
    " 東京 データ 模型 回答 質問 ценность ответ вопрос модель ελληνικά λόγος"
    " therefore however moreover in short for example note that first second finally"
)
_WORDS = tuple(_VOCABULARY.split())
_PUNCT = (".", ".", ".", "?", "!", ";", " —", ":")
_EXTRAS = (
    " (≈ 90 °C)",
    " — see § 3.2",
    " ✅",
    " 🙂",
    " → O(n log n)",
    " €4.75 × 12 = €57.00",
    " `x = y + 1`",
    " **important**",
    "",
    "",
    "",
    "",
)
_MODELS = (
    "gpt-4o-mini",
    "claude-3-haiku",
    "llama-3.1-8b-instruct",
    "mistral-7b-instruct",
    "qwen2.5-7b",
    "gemma-2-9b",
)
_CATEGORIES = ("facts", "math", "code", "writing", "reasoning", "summarise", "extract", "chat")


def _sentence_pool(rng: random.Random, size: int = 2000) -> list[str]:
    pool = []
    for _ in range(size):
        words = rng.choices(_WORDS, k=rng.randint(6, 18))
        words[0] = words[0].capitalize()
        pool.append(" ".join(words) + rng.choice(_EXTRAS) + rng.choice(_PUNCT))
    return pool


def _text(rng: random.Random, pool: list[str], target: int) -> str:
    parts: list[str] = []
    size = 0
    while size < target:
        s = rng.choice(pool)
        roll = rng.random()
        if roll < 0.08:
            s = "\n\n" + s
        elif roll < 0.12:
            s = "\n- " + s
        parts.append(s)
        size += len(s) + 1
    return " ".join(parts)[:target].rstrip()


def generate(path: Path, n: int, seed: int = SEED) -> int:
    """Write ``n`` pairs of about 2 KB each as JSONL; returns the file size in bytes."""
    rng = random.Random(seed)
    pool = _sentence_pool(rng)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(1, n + 1):
            a, b = rng.sample(_MODELS, 2)
            resp_a = _text(rng, pool, rng.randint(650, 900))
            if rng.random() < 0.03:  # a markdown list answer, which a spreadsheet would misread
                resp_a = "- " + resp_a
            record = {
                "id": f"bench-{i:06d}",
                "category": rng.choice(_CATEGORIES),
                "model_a": a,
                "model_b": b,
                "instruction": _text(rng, pool, rng.randint(220, 380)),
                "response_a": resp_a,
                "response_b": _text(rng, pool, rng.randint(650, 900)),
            }
            fh.write(json.dumps(record, ensure_ascii=False))
            fh.write("\n")
    return path.stat().st_size


def as_json_array(jsonl: Path, out: Path) -> int:
    """The same records as one indented JSON array, as AlpacaEval writes its results."""
    with jsonl.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        dst.write("[\n")
        for i, line in enumerate(src):
            dst.write((",\n  " if i else "  ") + line.rstrip("\n"))
        dst.write("\n]\n")
    return out.stat().st_size


# ---------------------------------------------------------------- measuring commands


@dataclass
class Run:
    seconds: float
    peak_rss_mb: float
    cpu: float = 0.0  # the command's user and system time: what others' load leaves alone


class BenchError(Exception):
    pass


def run(cmd: list[str], *, stdout: Path | None = None, label: str, cwd: Path = REPO) -> Run:
    """Run one command: its wall time and its own peak RSS (tests/peak_memory.py: a child
    forked straight from this large process would report this process's peak)."""
    fd, err_name = tempfile.mkstemp(prefix="bench-stderr-")
    os.close(fd)
    fd, report_name = tempfile.mkstemp(prefix="bench-report-")
    os.close(fd)
    err_path, report = Path(err_name), Path(report_name)
    try:
        with (
            err_path.open("wb") as err_fh,
            stdout.open("wb") if stdout else open(os.devnull, "wb") as out_fh,
        ):
            # Flush what earlier steps wrote, so no command pays for another's writeback.
            if hasattr(os, "sync"):
                os.sync()
            code = subprocess.call([*launcher(report), *cmd], stdout=out_fh, stderr=err_fh, cwd=cwd)
        exit_code, seconds, peak, cpu = read_report(report)
        if code != 0 or exit_code != 0:
            tail = err_path.read_text(encoding="utf-8", errors="replace")[-2000:]
            raise BenchError(f"{label}: exit {exit_code}: {' '.join(cmd)}\n{tail}")
    finally:
        err_path.unlink(missing_ok=True)
        report.unlink(missing_ok=True)
    rss = peak / 2**20
    log(f"  {label}: {seconds:.2f} s ({cpu:.2f} s CPU), peak RSS {rss:.0f} MB")
    return Run(seconds, rss, cpu)


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def remove_db(path: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def best(runs: list[Run]) -> Run:
    """The fastest time; the highest peak memory (the conservative figure); the least CPU."""
    return Run(
        min(r.seconds for r in runs), max(r.peak_rss_mb for r in runs), min(r.cpu for r in runs)
    )


# ---------------------------------------------------------------- verdicts (setup, untimed)


def add_verdicts(project: Path, n: int) -> dict[str, int]:
    rng = random.Random(SEED + 1)
    text = json.dumps({"name": RUBRIC, "dimensions": list(DIMENSIONS), "bench": True})
    rubric_hash = hashlib.sha256(text.encode()).hexdigest()
    choices = (Verdict.A, Verdict.B, Verdict.TIE)
    counts = {"judge_results": 0, "human_verdicts": 0}
    with open_project(project) as store, store.transaction():
        record_rubric(
            store,
            hash=rubric_hash,
            name=RUBRIC,
            title="Precision, correctness and format",
            dimensions=DIMENSIONS,
            kind="rubric",
            text=text,
        )
        ids = [r[0] for r in store.conn.execute("SELECT id FROM pairs ORDER BY id")]
        if len(ids) != n:
            raise BenchError(f"the project has {len(ids)} pairs, expected {n}")
        for start in range(0, len(ids), 5000):
            rows = []
            for pid in ids[start : start + 5000]:
                orders = (Order.AB, Order.BA) if pid % 2 == 0 else (Order.AB,)
                for order in orders:
                    verdicts = {d: rng.choice(choices) for d in DIMENSIONS}
                    rows.append(
                        result_row(
                            JudgeResult(
                                pair_id=pid,
                                rubric_hash=rubric_hash,
                                rubric_name=RUBRIC,
                                judge_model=JUDGE,
                                settings_hash="bench",
                                order=order,
                                status=Status.OK if rng.random() > 0.01 else Status.PARSE_FAILURE,
                                verdicts=verdicts,
                                confidence={d: round(rng.random(), 3) for d in DIMENSIONS},
                                raw_completion=", ".join(v.value for v in verdicts.values()),
                                latency_ms=rng.uniform(200, 3000),
                                prompt_tokens=rng.randint(500, 900),
                                completion_tokens=rng.randint(4, 40),
                            )
                        )
                    )
            insert_results(store.conn, rows)
            counts["judge_results"] += len(rows)
        stamp = now()
        human = []
        for pid in rng.sample(ids, max(1, n // 10)):
            for dim in rng.sample(("overall", "correctness"), rng.randint(1, 2)):
                human.append(
                    (pid, RUBRIC, dim, rng.choice(choices).value, "reviewer-1", None, None, stamp)
                )
        store.conn.executemany(
            "INSERT INTO human_verdicts"
            "(pair_id, rubric_name, dimension, verdict, reviewer, note, mode, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            human,
        )
        counts["human_verdicts"] = len(human)
    return counts


# ---------------------------------------------------------------- a reference checkout


def reference_python(reference: Path) -> str:
    """The reference checkout's own interpreter where it has a .venv, else this one (the
    dependencies are the same); it runs the checkout's package (``-m desktop`` from it)."""
    own = reference / ".venv" / "bin" / "python"
    return str(own) if own.exists() else sys.executable


def as_reference_project(project: Path, out: Path, reference: Path, *, vacuum: bool = True) -> None:
    """A copy of ``project`` the reference checkout can open: the same pairs and verdicts,
    without the schema steps it does not know (the search index, m005, the reviewers'
    marks, m009, the pairs that hold a NUL, m010, and the trajectories' counts and their
    index, m012, for a checkout from before them)."""
    import sqlite3

    remove_db(out)
    with sqlite3.connect(project) as source, sqlite3.connect(out) as copy:
        source.backup(copy)
    schema = (reference / "desktop" / "adapters" / "store" / "schema.py").read_text()
    if "m012_trajectory_steps" not in schema:
        with sqlite3.connect(out) as conn:
            for trigger in ("pair_steps_insert", "pair_steps_delete", "pairs_steps_delete"):
                conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
            for trigger in ("pairs_steps_update_old", "pairs_steps_update_new"):
                conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
            conn.execute("DROP TABLE IF EXISTS steps_search")
            conn.execute("DROP VIEW IF EXISTS pair_steps_text")
            conn.execute("DROP TABLE IF EXISTS pair_steps")
            conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm012_trajectory_steps'")
    if "m010_pairs_with_nul" not in schema:
        with sqlite3.connect(out) as conn:
            for trigger in ("insert", "delete", "update"):
                conn.execute(f"DROP TRIGGER IF EXISTS pairs_with_nul_{trigger}")
            conn.execute("DROP TABLE IF EXISTS pairs_with_nul")
            conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm010_pairs_with_nul'")
    if "m009_review_marks" not in schema:
        with sqlite3.connect(out) as conn:
            conn.execute("ALTER TABLE human_verdicts DROP COLUMN mark")
            conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm009_review_marks'")
    if "m005_search_index" not in schema:
        with sqlite3.connect(out) as conn:
            for trigger in ("insert", "delete", "update"):
                conn.execute(f"DROP TRIGGER IF EXISTS pairs_search_{trigger}")
            conn.execute("DROP TABLE IF EXISTS pairs_search")
            conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm005_search_index'")
        if vacuum:  # the file as the reference would have written it (minutes at 1M pairs)
            with sqlite3.connect(out) as conn:
                conn.execute("VACUUM")


# ---------------------------------------------------------------- checks


def count_pairs(project: Path) -> int:
    with open_project(project, readonly=True) as store:
        return store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0]


def check_export(path: Path, n: int) -> None:
    expected = list(export_columns(DIMENSIONS))
    rows = judged = humans = 0
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if header != expected:
            raise BenchError(f"{path}: header {header} is not {expected}")
        model, human = header.index("overall_model"), header.index("overall_human")
        for row in reader:
            if len(row) != len(header):
                raise BenchError(f"{path} row {rows + 1}: {len(row)} cells, not {len(header)}")
            rows += 1
            judged += bool(row[model])
            humans += bool(row[human])
    if rows != n:
        raise BenchError(f"{path}: {rows} data rows, expected {n}")
    if judged < n * 0.95 or humans == 0:
        raise BenchError(f"{path}: only {judged} judged rows and {humans} human verdicts")


def count_csv_rows(path: Path) -> int:
    with path.open(encoding="utf-8", newline="") as fh:
        return sum(1 for _ in csv.reader(fh)) - 1


# ---------------------------------------------------------------- main


def sqlite_utils_cli() -> Path | None:
    """The reference command: beside this Python, else on the PATH."""
    beside = Path(sys.executable).parent / "sqlite-utils"
    if beside.exists():
        return beside
    found = shutil.which("sqlite-utils")
    return Path(found) if found else None


class Bench(NamedTuple):
    """What a command-line benchmark measures with: its options, how many pairs and runs,
    the reference command, a working folder."""

    args: argparse.Namespace
    pairs: int
    repeat: int
    sqlite_utils: Path
    work: Path


def bench_main(
    argv: list[str] | None,
    doc: str,
    measure: Callable[[Bench], dict[str, Any]],
    *,
    prefix: str,
    repeat: int = 1,
    options: Callable[[argparse.ArgumentParser], None] = lambda parser: None,
) -> int:
    """The command line of a benchmark of whole commands: ``--pairs``, ``--quick`` (5,000),
    ``--out``, ``--repeat``; the figures ``measure`` returns printed as JSON on stdout;
    exit 1 when a command fails or a count is wrong (never because a target is missed),
    2 without the sqlite-utils command."""
    parser = argparse.ArgumentParser(description=doc.split("\n", 1)[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help="5,000 pairs, for CI")
    parser.add_argument("--out", type=Path, help="working folder (default: a temporary one)")
    parser.add_argument(
        "--repeat", type=int, default=repeat, help="runs per command; the min counts"
    )
    options(parser)
    args = parser.parse_args(argv)
    sqlite_utils = sqlite_utils_cli()
    if sqlite_utils is None:
        log("sqlite-utils CLI not found")
        return 2
    work = args.out or Path(tempfile.mkdtemp(prefix=prefix))
    work.mkdir(parents=True, exist_ok=True)
    pairs = 5000 if args.quick else args.pairs
    try:
        result = measure(Bench(args, pairs, max(1, args.repeat), sqlite_utils, work))
    except BenchError as exc:
        log(f"failed: {exc}")
        return 1
    finally:
        if args.out is None:
            shutil.rmtree(work, ignore_errors=True)
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    return 0


def _reference_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--reference",
        type=Path,
        help="another checkout (e.g. main's) whose import and export run on the same data,"
        " turn about with this one's",
    )


def measure(bench: Bench) -> dict[str, Any]:
    args, n, repeat, sqlite_utils, work = bench
    py = sys.executable
    data, ref_db, project = work / "pairs.jsonl", work / "ref.db", work / "bench.tiebreak"
    array, array_project = work / "pairs.json", work / "array.tiebreak"
    ref_csv, our_csv = work / "ref.csv", work / "export.csv"
    log(f"generating {n:,} pairs in {data}")
    start = time.perf_counter()
    size = generate(data, n)
    took = time.perf_counter() - start
    log(f"  {size / 1e6:.1f} MB ({size / n:.0f} bytes a pair) in {took:.1f} s")
    array_size = as_json_array(data, array)

    startup = best([run([py, "-c", "pass"], label="python -c pass") for _ in range(3)])
    su_startup = best(
        [run([str(sqlite_utils), "--version"], label="sqlite-utils --version") for _ in range(3)]
    )

    ref_imports, new_runs, our_imports, array_imports = [], [], [], []
    ref_our_imports: list[Run] = []
    ref_project = work / "reference.tiebreak"
    ref_py = reference_python(args.reference) if args.reference else py
    on_ref = {"cwd": args.reference} if args.reference else {}
    for i in range(repeat):
        log(f"import, run {i + 1}/{repeat}")
        remove_db(ref_db)
        ref_imports.append(
            run(
                [str(sqlite_utils), "insert", str(ref_db), "pairs", str(data), "--nl"],
                label="sqlite-utils insert --nl",
            )
        )
        remove_db(project)
        new_runs.append(run([py, "-m", "desktop", "new", str(project)], label="tiebreak new"))
        our_imports.append(
            run(
                [py, "-m", "desktop", "import", str(project), str(data)],
                label="tiebreak import",
            )
        )
        if args.reference:
            remove_db(ref_project)
            run([ref_py, "-m", "desktop", "new", str(ref_project)], **on_ref, label="ref new")
            ref_our_imports.append(
                run(
                    [ref_py, "-m", "desktop", "import", str(ref_project), str(data)],
                    **on_ref,
                    label="reference tiebreak import",
                )
            )
        remove_db(array_project)
        run([py, "-m", "desktop", "new", str(array_project)], label="tiebreak new")
        array_imports.append(
            run(
                [py, "-m", "desktop", "import", str(array_project), str(array)],
                label="tiebreak import (JSON array)",
            )
        )
    if count_pairs(array_project) != n:
        raise BenchError(f"the JSON array import made {count_pairs(array_project)} pairs")
    remove_db(array_project)
    project_mb = project.stat().st_size / 1e6
    imported = count_pairs(project)
    if imported != n:
        raise BenchError(f"tiebreak import made {imported} pairs, expected {n}")

    log("adding judge results and human verdicts (untimed)")
    start = time.perf_counter()
    added = add_verdicts(project, n)
    log(f"  {added} in {time.perf_counter() - start:.1f} s")

    if args.reference:
        as_reference_project(project, ref_project, args.reference)
    ref_exports, our_exports, ref_our_exports = [], [], []
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
                [
                    py,
                    "-m",
                    "desktop",
                    "export",
                    str(project),
                    str(our_csv),
                    "--rubric",
                    RUBRIC,
                ],
                label="tiebreak export",
            )
        )
        if args.reference:
            ref_our_exports.append(
                run(
                    [
                        ref_py,
                        "-m",
                        "desktop",
                        "export",
                        str(ref_project),
                        str(work / "r.csv"),
                        "--rubric",
                        RUBRIC,
                    ],
                    **on_ref,
                    label="reference tiebreak export",
                )
            )
    check_export(our_csv, n)
    ref_rows = count_csv_rows(ref_csv)
    if ref_rows != n:
        raise BenchError(f"sqlite-utils rows wrote {ref_rows} rows, expected {n}")

    ref_imp, new, our_imp = best(ref_imports), best(new_runs), best(our_imports)
    arr_imp = best(array_imports)
    array_memory_ratio = arr_imp.peak_rss_mb / our_imp.peak_rss_mb
    ref_exp, our_exp = best(ref_exports), best(our_exports)
    import_ratio = our_imp.seconds / ref_imp.seconds
    export_ratio = our_exp.seconds / ref_exp.seconds
    return {
        "pairs": n,
        "repeat": repeat,
        "jsonl_mb": round(size / 1e6, 1),
        "import": {
            "tiebreak_s": round(our_imp.seconds, 3),
            "sqlite_utils_insert_s": round(ref_imp.seconds, 3),
            "ratio": round(import_ratio, 3),
            "target_ratio": IMPORT_TARGET,
            "tiebreak_new_s": round(new.seconds, 3),
            "ratio_including_new": round((our_imp.seconds + new.seconds) / ref_imp.seconds, 3),
            "tiebreak_peak_rss_mb": round(our_imp.peak_rss_mb, 1),
            "reference_peak_rss_mb": round(ref_imp.peak_rss_mb, 1),
            "project_mb": round(project_mb, 1),
            "reference_db_mb": round(ref_db.stat().st_size / 1e6, 1),
        },
        "import_json_array": {
            "json_mb": round(array_size / 1e6, 1),
            "tiebreak_s": round(arr_imp.seconds, 3),
            "jsonl_tiebreak_s": round(our_imp.seconds, 3),
            "time_ratio": round(arr_imp.seconds / our_imp.seconds, 3),
            "tiebreak_peak_rss_mb": round(arr_imp.peak_rss_mb, 1),
            "jsonl_peak_rss_mb": round(our_imp.peak_rss_mb, 1),
            "memory_ratio": round(array_memory_ratio, 3),
            "target_memory_ratio": JSON_ARRAY_MEMORY_TARGET,
        },
        "export": {
            "tiebreak_s": round(our_exp.seconds, 3),
            "sqlite_utils_rows_csv_s": round(ref_exp.seconds, 3),
            "ratio": round(export_ratio, 3),
            "target_ratio": EXPORT_TARGET,
            "tiebreak_peak_rss_mb": round(our_exp.peak_rss_mb, 1),
            "reference_peak_rss_mb": round(ref_exp.peak_rss_mb, 1),
            "judge_results": added["judge_results"],
            "human_verdicts": added["human_verdicts"],
            "csv_mb": round(our_csv.stat().st_size / 1e6, 1),
        },
        "memory_target_mb": MEMORY_TARGET_MB,
        **(
            {
                "reference": {
                    "checkout": str(args.reference),
                    "import_s": round(best(ref_our_imports).seconds, 3),
                    "import_ratio": round(our_imp.seconds / best(ref_our_imports).seconds, 3),
                    "export_s": round(best(ref_our_exports).seconds, 3),
                    "export_ratio": round(our_exp.seconds / best(ref_our_exports).seconds, 3),
                    "export_cpu_s": round(best(ref_our_exports).cpu, 3),
                    "export_cpu_ratio": round(our_exp.cpu / best(ref_our_exports).cpu, 3),
                    "import_cpu_s": round(best(ref_our_imports).cpu, 3),
                    "import_cpu_ratio": round(our_imp.cpu / best(ref_our_imports).cpu, 3),
                    "export_target_ratio": REFERENCE_EXPORT_TARGET,
                    "export_peak_rss_mb": round(best(ref_our_exports).peak_rss_mb, 1),
                }
            }
            if args.reference
            else {}
        ),
        "meets_targets": {
            "import_time": import_ratio <= IMPORT_TARGET,
            "export_time": export_ratio <= EXPORT_TARGET,
            "import_memory": our_imp.peak_rss_mb < MEMORY_TARGET_MB,
            "json_array_memory": array_memory_ratio <= JSON_ARRAY_MEMORY_TARGET,
            "export_memory": our_exp.peak_rss_mb < MEMORY_TARGET_MB,
        },
        "python_startup_s": round(startup.seconds, 3),
        "sqlite_utils_startup_s": round(su_startup.seconds, 3),
        "tiebreak_new_s": round(new.seconds, 3),
    }


def main(argv: list[str] | None = None) -> int:
    return bench_main(
        argv, __doc__ or "", measure, prefix="tiebreak-bench-", options=_reference_option
    )


if __name__ == "__main__":
    raise SystemExit(main())
