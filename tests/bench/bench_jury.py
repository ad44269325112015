"""Benchmark: a jury's judge job, and the report, on the same project and servers.

Two test servers (``tests/openai_server.py``, each in its own process) answer every
request after 50 ms. Measured in one run, on copies of one project:

* **one profile**: ``JudgeJob`` with one profile at concurrency 8;
* **two, one after the other**: two one-profile jobs, run in turn (the reference);
* **two in one job**: ``panel`` with both profiles (``judge --profile a --profile b``):
  each profile's lane at its own concurrency, so it should take about as long as one
  profile alone, not as long as two in turn;
* **samples**: one profile asked three times (``--samples 3``): one lane, three times the
  requests at the profile's concurrency, so about three times one profile;
* **report**: ``tiebreak report`` on the project the jury judged (three judge sections,
  half of the pairs reviewed).

Prints one JSON object on stdout, progress on stderr; exits non-zero only when something
fails, never on a time.

    PYTHONPATH=$PWD .venv/bin/python tests/bench/bench_jury.py            # 400 pairs
    PYTHONPATH=$PWD .venv/bin/python tests/bench/bench_jury.py --quick    # 80 pairs
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))  # before site-packages: ppi-python installs a "tests" package

from tests.bench.bench_judge import copy_project, make_project  # noqa: E402

DELAY_MS = 50
CONCURRENCY = 8


def start_server(model: str):
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "openai_server.py"), "--port", "0",
         "--delay-ms", str(DELAY_MS), "--answer", "A", "--model", model],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        proc.kill()
        raise RuntimeError(f"test server did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


def profile(name: str, model: str, url: str):
    from desktop.domain.profiles import ModelProfile

    return ModelProfile(
        name=name, model=model, base_url=url, needs_key=False, concurrency=CONCURRENCY
    )


def judged(path: Path, profiles, samples: int = 1) -> tuple[float, int]:
    """Seconds to judge every pair of ``path`` with ``profiles`` in one job; answers."""
    from desktop.adapters.store import open_project
    from desktop.services.judging import JobOptions
    from desktop.services.judging.panel import PanelRequest, panel

    with open_project(path) as store:
        job = panel(store, "href-overall", PanelRequest(tuple(profiles), samples), JobOptions())
        started = time.perf_counter()
        summary = job.run()
        took = time.perf_counter() - started
    if summary.progress.errors or summary.stopped:
        raise RuntimeError(f"judging failed: {summary.errors} {summary.stopped}")
    return took, summary.progress.ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="80 pairs, for CI")
    args = parser.parse_args()
    n = 80 if args.quick else 400
    os.environ.setdefault("TIEBREAK_CONFIG_DIR", tempfile.mkdtemp(prefix="bench-jury-"))
    folder = Path(tempfile.mkdtemp(prefix="bench-jury-"))
    servers = [start_server("judge-a"), start_server("judge-b")]
    try:
        base = folder / "base.tiebreak"
        make_project(base, n)
        a = profile("a", "judge-a", servers[0][1])
        b = profile("b", "judge-b", servers[1][1])
        work = folder / "work.tiebreak"
        results: dict[str, object] = {"pairs": n, "delay_ms": DELAY_MS, "concurrency": CONCURRENCY}

        copy_project(base, work)
        one, _ = judged(work, [a])
        copy_project(base, work)
        in_turn = judged(work, [a])[0] + judged(work, [b])[0]
        copy_project(base, work)
        jury, answers = judged(work, [a, b])
        copy_project(base, work)
        samples, sampled = judged(work, [a], samples=3)
        results.update(
            one_profile_s=round(one, 3),
            two_in_turn_s=round(in_turn, 3),
            two_in_one_job_s=round(jury, 3),
            two_in_one_job_answers=answers,
            jury_over_one_profile=round(jury / one, 2),
            jury_over_two_in_turn=round(jury / in_turn, 2),
            three_samples_s=round(samples, 3),
            three_samples_answers=sampled,
            samples_over_one_profile=round(samples / one, 2),
        )

        copy_project(base, work)
        judged(work, [a, b])
        from desktop.adapters.store import open_project
        from desktop.services.jury_setup import add_jury
        from desktop.services.overrides import override

        with open_project(work) as store:
            add_jury(store, "href-overall", "both", ["judge-a", "judge-b"])
            from desktop.adapters.store.pairs import get_pair
            from desktop.domain.verdicts import Verdict

            for pid in range(1, n + 1, 2):
                pair = get_pair(store, pid)
                assert pair is not None
                override(
                    store, pair, rubric="href-overall", dimension="overall",
                    verdict=Verdict.A if pid % 3 else Verdict.B, reviewer="bench", note=None,
                    mode="cli",
                )  # fmt: skip
        from desktop.services.report import write_report

        with open_project(work, readonly=True) as store:
            started = time.perf_counter()
            report = write_report(store, folder / "report.html")
            took = time.perf_counter() - started
        results.update(
            report_s=round(took, 3),
            report_judge_sections=report.judges,
            report_charts=report.charts,
            report_kb=round(report.size / 1024),
        )
    finally:
        for proc, _ in servers:
            proc.terminate()
            proc.wait(5)
        shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
