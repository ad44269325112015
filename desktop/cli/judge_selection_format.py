"""The judge-selection table as terminal lines: one row per configuration, the best and
every row not distinguishable from it marked."""

from __future__ import annotations

from desktop.services.judge_selection import Selection
from desktop.services.judge_selection_columns import interval as _est
from desktop.services.judge_selection_columns import mark as _mark
from desktop.services.judge_selection_columns import percent as _pct
from desktop.services.judge_selection_columns import summary


def selection_lines(selection: Selection) -> list[str]:
    t = selection.table
    lines = [
        f"rubric {selection.rubric}, dimension {selection.dimension}, against"
        f" {selection.against}: {summary(selection)}",
    ]
    for row in t.rows:
        cost = "" if row.cost_per_pair is None else f", cost/pair {row.cost_per_pair:.6f}"
        tokens = "-" if row.tokens_per_pair is None else f"{row.tokens_per_pair:.0f}"
        secs = "-" if row.seconds_per_pair is None else f"{row.seconds_per_pair:.2f}"
        lines += [
            "",
            f"{row.name} ({row.use.value}) {_mark(row)}".rstrip(),
            f"  pairs {row.pairs:,}; JudgeBench {_est(row.judgebench)};"
            f" RewardBench {_est(row.rewardbench)};"
            f" MT-bench w/o ties {_est(row.mtbench)} on {row.mtbench_pairs:,}",
            f"  kappa {_est(row.kappa, 1, 3)}; pi {_est(row.pi, 1, 3)};"
            f" difference to best {_est(row.difference)}",
            f"  consistent {_pct(row.consistency)}, prefer first {_pct(row.prefer_first)},"
            f" stable {_pct(row.stability)}, parse failures {_pct(row.parse_failure_share)},"
            f" errors {_pct(row.error_share)}; tokens/pair {tokens}, seconds/pair {secs}{cost}",
        ]
    lines += t.notes
    return lines
