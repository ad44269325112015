"""The pair list on a project of agent trajectories: 10,000 pairs (``--quick``: 2,000),
each side an OpenAI- or Anthropic-style run of 4 to 40 tool calls with results of a few
hundred characters, some of them errors.

Measured, best and median of 5 in ms (the service the window pages with, a page of 60):
the list's first page; its first page sorted by steps, tool calls and tool errors (each
both ways) and the page after; the filter ``tool-errors``; a search for a word found in
one tool result (rare), in every pair's results (common), and for two characters (every
pair read). With ``--reference`` (main's checkout), main's first page and searches on a
copy without the steps (m012), and main's import of the same file beside ours: what
counting the sides as they are added costs.

    .venv/bin/python tests/bench/bench_trajectory_list.py --quick
    .venv/bin/python tests/bench/bench_trajectory_list.py --reference ../main

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

RARE = "zanzibarquokka"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"The {name} tool.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
    for name in ("search", "read_file", "run_tests")
]


def _openai_side(rng: random.Random, task: list[dict[str, Any]], calls: int) -> list[Any]:
    out = list(task)
    for k in range(calls):
        call_id = f"call_{k}"
        name = rng.choice(("search", "read_file", "run_tests"))
        arguments = json.dumps({"query": f"find item {rng.randrange(10**6)}"})
        out.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": arguments},
                    }
                ],
            }
        )
        text = " ".join(rng.choice(("alpha", "beta", "gamma", "delta")) for _ in range(60))
        out.append({"role": "tool", "tool_call_id": call_id, "content": f"result {text}"})
    out.append({"role": "assistant", "content": f"Done after {calls} calls."})
    return out


def _anthropic_side(rng: random.Random, task: list[dict[str, Any]], calls: int) -> list[Any]:
    out = list(task)
    for k in range(calls):
        call_id = f"toolu_{k}"
        out.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Let me look."},
                    {
                        "type": "tool_use",
                        "id": call_id,
                        "name": "search",
                        "input": {"query": f"item {rng.randrange(10**6)}"},
                    },
                ],
            }
        )
        error = rng.random() < 0.1
        said = "Timeout: the service did not answer" if error else "result " + "epsilon " * 50
        out.append(
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": call_id,
                        "content": said,
                        "is_error": error,
                    }
                ],
            }
        )
    out.append({"role": "assistant", "content": [{"type": "text", "text": "Done."}]})
    return out


def generate(path: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            task = [
                {"role": "system", "content": "You are a careful agent."},
                {"role": "user", "content": f"Task {i}: find the item and report it."},
            ]
            make = _openai_side if i % 2 else _anthropic_side
            record = {
                "id": f"run-{i}",
                "model_a": "agent-v2",
                "model_b": "agent-v1",
                "messages_a": make(rng, task, rng.randint(4, 40)),
                "messages_b": make(rng, task, rng.randint(4, 40)),
            }
            if i % 2:
                record["tools"] = TOOLS
            if i == n // 2 | 1:  # an OpenAI-style run: its message 4 is a tool's result
                record["messages_b"][3]["content"] = f"result {RARE} found"
            fh.write(json.dumps(record) + "\n")


_OURS = """
import json, statistics, sys, time
from desktop.adapters.store import open_project
from desktop.services.pair_list import list_rows, ordering
out = {}
def timed(label, **options):
    times = []
    for _ in range(5):
        start = time.perf_counter()
        rows = list_rows(store, "trajectory", "m", limit=60, **options)
        times.append((time.perf_counter() - start) * 1000)
    out[label] = [round(min(times), 2), round(statistics.median(times), 2), len(rows)]
    return rows
with open_project(sys.argv[1], readonly=True) as store:
    timed("first_page")
    for kind in ("steps", "calls", "errors"):
        for descending in (False, True):
            label = f"sort_{kind}_{'desc' if descending else 'asc'}"
            rows = timed(label, order=ordering(kind, descending, None))
            timed(label + "_page_2", order=ordering(kind, descending, rows[-1]))
    timed("filter_tool_errors", filter_name="tool-errors")
    for label, word in json.loads(sys.argv[2]).items():
        timed(f"search_{label}", search=word)
print(json.dumps(out))
"""

_THEIRS = """
import json, statistics, sys, time
from desktop.adapters.store import open_project
from desktop.services.pair_list import list_rows
out = {}
def timed(label, **options):
    times = []
    for _ in range(5):
        start = time.perf_counter()
        rows = list_rows(store, "trajectory", "m", limit=60, **options)
        times.append((time.perf_counter() - start) * 1000)
    out[label] = [round(min(times), 2), round(statistics.median(times), 2), len(rows)]
with open_project(sys.argv[1], readonly=True) as store:
    timed("first_page")
    for label, word in json.loads(sys.argv[2]).items():
        timed(f"search_{label}", search=word)
print(json.dumps(out))
"""

SEARCHES = {"rare": RARE, "common": "epsilon", "two_characters": "zq"}


def _run(python: str, code: str, cwd: Path, *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [python, "-c", code, *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(cwd)},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def _import(python: str, cwd: Path, project: Path, data: Path) -> float:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    subprocess.run([python, "-m", "desktop", "new", str(project)], cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    start = time.perf_counter()
    subprocess.run([python, "-m", "desktop", "import", str(project), str(data)], cwd=cwd,
                   env=env, check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2,000 pairs")
    parser.add_argument("--pairs", type=int)
    parser.add_argument("--reference", type=Path, help="main's checkout, timed beside")
    args = parser.parse_args(argv)
    n = args.pairs or (2_000 if args.quick else 10_000)
    figures: dict[str, Any] = {"pairs": n}
    with tempfile.TemporaryDirectory(prefix="tiebreak-bench-trajectories-") as tmp:
        work = Path(tmp)
        os.environ["TIEBREAK_CONFIG_DIR"] = str(work / "config")
        data = work / "runs.jsonl"
        generate(data, n)
        figures["file_mb"] = round(data.stat().st_size / 1e6, 1)
        project = work / "runs.tiebreak"
        figures["import_s"] = round(_import(sys.executable, REPO, project, data), 2)
        ours = _run(sys.executable, _OURS, REPO, str(project), json.dumps(SEARCHES))
        figures |= {f"{k}_ms": v for k, v in ours.items()}
        if args.reference is not None:
            from tests.bench.bench_import_export import as_reference_project, reference_python

            python = reference_python(args.reference)
            theirs_project = work / "reference.tiebreak"
            figures["reference_import_s"] = round(
                _import(python, args.reference, theirs_project, data), 2
            )
            copy = work / "copy.tiebreak"
            as_reference_project(project, copy, args.reference, vacuum=False)
            theirs = _run(python, _THEIRS, args.reference, str(copy), json.dumps(SEARCHES))
            figures |= {f"reference_{k}_ms": v for k, v in theirs.items()}
    print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
