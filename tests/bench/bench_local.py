"""Benchmark: the built-in offline judge (llama.cpp's server, SmolLM2-135M) on the demo pairs.

Two servers run side by side, each a ``LocalServer`` started as the app starts it:

* **today** — the settings before this benchmark existed, with only the crash fix (the
  model loaded without extra buffer types): the bundled Q4_1 file, half the cores for
  generation, free-text answers unconstrained.
* **new** — the app's settings now (``server_options`` in ``desktop/adapters/local_server.py``:
  logits for every prompt token only where logprobs are asked for; the model's 16-bit copy,
  ``desktop/adapters/model_file.py``) and its requests: one verdict and comma lists
  constrained by a grammar.

Every built-in rubric judges the same pairs, in both orders, through ``JudgeJob`` into a
project per server. The rubrics that read logprobs come last, so the new server is started
again with logits once, as in the app. Before each rubric, each server judges one pair
outside the figures (the last demo pair, in a project of its own), so that it holds the
rubric's shared prompt, as it does for all but the first pair of any job. Then requests
alternate between the servers pair by pair (which goes first alternates too), so load from
anything else on the machine hits both alike. Per rubric and server: pairs per minute
(pairs judged / time spent judging them, both orders), the median of the pair-by-pair
ratios (which a change of load between pairs does not skew), parse-failure rate, mean
answer length in tokens, and the server's CPU seconds.

Targets: on ``href-four``, new at least 1.3x today's pairs per minute; parse failures with
the new settings at most 1% over every rubric and order.

``--sweep`` instead measures server settings (threads, batch sizes, flash attention,
logits, the weights' type) on ``href-four``, every one against today's with grammars on,
interleaved the same way; ``server_options`` and ``model_file`` quote its figures. Prints
one JSON object on stdout, progress on stderr. Exits non-zero only when something fails (a
request errors, a server cannot start), never because a target is missed.

    .venv/bin/python tests/bench/bench_local.py            # 20 pairs x 6 rubrics x 2 orders
    .venv/bin/python tests/bench/bench_local.py --quick    # 2 pairs, 3 rubrics (CI)
    .venv/bin/python tests/bench/bench_local.py --sweep    # thread and batch settings
    .venv/bin/python tests/bench/bench_local.py --gguf     # a GGUF profile, the same file
    .venv/bin/python tests/bench/bench_local.py --models   # tiebreak models over 1,000 files
    .venv/bin/python tests/bench/bench_local.py --models --quick   # 100 files (CI)

``--gguf`` and ``--models`` are ``tests/bench/gguf_bench.py``'s (it says what they measure).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

from desktop.adapters.llama_launch import copy_folder  # noqa: E402
from desktop.adapters.local_server import LocalServer, llama_command, server_options  # noqa: E402
from desktop.adapters.model_file import COPY_TYPE, bundled_model, convert  # noqa: E402
from desktop.adapters.rubric_files import load_rubric  # noqa: E402
from desktop.adapters.store import open_project  # noqa: E402
from desktop.domain.profiles import local_profile  # noqa: E402
from desktop.domain.requests import asks_logprobs  # noqa: E402
from desktop.resources import prompts_dir, resources_dir  # noqa: E402
from desktop.services.importing import import_file  # noqa: E402
from desktop.services.judging import JobOptions, JudgeJob  # noqa: E402
from desktop.services.project_rubrics import find_rubric  # noqa: E402

N_CTX = 8192
SPEED_TARGET = 1.3  # new / today, pairs per minute on href-four
PARSE_TARGET = 0.01  # parse failures / answers, new settings, every rubric and order
SWEEP_RUBRIC = "href-four"
# --quick: one rubric per answer kind (a comma list, one verdict read with its logprob, JSON).
QUICK_RUBRICS = ("href-four", "just-eval", "href-overall")
WARM_UP_PAIR = 20  # the last demo pair: outside the figures unless all 20 are judged


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def today_options() -> dict[str, str]:
    """The server's settings before this benchmark: half the cores for generation."""
    return {
        "n_threads": str(max(1, (os.cpu_count() or 2) // 2)),
        "logits_all": "true",
        "verbose": "false",
    }


@dataclass
class Setup:
    """One server and how jobs talk to it."""

    name: str
    options: dict[str, str] | None  # None: the app's own (server_options, by logprobs)
    grammar: bool
    # Run llama-cpp-python's server as it is, the model with extra buffer types: what crashes
    # on Intel AMX, so only ever in --sweep, to measure what turning them off costs.
    extra_buffer_types: bool = False
    # The weights the server reads: "q4_1" the bundled file; "f16" its copy as the app makes
    # it (model_file); another type, a copy of that type made for --sweep only.
    weights: str = "q4_1"
    server: LocalServer = field(init=False)
    project: Path = field(init=False)
    seconds: dict[str, float] = field(default_factory=dict)  # per rubric, judging time
    cpu: dict[str, float] = field(default_factory=dict)  # per rubric, server CPU seconds
    per_pair: dict[str, list[float]] = field(default_factory=dict)  # per rubric, in order

    def start(self, folder: Path) -> None:
        command = llama_command(N_CTX, self.options, sixteen_bit=self.weights == COPY_TYPE)
        if self.weights not in ("q4_1", COPY_TYPE):
            command = with_model(command, typed_copy(self.weights, folder))
        if self.extra_buffer_types:
            command = with_model(command, None, launcher="llama_cpp.server")

        self.server = LocalServer(n_ctx=N_CTX, command=command)
        self.project = folder / f"{self.name}.tiebreak"
        self.scratch = folder / f"{self.name}-warm-up.tiebreak"
        for path in (self.project, self.scratch):
            with open_project(path, create=True) as store:
                import_file(store, resources_dir() / "demo_pairs.jsonl")

    def warm_up(self, rubric: str) -> None:
        """One pair judged outside the figures, so the server holds the rubric's shared
        prompt, as during any job of more than one pair (and has been started again with
        logprobs, where this is the first rubric that reads them)."""
        self._job(self.scratch, rubric, WARM_UP_PAIR, swap=False)

    def judge(self, rubric: str, pair_id: int, swap: bool) -> float:
        """Judge one pair; the seconds it took."""
        before = server_cpu(self.server)
        seconds = self._job(self.project, rubric, pair_id, swap)
        self.seconds[rubric] = self.seconds.get(rubric, 0.0) + seconds
        self.cpu[rubric] = self.cpu.get(rubric, 0.0) + server_cpu(self.server) - before
        self.per_pair.setdefault(rubric, []).append(seconds)
        return seconds

    def _job(self, path: Path, rubric: str, pair_id: int, swap: bool) -> float:
        base = getattr(self, "profile", None) or local_profile()
        profile = base.with_changes(capabilities={"grammar": self.grammar})
        with open_project(path) as store:
            job = JudgeJob(
                store,
                find_rubric(store, rubric),
                profile,
                base_url=self.server.base_url or "",  # the job starts the server
                api_key=None,
                options=JobOptions(swap=swap, pair_ids=[pair_id]),
                server=self.server,
            )
            summary = job.run()
        if summary.stopped or summary.progress.errors or summary.restarts:
            problem = summary.stopped or summary.errors or summary.restarts
            raise SystemExit(f"{self.name}: {problem}")
        return summary.elapsed_s

    def figures(self, rubric: str, pairs: int) -> dict[str, Any]:
        with open_project(self.project, readonly=True) as store:
            statuses = dict(
                store.conn.execute(
                    "SELECT status, count(*) FROM judge_results WHERE rubric_name = ?"
                    " GROUP BY status",
                    [rubric],
                ).fetchall()
            )
            tokens = store.conn.execute(
                "SELECT avg(completion_tokens) FROM judge_results WHERE rubric_name = ?",
                [rubric],
            ).fetchone()[0]
        answers = sum(statuses.values())
        failures = statuses.get("parse-failure", 0)
        seconds = self.seconds[rubric]
        return {
            "pairs": pairs,
            "answers": answers,
            "parse_failures": failures,
            "parse_failure_rate": round(failures / answers, 4) if answers else None,
            "seconds": round(seconds, 2),
            "pairs_per_min": round(pairs / seconds * 60, 2),
            "server_cpu_s": round(self.cpu[rubric], 2),
            "completion_tokens_mean": round(tokens or 0, 2),
        }


def with_model(command: Any, model: Path | None, launcher: str | None = None) -> Any:
    """``command`` with another model file, or run by another module."""

    def changed(port: int, logprobs: bool) -> list[str]:
        argv = command(port, logprobs)
        if model is not None:
            argv[argv.index("--model") + 1] = str(model)
        if launcher is not None:  # python -m LAUNCHER, then the server's own arguments
            argv = [*argv[:2], launcher, *copy_folder(argv[3:])[1]]
        return argv

    return changed


def typed_copy(weights: str, folder: Path) -> Path:
    """The bundled model converted to ``weights`` (q8_0, bf16, ...), for --sweep."""
    target = folder / f"model-{weights}.gguf"
    if not target.exists():
        convert(bundled_model(), target, weights)
    return target


def reads_logprobs(rubric: str) -> tuple[bool, str]:
    """Rubrics whose jobs read logprobs last: a server started without them is started
    again with them once, as in the app, not once per rubric."""
    found = load_rubric(prompts_dir() / f"{rubric}.toml")
    return asks_logprobs(local_profile(), found), rubric


def server_cpu(server: LocalServer) -> float:
    """CPU seconds the server process has used (user + system), from /proc where there."""
    try:
        fields = Path(f"/proc/{server.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(setups: list[Setup], rubrics: list[str], pair_ids: list[int], swap: bool) -> None:
    """Every rubric, pair and order on every server, interleaved pair by pair."""
    turn = 0
    for rubric in rubrics:
        for setup in setups:
            setup.warm_up(rubric)
        for pair_id in pair_ids:
            order = setups if turn % 2 == 0 else setups[::-1]
            turn += 1
            for setup in order:
                setup.judge(rubric, pair_id, swap)
        log(f"{rubric}: " + ", ".join(f"{s.name} {s.seconds[rubric]:.1f} s" for s in setups))


def compare(setups: list[Setup], rubrics: list[str], pairs: int) -> dict[str, Any]:
    base = setups[0]
    out: dict[str, Any] = {}
    for rubric in rubrics:
        row = {s.name: s.figures(rubric, pairs) for s in setups}
        for s in setups[1:]:
            row[f"{s.name}_speedup"] = round(base.seconds[rubric] / s.seconds[rubric], 3)
            # Pair by pair: the two were judged one right after the other, so a change in
            # the machine's load between pairs cancels out of each ratio.
            ratios = sorted(
                b / n for b, n in zip(base.per_pair[rubric], s.per_pair[rubric], strict=True)
            )
            row[f"{s.name}_speedup_median_of_pairs"] = round(ratios[len(ratios) // 2], 3)
            row[f"{s.name}_same_verdicts"] = same_verdicts(base, s, rubric)
        out[rubric] = row
    return out


def verdicts(setup: Setup, rubric: str) -> dict[tuple[int, str, str], str]:
    """(pair, order, dimension) -> the verdict this setup's server gave."""
    with open_project(setup.project, readonly=True) as store:
        rows = store.conn.execute(
            "SELECT pair_id, ord, verdicts FROM judge_results WHERE rubric_name = ?", [rubric]
        ).fetchall()
    return {
        (pair, order, dim): verdict
        for pair, order, text in rows
        for dim, verdict in json.loads(text or "{}").items()
    }


def same_verdicts(base: Setup, other: Setup, rubric: str) -> float | None:
    """The share of dimension verdicts the two gave alike (1.0: not one differs). Meaningful
    where both constrain answers alike: grammars on in --sweep; not today against new."""
    ours, theirs = verdicts(base, rubric), verdicts(other, rubric)
    keys = ours.keys() | theirs.keys()
    if not keys:
        return None
    return round(sum(ours.get(k) == theirs.get(k) for k in keys) / len(keys), 4)


def sweep_setups(only: list[str] | None = None) -> list[Setup]:
    """Thread and batch settings, each against today's as the baseline."""
    cpus = os.cpu_count() or 2
    half = str(max(1, cpus // 2))
    variants: list[tuple[str, dict[str, str]]] = [
        ("threads_all", {"n_threads": str(cpus)}),
        ("batch_threads_half", {"n_threads_batch": half}),
        ("ubatch_128", {"n_batch": "512", "n_ubatch": "128"}),
        ("batch_2048", {"n_batch": "2048", "n_ubatch": "2048"}),
        ("flash_attn", {"flash_attn": "true"}),
        ("flash_attn_batch_threads_half", {"flash_attn": "true", "n_threads_batch": half}),
        ("no_logits_all_batch_threads_half", {"logits_all": "false", "n_threads_batch": half}),
        ("ubatch_256_batch_threads_half", {"n_ubatch": "256", "n_threads_batch": half}),
        ("no_logits_all", {"logits_all": "false"}),
        ("no_logits_all_flash_attn", {"logits_all": "false", "flash_attn": "true"}),
        ("no_logits_all_threads_all", {"logits_all": "false", "n_threads": str(cpus)}),
    ]
    setups = [Setup("today", today_options(), grammar=True)]
    for name, change in variants:
        if not only or name in only:
            setups.append(Setup(name, {**today_options(), **change}, grammar=True))
    for weights in ("f16", "q8_0", "bf16", "f32"):
        if not only or f"model_{weights}" in only:
            setups.append(Setup(f"model_{weights}", today_options(), True, weights=weights))
    if only and "extra_buffer_types_on" in only:
        setups.append(Setup("extra_buffer_types_on", today_options(), True, True))
    if only and "extra_buffer_types_on_f16" in only:
        setups.append(
            Setup("extra_buffer_types_on_f16", today_options(), True, True, weights=COPY_TYPE)
        )
    return setups


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="2 pairs (CI)")
    parser.add_argument("--pairs", type=int, help="how many demo pairs (default 20, quick 2)")
    parser.add_argument("--sweep", action="store_true", help="thread and batch settings")
    parser.add_argument("--rubric", action="append", help="only these rubrics (repeatable)")
    parser.add_argument("--variant", action="append", help="with --sweep: only these settings")
    parser.add_argument("--gguf", action="store_true", help="a GGUF profile, the same file")
    parser.add_argument(
        "--models", type=int, nargs="?", const=0, metavar="N", help="list N GGUF files"
    )
    args = parser.parse_args(argv)
    if args.models is not None:
        from tests.bench.gguf_bench import models_listing

        count = args.models or (100 if args.quick else 1000)
        with tempfile.TemporaryDirectory(prefix="tiebreak-bench-models-") as folder:
            report = {"benchmark": "local", "mode": "models"}
            report.update(models_listing(count, Path(folder)))
        print(json.dumps(report, indent=2))
        return 0
    pairs = args.pairs or (2 if args.quick else 20)
    names = args.rubric or (
        list(QUICK_RUBRICS) if args.quick else [p.stem for p in prompts_dir().glob("*.toml")]
    )
    rubrics = sorted(names, key=reads_logprobs)
    if args.sweep:
        setups = sweep_setups(args.variant)
        rubrics = args.rubric or [SWEEP_RUBRIC]
    elif args.gguf:
        from tests.bench.gguf_bench import gguf_setups

        setups = gguf_setups(Setup, COPY_TYPE)
    else:
        setups = [
            Setup("today", today_options(), grammar=False),
            Setup("new", None, grammar=True, weights=COPY_TYPE),
        ]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tiebreak-bench-local-") as folder:
        # The 16-bit copy is made here, not in the user's cache (once, before any figure).
        os.environ["TIEBREAK_CACHE_DIR"] = str(Path(folder) / "cache")
        try:
            for setup in setups:
                setup.start(Path(folder))
                if args.gguf:  # the built-in server makes the 16-bit copy the other reads
                    setup.server.ensure_started(logprobs=False)
            run(setups, rubrics, list(range(1, pairs + 1)), swap=True)
            results = compare(setups, rubrics, pairs)
        finally:
            for setup in setups:
                if hasattr(setup, "server"):
                    setup.server.stop()
    report: dict[str, Any] = {
        "benchmark": "local",
        "mode": "sweep"
        if args.sweep
        else "gguf"
        if args.gguf
        else "quick"
        if args.quick
        else "full",
        "pairs": pairs,
        "orders": 2,
        "rubrics": rubrics,
        "cpus": os.cpu_count(),
        "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        "settings": {s.name: settings_of(s) for s in setups},
        "results": results,
        "elapsed_s": round(time.perf_counter() - started, 1),
    }
    if args.gguf:
        from tests.bench.gguf_bench import gguf_targets

        report["meets_targets"] = gguf_targets(results)
    elif not args.sweep:
        report["meets_targets"] = targets(results)
    print(json.dumps(report, indent=2))
    return 0


def settings_of(setup: Setup) -> dict[str, Any]:
    if setup.options is not None:
        extra = {"extra_buffer_types": "on"} if setup.extra_buffer_types else {}
        return {**setup.options, "grammar": setup.grammar, "weights": setup.weights, **extra}
    options: dict[str, Any] = dict(server_options(logprobs=False))
    options["logits_all"] = "only where logprobs are asked for"
    return {**options, "grammar": setup.grammar, "weights": setup.weights}


def targets(results: dict[str, Any]) -> dict[str, Any]:
    speed = results.get(SWEEP_RUBRIC, {}).get("new_speedup")
    answers = sum(r["new"]["answers"] for r in results.values())
    failures = sum(r["new"]["parse_failures"] for r in results.values())
    rate = failures / answers if answers else None
    return {
        "href_four_speedup": speed,
        "href_four_speedup_target": SPEED_TARGET,
        "speed": speed is not None and speed >= SPEED_TARGET,
        "new_parse_failure_rate": round(rate, 4) if rate is not None else None,
        "parse_failure_target": PARSE_TARGET,
        "parse_failures": rate is not None and rate <= PARSE_TARGET,
    }


if __name__ == "__main__":
    sys.exit(main())
