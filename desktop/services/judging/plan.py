"""What a judge job still has to ask: each (pair, order) without a finished result.

A result is keyed by pair, rubric hash, model, decoding settings and order; ok answers and
parse failures are finished (a parse failure is re-parsed, never paid for twice), errors
are asked again.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError
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
    clauses, params = [], []
    if pair_ids is not None:
        clauses.append(f"p.id IN ({','.join('?' * len(pair_ids))})")
        params.extend(pair_ids)
    if where:
        clauses.append(f"({where})")
    condition = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    sql = f"SELECT p.id FROM pairs p {condition} ORDER BY p.id"
    try:
        pair_list = [r[0] for r in store.conn.execute(sql, params)]
    except sqlite3.Error as exc:
        raise TiebreakError(f"--where {where!r}: {exc}") from None
    done: set[tuple[int, str]] = set()
    if not redo:
        done = {
            (pid, order)
            for pid, order in store.conn.execute(
                "SELECT pair_id, ord FROM judge_results WHERE rubric_hash = ? AND judge_model = ?"
                " AND settings_hash = ? AND status != 'error'",
                [key.rubric_hash, key.judge_model, key.settings_hash],
            )
        }
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
