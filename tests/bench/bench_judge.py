"""Benchmark: Tiebreak's judge engine against a bare openai loop, on the same server.

The test server (``tests/openai_server.py``) runs in its own process and answers every
request after 100 ms with a one-token answer. Against it, at each concurrency (32 and
128), two things are measured in the same run:

* **bare** — a loop of ``AsyncOpenAI().chat.completions.create`` calls, a semaphore and
  ``asyncio.gather``, nothing else. It sends the very bodies the judge sends (rendered
  before the clock starts), so both move the same bytes.
* **judge** — Tiebreak's ``JudgeJob`` judging every pair of a fresh project with the
  one-token ``href-overall`` rubric: planning, rendering, calling, parsing, logprob
  confidence, and committing every result as it arrives.

Targets: judge throughput at least 0.95x the bare loop's at concurrency 32 and 0.6x at 128.

Each case runs in a child process of its own, so its CPU time (``process_time`` over the
timed part; the server's CPU is not counted) and peak RSS (``VmHWM``, which exec resets) are
its alone. Both sides' CPU per pair is printed (the best run's and the median), with their
ratio (``cpu_ratio``, judge over bare): on a shared machine it moves less than throughput.
Prints one JSON object on stdout, progress on stderr. Exits non-zero only when something
fails (a request errors, a result is missing), never because a target is missed.

    .venv/bin/python tests/bench/bench_judge.py              # 2,000 pairs
    .venv/bin/python tests/bench/bench_judge.py --quick      # 200 pairs, for CI
    .venv/bin/python tests/bench/bench_judge.py --repeat 3   # best of 3 per case
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

RUBRIC = "href-overall"  # answers a single verdict: A, B or tie
MODEL = "test-model"
DELAY_MS = 100
CONCURRENCIES = (32, 128)
TARGETS = {32: 0.95, 128: 0.6}
SEED = 20240612


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


# ---------------------------------------------------------------- setup (untimed)


def make_project(path: Path, n: int) -> None:
    """A project of ``n`` generated pairs of about 2 KB each, with a human reference."""
    from desktop.adapters.store import open_project
    from desktop.adapters.store.pairs import insert_rows
    from desktop.domain.pairs import PairContent
    from tests.bench.bench_import_export import _sentence_pool, _text
    from tests.helpers import pair_row

    rng = random.Random(SEED)
    pool = _sentence_pool(rng)
    rows = [
        pair_row(
            PairContent(
                external_id=f"bench-{i:06d}",
                instruction=_text(rng, pool, rng.randint(150, 300)),
                response_a=_text(rng, pool, rng.randint(500, 800)),
                response_b=_text(rng, pool, rng.randint(500, 800)),
                reference=_text(rng, pool, rng.randint(200, 400)),
            )
        )
        for i in range(1, n + 1)
    ]
    with open_project(path, create=True) as store, store.transaction():
        insert_rows(store.conn, rows)


def copy_project(src: Path, dst: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{dst}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(src, dst)


def bench_profile(base_url: str, concurrency: int) -> Any:
    from desktop.domain.profiles import ModelProfile

    return ModelProfile(
        name="bench",
        model=MODEL,
        base_url=base_url,
        needs_key=False,
        concurrency=concurrency,
        timeout=60.0,
    )


def start_server() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [
            sys.executable,
            str(REPO / "tests" / "openai_server.py"),
            "--port",
            "0",
            "--delay-ms",
            str(DELAY_MS),
            "--answer",
            "A",
            "--model",
            MODEL,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise RuntimeError(f"test server did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


# ---------------------------------------------------------------- the cases (child processes)


def peak_rss_mb() -> float:
    """This program's own peak RSS: VmHWM belongs to the address space, which exec
    replaces, so unlike ru_maxrss it does not carry the parent's peak over."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss / (1024 * 1024 if sys.platform == "darwin" else 1024)


def case_bare(project: Path, base_url: str, concurrency: int) -> dict[str, Any]:
    import openai

    from desktop.adapters.store import open_project
    from desktop.domain.results import Order
    from desktop.services.judging import JudgeJob
    from desktop.services.project_rubrics import find_rubric

    with open_project(project, readonly=True) as store:
        rubric = find_rubric(store, RUBRIC)
        job = JudgeJob(store, rubric, bench_profile(base_url, concurrency), base_url="", api_key="")
        ids = [r[0] for r in store.conn.execute("SELECT id FROM pairs ORDER BY id")]
        bodies = [job.request_for(pid, Order.AB).body() for pid in ids]

    async def main() -> list[str]:
        client = openai.AsyncOpenAI(base_url=base_url, api_key="no-key", max_retries=0)
        semaphore = asyncio.Semaphore(concurrency)

        async def one(body: dict[str, Any]) -> str:
            async with semaphore:
                response = await client.chat.completions.create(**body)
                return response.choices[0].message.content or ""

        try:
            return await asyncio.gather(*(one(b) for b in bodies))
        finally:
            await client.close()

    cpu0, t0 = time.process_time(), time.perf_counter()
    answers = asyncio.run(main())
    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    if len(answers) != len(bodies) or any(a != "A" for a in answers):
        raise RuntimeError("the bare loop got unexpected answers")
    return {"pairs": len(bodies), "seconds": seconds, "cpu_s": cpu, "peak_rss_mb": peak_rss_mb()}


