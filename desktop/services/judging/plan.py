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
    """(tasks to run in pair order, how many were skipped as already done).

    ``limit`` counts the pairs of the selection this judge has answered, those answered
    before included: a job cancelled after 10 pairs and run again with the same limit of
    50 ends at 50 pairs, not 60. A pair answered in one order and not yet in the other is
    finished without counting twice."""
    pair_list = pair_ids_matching(store, where, pair_ids)
    done: set[tuple[int, str]] = set()
    if not redo:
        done = finished_keys(store, key.rubric_hash, key.judge_model, key.settings_hash)
    answered = {pid for pid, _ in done}
    room = None if limit is None else limit - sum(pid in answered for pid in pair_list)
    tasks: list[tuple[int, Order]] = []
    skipped = 0
    for pid in pair_list:
        todo = [(pid, order) for order in orders if (pid, order.value) not in done]
        skipped += len(orders) - len(todo)
        if not todo or pid in answered:
            tasks.extend(todo)
        elif room is None or room > 0:
            room = None if room is None else room - 1
            tasks.extend(todo)
    return tasks, skipped
