"""Judge results: each one committed as it arrives; the latest per key counts."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import now
from desktop.domain.results import JudgeResult

_COLUMNS = (
    "pair_id",
    "rubric_hash",
    "rubric_name",
    "judge_model",
    "settings_hash",
    "ord",
    "request_hash",
    "raw_completion",
    "verdicts",
    "confidence",
    "status",
    "error",
    "latency_ms",
    "prompt_tokens",
    "completion_tokens",
    "origin",
    "created_at",
)
# A newer answer for the same key replaces the old one (judging again with --redo).
_UPSERT = (
    f"INSERT INTO judge_results ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
    " ON CONFLICT(pair_id, rubric_hash, judge_model, settings_hash, ord) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS[6:])
)


def result_row(result: JudgeResult) -> tuple[Any, ...]:
    return (
        result.pair_id,
        result.rubric_hash,
        result.rubric_name,
        result.judge_model,
        result.settings_hash,
        result.order.value,
        result.request_hash,
        result.raw_completion,
        json.dumps({d: v.value for d, v in result.verdicts.items()}) if result.verdicts else None,
        json.dumps(result.confidence) if result.confidence else None,
        result.status.value,
        result.error,
        result.latency_ms,
        result.prompt_tokens,
        result.completion_tokens,
        result.origin,
        now(),
    )


def insert_results(conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    """Write prepared rows inside the caller's transaction."""
    conn.executemany(_UPSERT, rows)


def save_result(store: ProjectStore, result: JudgeResult) -> None:
    """Commit one result now, so a crash a moment later loses nothing acknowledged."""
    with store.transaction():
        insert_results(store.conn, [result_row(result)])


def judge_models(store: ProjectStore, rubric_name: str) -> list[str]:
    """Judge models with results for a rubric, most recently used first."""
    rows = store.conn.execute(
        "SELECT judge_model FROM judge_results WHERE rubric_name = ?"
        " GROUP BY judge_model ORDER BY max(id) DESC",
        [rubric_name],
    ).fetchall()
    return [r[0] for r in rows]
