"""Benchmark: AlpacaEval 2.0's length-controlled win rate, ours against alpaca-eval's own.

Target (issue 31 item 2): the LC win rate of 100 generators x 805 pairs each against one
baseline within 2x the time of alpaca-eval 0.6.6's ``get_length_controlled_winrate`` on the
same annotations, the figures equal to 1e-6.

Both run in this process, one after the other, on the same synthetic annotations (soft
preferences that lean with the length difference, about one in twenty missing): ours is
``desktop.domain.length_control.length_controlled`` from each generator's preferences and
lengths; alpaca-eval's is its function on each generator's records (its ``hf_hub_download``
of ``df_gamed.csv`` replaced by a local synthetic file, as the tests do). Making the data is
not timed.

Prints one JSON object on stdout; exits non-zero only when a side fails, never because a
target is missed (read ``meets_targets``).

    .venv/bin/python tests/bench/bench_length_controlled.py          # 100 generators x 805
    .venv/bin/python tests/bench/bench_length_controlled.py --quick  # 5 generators x 805 (CI)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
INSTRUCTIONS = 805
TARGET_RATIO = 2.0
EQUAL_WITHIN = 1e-6


def annotations(generators: int, seed: int = 11) -> dict[str, list[dict[str, Any]]]:
    rng = random.Random(seed)
    base = ["x" * rng.randint(100, 2500) for _ in range(INSTRUCTIONS)]
    out: dict[str, list[dict[str, Any]]] = {}
    for g in range(generators):
        lean = rng.uniform(-0.001, 0.002)
        rows = []
        for i in range(INSTRUCTIONS):
            text = "y" * rng.randint(50, 4000)
            p = min(1.0, max(0.0, 0.5 + lean * (len(text) - len(base[i])) + rng.gauss(0, 0.3)))
            rows.append(
                {
                    "instruction": f"instruction {i}",
                    "output_1": base[i],
                    "generator_1": "base",
                    "output_2": text,
                    "generator_2": f"g{g}",
                    "annotator": "judge",
                    "preference": None if rng.random() < 0.05 else 1 + p,
                }
            )
        out[f"g{g}"] = rows
    return out


def gamed_file(folder: Path) -> Path:
    rng = random.Random(5)
    lines = ["model,index,preference,std_delta_len,instruction_difficulty,not_gamed_baseline"]
    for model, not_gamed in (("base", True), ("verbose", False), ("concise", False)):
        for i in range(INSTRUCTIONS):
            diff = rng.gauss(0, 1) if not_gamed else 0.0
            lines.append(f"{model},{i},{rng.random()!r},{rng.gauss(0, 1)!r},{diff!r},{not_gamed}")
    path = folder / "df_gamed.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5 generators (CI)")
    parser.add_argument("--generators", type=int, default=None)
    parser.add_argument(
        "--variant",
        default="length_controlled_minimal",
        choices=["length_controlled_minimal", "length_controlled_noreg", "length_controlled_v1"],
    )
    args = parser.parse_args()
    n = args.generators or (5 if args.quick else 100)
    data = annotations(n)

    import alpaca_eval.metrics.glm_winrate as glm

    from desktop.domain.head_to_head import as_preference
    from desktop.domain.length_control import length_controlled, read_gamed

    with tempfile.TemporaryDirectory() as tmp:
        gamed_path = gamed_file(Path(tmp))
        glm.hf_hub_download = lambda **_: str(gamed_path)
        gamed = read_gamed(Path(tmp))
        inputs = {
            g: (
                [as_preference(r["preference"]) for r in rows],
                [len(r["output_1"]) for r in rows],
                [len(r["output_2"]) for r in rows],
            )
            for g, rows in data.items()
        }
        start = time.perf_counter()
        ours = {g: length_controlled(*inputs[g], args.variant, gamed) for g in data}
        ours_s = time.perf_counter() - start
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = time.perf_counter()
            theirs = {
                g: glm.get_length_controlled_winrate(
                    rows,
                    glm_name=args.variant,
                    save_weights_dir=None,
                    is_warn_extreme_changes=False,
                )
                for g, rows in data.items()
            }
            theirs_s = time.perf_counter() - start
    diff = max(
        max(
            abs(ours[g].win_rate - theirs[g]["length_controlled_winrate"]),
            abs(ours[g].standard_error - theirs[g]["lc_standard_error"]),
        )
        for g in data
    )
    diff = float(diff)
    ratio = ours_s / theirs_s
    print(
        json.dumps(
            {
                "variant": args.variant,
                "generators": n,
                "pairs_each": INSTRUCTIONS,
                "ours_s": round(ours_s, 3),
                "alpaca_eval_s": round(theirs_s, 3),
                "ratio": round(ratio, 3),
                "target_ratio": TARGET_RATIO,
                "max_abs_difference": diff,
                "meets_targets": ratio <= TARGET_RATIO and diff <= EQUAL_WITHIN,
            },
            indent=2,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