def case_judge(project: Path, base_url: str, concurrency: int) -> dict[str, Any]:
    from desktop.adapters.store import open_project
    from desktop.services.judging import JudgeJob
    from desktop.services.project_rubrics import find_rubric

    with open_project(project) as store:
        n = store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0]
        rubric = find_rubric(store, RUBRIC)
        job = JudgeJob(
            store, rubric, bench_profile(base_url, concurrency), base_url=base_url, api_key=None
        )
        cpu0, t0 = time.process_time(), time.perf_counter()
        summary = job.run()
        seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        stored = dict(
            store.conn.execute("SELECT status, count(*) FROM judge_results GROUP BY status")
        )
    p = summary.progress
    if summary.stopped or p.done != n or p.ok != n or stored != {"ok": n}:
        raise RuntimeError(
            f"judge run incomplete: stopped={summary.stopped!r} done={p.done} ok={p.ok}"
            f" stored={stored} errors={list(summary.errors)}"
        )
    return {"pairs": n, "seconds": seconds, "cpu_s": cpu, "peak_rss_mb": peak_rss_mb()}


CASES = {"bare": case_bare, "judge": case_judge}


def run_case(case: str, project: Path, base_url: str, concurrency: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--case", case, "--project", str(project),
           "--base-url", base_url, "--concurrency", str(concurrency)]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO)
    if proc.returncode != 0:
        raise RuntimeError(
            f"{case} at {concurrency}: exit {proc.returncode}\n{proc.stderr[-3000:]}"
        )
    out = json.loads(proc.stdout)
    rate, cpu_ms = out["pairs"] / out["seconds"], out["cpu_s"] / out["pairs"] * 1000
    log(
        f"  {case:<5} c={concurrency:<3} {rate:7.1f} pairs/s, {cpu_ms:.2f} ms CPU a pair,"
        f" peak RSS {out['peak_rss_mb']:.0f} MB"
    )
    return out


# ---------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--pairs", type=int, default=2000)
    parser.add_argument("--quick", action="store_true", help="200 pairs, for CI")
    parser.add_argument("--repeat", type=int, default=1, help="runs per case; the best counts")
    parser.add_argument("--case", choices=sorted(CASES), help=argparse.SUPPRESS)
    parser.add_argument("--project", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    parser.add_argument("--concurrency", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.case:  # one measurement, in a child process of its own
        result = CASES[args.case](args.project, args.base_url, args.concurrency)
        sys.stdout.write(json.dumps(result) + "\n")
        return 0

    n = 200 if args.quick else args.pairs
    repeat = max(1, args.repeat)
    work = Path(tempfile.mkdtemp(prefix="tiebreak-bench-judge-"))
    server: subprocess.Popen[str] | None = None
    try:
        template = work / "template.tiebreak"
        log(f"generating a project of {n:,} pairs")
        make_project(template, n)
        server, base_url = start_server()
        log(f"test server at {base_url}, {DELAY_MS} ms a request, in process {server.pid}")
        # Warm the server and the OS (sockets, page cache) once, untimed.
        run_case("bare", template, base_url, CONCURRENCIES[0])

        figures: dict[str, Any] = {}
        for concurrency in CONCURRENCIES:
            runs: dict[str, list[dict[str, Any]]] = {"bare": [], "judge": []}
            for i in range(repeat):
                log(f"concurrency {concurrency}, run {i + 1}/{repeat}")
                runs["bare"].append(run_case("bare", template, base_url, concurrency))
                project = work / "judge.tiebreak"
                copy_project(template, project)  # a fresh project each time
                runs["judge"].append(run_case("judge", project, base_url, concurrency))
            entry: dict[str, Any] = {}
            for case, results in runs.items():
                fastest = min(results, key=lambda r: r["seconds"])
                cpu_ms = [r["cpu_s"] / n * 1000 for r in results]
                entry[case] = {
                    "seconds": round(fastest["seconds"], 3),
                    "pairs_per_s": round(n / fastest["seconds"], 1),
                    "cpu_ms_per_pair": round(min(cpu_ms), 3),
                    "cpu_ms_per_pair_median": round(statistics.median(cpu_ms), 3),
                    "peak_rss_mb": round(max(r["peak_rss_mb"] for r in results), 1),
                }
            ratio = entry["judge"]["pairs_per_s"] / entry["bare"]["pairs_per_s"]
            entry["ratio"] = round(ratio, 3)
            # The judge's CPU per pair over the bare loop's (the best runs'): what the
            # engine adds to each request, which a busy machine moves less than the clock.
            entry["cpu_ratio"] = round(
                entry["judge"]["cpu_ms_per_pair"] / entry["bare"]["cpu_ms_per_pair"], 3
            )
            entry["target_ratio"] = TARGETS[concurrency]
            entry["meets_target"] = ratio >= TARGETS[concurrency]
            entry["ideal_pairs_per_s"] = round(concurrency / (DELAY_MS / 1000), 1)
            figures[f"concurrency_{concurrency}"] = entry
        result = {
            "pairs": n,
            "repeat": repeat,
            "server_delay_ms": DELAY_MS,
            "rubric": RUBRIC,
            "bare_call": "AsyncOpenAI().chat.completions.create(**body)",
            "cpus": os.cpu_count(),
            **figures,
            "meets_targets": all(f["meets_target"] for f in figures.values()),
        }
    except RuntimeError as exc:
        log(f"bench failed: {exc}")
        return 1
    finally:
        if server is not None:
            server.terminate()
            try:
                server.wait(5)
            except subprocess.TimeoutExpired:
                server.kill()
        shutil.rmtree(work, ignore_errors=True)
    sys.stdout.write(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
