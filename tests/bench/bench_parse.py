"""Benchmark: the answer parser on answers built to make it backtrack, at several sizes.

Each hostile family of ``tests/hostile/test_answer_parsing.py`` ("Final answer:" and a
run of spaces, "Response" and tabs, "[[" and spaces, a dimension line, a list item, an
unclosed JSON string) is parsed by every answer kind (single, comma-list, json-choice,
json-choices) at each size, best of ``--rounds`` (CPU time). As the reference, measured in the same
run on the same texts, a plain linear pass (``re.findall(r"\\S+")``). Prints one JSON
object: milliseconds per family, kind and size, and for each the log-log slope of time
against size between the smallest and largest size (1 is linear, 2 quadratic; before the
parser was made linear, "Final answer:" and spaces took 0.9 s at 2,000 characters and 61 s
at 16,000, a slope of 2), and the same slope of the reference. An answer past the longest
the parser reads (10 MB) is timed too: it is refused, not read. Never fails on a time.

    .venv/bin/python tests/bench/bench_parse.py           # 10,000 to 1,000,000 characters
    .venv/bin/python tests/bench/bench_parse.py --quick   # 10,000 and 100,000 (CI)
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# First, before site-packages: ppi-python installs a top-level package named tests.
sys.path.insert(0, str(REPO))

from desktop.domain.parsing import MAX_ANSWER_CHARS, parse_answer  # noqa: E402
from desktop.domain.rubric import AnswerFormat, AnswerKind  # noqa: E402
from tests.hostile.test_answer_parsing import FAMILIES, hostile_answer  # noqa: E402

KINDS = {
    "single": (AnswerFormat(AnswerKind.SINGLE), ("overall",)),
    "comma-list": (
        AnswerFormat(AnswerKind.COMMA_LIST),
        ("precision", "correctness", "format", "overall"),
    ),
    "json-choice": (AnswerFormat(AnswerKind.JSON_CHOICE), ("overall",)),
    "json-choices": (AnswerFormat(AnswerKind.JSON_CHOICES), ("clarity", "depth")),
}
_WORDS = re.compile(r"\S+")


def best_ms(run: Callable[[], object], rounds: int) -> float:
    """The best of ``rounds`` runs, in milliseconds of this thread's CPU time: on a shared
    machine the wall clock also counts other programs' turns."""
    best = math.inf
    for _ in range(rounds):
        start = time.thread_time()
        run()
        best = min(best, time.thread_time() - start)
    return best * 1000


def slope(times: dict[int, float]) -> float:
    sizes = sorted(times)
    small, big = sizes[0], sizes[-1]
    if times[small] <= 0 or times[big] <= 0:
        return float("nan")
    return round(math.log(times[big] / times[small]) / math.log(big / small), 2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two sizes (CI)")
    parser.add_argument("--rounds", type=int, default=None)
    args = parser.parse_args()
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    rounds = args.rounds or 3
    out: dict[str, object] = {"sizes": sizes, "rounds": rounds}
    families: dict[str, object] = {}
    worst = 0.0
    for family in FAMILIES:
        texts = {size: hostile_answer(family, size) for size in sizes}
        reference = {s: best_ms(lambda t=t: _WORDS.findall(t), rounds) for s, t in texts.items()}
        kinds: dict[str, object] = {}
        for kind, (answer, dims) in KINDS.items():
            times = {
                size: best_ms(lambda t=text, a=answer, d=dims: parse_answer(t, a, d), rounds)
                for size, text in texts.items()
            }
            kinds[kind] = {
                "ms": {str(s): round(ms, 2) for s, ms in times.items()},
                "slope": slope(times),
            }
            worst = max(worst, slope(times))
        families[family] = {
            "parse": kinds,
            "reference_ms": {str(s): round(ms, 2) for s, ms in reference.items()},
            "reference_slope": slope(reference),
        }
    out["families"] = families
    out["worst_parse_slope"] = worst
    past = hostile_answer("a labelled answer", 10_000_000)
    answer, dims = KINDS["single"]
    out["past_the_longest_read"] = {
        "characters": len(past),
        "longest_read": MAX_ANSWER_CHARS,
        "ms": round(best_ms(lambda: parse_answer(past, answer, dims), rounds), 2),
        "outcome": parse_answer(past, answer, dims).error,
    }
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
