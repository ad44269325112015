"""Benchmark: what the render budget costs on the normal path.

Renders every built-in rubric for each demo pair it applies to (the 20 single-turn pairs
and the conversations), in both orders, through
``desktop.services.rendering.render`` (sandbox and StrictUndefined in a worker process the
OS bounds: the variables sent over a pipe, the messages back), and, as the reference in the
same run, the same templates compiled by a plain Jinja ``SandboxedEnvironment`` with the
same options in this process, given the same variables. Prints one JSON object: the median
time per prompt of each and their ratio, over interleaved rounds, in all and for each
built-in rubric (the round trip's cost on them). Never fails on a time.

    .venv/bin/python tests/bench/bench_render.py           # 200 rounds
    .venv/bin/python tests/bench/bench_render.py --quick   # 20 rounds (CI)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

from jinja2 import StrictUndefined  # noqa: E402
from jinja2.sandbox import SandboxedEnvironment  # noqa: E402

from desktop.adapters.store import open_project  # noqa: E402
from desktop.adapters.store.pairs import iter_pairs  # noqa: E402
from desktop.domain.errors import RubricError  # noqa: E402
from desktop.domain.pairs import PairContent  # noqa: E402
from desktop.domain.render import variables_for  # noqa: E402
from desktop.services.demo import ensure_demo_project  # noqa: E402
from desktop.services.rendering import render  # noqa: E402
from desktop.services.rubric_catalog import list_rubrics  # noqa: E402


def demo_pairs() -> list[PairContent]:
    """The demo project's pairs, single-turn and conversations, made as a first run makes
    them (in a temporary data folder), in both orders."""
    with tempfile.TemporaryDirectory() as folder:
        os.environ["TIEBREAK_DATA_DIR"] = folder
        with open_project(ensure_demo_project()) as store:
            pairs = list(iter_pairs(store))
    return pairs + [p.swapped() for p in pairs]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 rounds (CI)")
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args()
    rounds = args.rounds or (20 if args.quick else 200)
    plain = SandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True
    )
    cases = []  # (rubric, pair, variables, plain templates) that render
    pairs = demo_pairs()
    for rubric in list_rubrics():
        templates = [plain.from_string(m.content) for m in rubric.messages]
        for pair in pairs:
            try:
                variables = variables_for(rubric, pair)
            except RubricError:  # a field or a turn the rubric reads that the pair lacks
                continue
            cases.append((rubric, pair, variables, templates))
    for rubric, pair, variables, templates in cases:  # warm both: compile once each
        assert [m["content"] for m in render(rubric, pair)] == [
            t.render(variables) for t in templates
        ]
    names = list(dict.fromkeys(rubric.name for rubric, *_ in cases))
    budgeted: dict[str, list[float]] = {name: [] for name in names}
    reference: dict[str, list[float]] = {name: [] for name in names}
    totals: list[tuple[float, float]] = []  # per round: all prompts, budgeted and reference
    for _ in range(rounds):
        total_b = total_r = 0.0
        for name in names:
            mine = [c for c in cases if c[0].name == name]
            start = time.perf_counter()
            for rubric, pair, _variables, _templates in mine:
                render(rubric, pair)
            took_b = time.perf_counter() - start
            start = time.perf_counter()
            for _rubric, _pair, variables, templates in mine:
                for template in templates:
                    template.render(variables)
            took_r = time.perf_counter() - start
            budgeted[name].append(took_b / len(mine))
            reference[name].append(took_r / len(mine))
            total_b, total_r = total_b + took_b, total_r + took_r
        totals.append((total_b / len(cases), total_r / len(cases)))
    per_rubric = {}
    for name in names:
        ours, theirs = statistics.median(budgeted[name]), statistics.median(reference[name])
        per_rubric[name] = {
            "render_median_us": round(ours * 1e6, 1),
            "reference_plain_sandbox_median_us": round(theirs * 1e6, 1),
            "ratio": round(ours / theirs, 3),
        }
    ours = statistics.median(b for b, _ in totals)
    theirs = statistics.median(r for _, r in totals)
    print(
        json.dumps(
            {
                "prompts_per_round": len(cases),
                "rounds": rounds,
                "render_median_us": round(ours * 1e6, 1),
                "reference_plain_sandbox_median_us": round(theirs * 1e6, 1),
                "ratio": round(ours / theirs, 3),
                "per_rubric": per_rubric,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
