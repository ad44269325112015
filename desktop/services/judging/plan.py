"""What a judge job still has to ask: each (pair, order) without a finished result.

A result is keyed by pair, rubric hash, model, decoding settings and order; ok answers and
parse failures are finished (a parse failure is re-parsed, never paid for twice), errors
are asked again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desktop.adapters.store.pairs import pair_ids_matching
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import finished_keys
from desktop.domain.results import Order


@dataclass(frozen=True)
class ResultKey:
    rubric_hash: str
    judge_model: str
    settings_hash: str


def pending_tasks(
    store: ProjectStore,
    key: ResultKey,
    orders: Sequence[Order],
    *,
    redo: bool = False,
    limit: int | None = None,
    where: str | None = None,
    pair_ids: Sequence[int] | None = None,
) -> tuple[list[tuple[int, Order]], int]:
    """(tasks to run in pair order, how many were skipped as already done)."""
    pair_list = pair_ids_matching(store, where, pair_ids)
    done: set[tuple[int, str]] = set()
    if not redo:
        done = finished_keys(store, key.rubric_hash, key.judge_model, key.settings_hash)
    # The limit counts pairs that still need asking, so `--limit 50` run twice judges 100.
    tasks: list[tuple[int, Order]] = []
    skipped = chosen = 0
    for pid in pair_list:
        todo = [(pid, order) for order in orders if (pid, order.value) not in done]
        skipped += len(orders) - len(todo)
        if todo:
            if limit is not None and chosen >= limit:
                break
            chosen += 1
            tasks.extend(todo)
    return tasks, skipped
