"""Judge results: each one committed as it arrives; the latest per key counts."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import now
from desktop.domain.numerals import to_json

if TYPE_CHECKING:  # the window lists judges at start-up without loading the result types
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
    "preference",
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
        to_json(result.preference) if result.preference else None,  # digits as given
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


def imported_answers(
    store: ProjectStore, rubric_hash: str, pair_ids: Sequence[int]
) -> Iterator[tuple[Any, ...]]:
    """(pair id, judge, raw completion, verdicts, confidence) of what annotators' files
    gave for these pairs (500 ids a query): an import compares a file's answers with them."""
    for start in range(0, len(pair_ids), 500):
        chunk = pair_ids[start : start + 500]
        yield from store.conn.execute(
            "SELECT pair_id, judge_model, raw_completion, verdicts, confidence"
            " FROM judge_results WHERE rubric_hash = ? AND settings_hash = 'imported'"
            f" AND ord = 'AB' AND pair_id IN ({','.join('?' * len(chunk))})",
            [rubric_hash, *chunk],
        )


def outcomes(store: ProjectStore) -> list[tuple[str, float | None, str | None]]:
    """(status, latency in ms, error) of every answer, in pair order: a small check's
    whole story."""
    return store.conn.execute(
        "SELECT status, latency_ms, error FROM judge_results ORDER BY pair_id"
    ).fetchall()


def finished_keys(
    store: ProjectStore, rubric_hash: str, judge_model: str, settings_hash: str
) -> set[tuple[int, str]]:
    """(pair id, order) of every answer of this rubric text, model and settings that is not
    an error: a job does not ask for these again."""
    return set(
        store.conn.execute(
            "SELECT pair_id, ord FROM judge_results WHERE rubric_hash = ? AND judge_model = ?"
            " AND settings_hash = ? AND status != 'error'",
            [rubric_hash, judge_model, settings_hash],
        )
    )


def answers_to_parse(
    store: ProjectStore, rubric_name: str, *, everything: bool
) -> list[tuple[int, str, str, str | None]]:
    """(result id, order, raw completion, confidence) of a rubric's parse failures, or with
    ``everything`` of every answer but errors."""
    condition = "status != 'error'" if everything else "status = 'parse-failure'"
    return store.conn.execute(
        f"SELECT id, ord, raw_completion, confidence FROM judge_results"
        f" WHERE rubric_name = ? AND raw_completion IS NOT NULL AND {condition}",
        [rubric_name],
    ).fetchall()


def update_parsed(store: ProjectStore, updates: list[tuple[Any, ...]]) -> None:
    """(status, verdicts, confidence, error, result id) of answers parsed again, committed
    together."""
    with store.transaction():
        store.conn.executemany(
            "UPDATE judge_results SET status = ?, verdicts = ?, confidence = ?, error = ?"
            " WHERE id = ?",
            updates,
        )


# Each judge of a rubric by skipping along the index (one seek per judge, however many
# answers each has), with the id of its latest answer (one more seek).
_JUDGES = """
    WITH RECURSIVE judges(model) AS (
      SELECT (SELECT min(judge_model) FROM judge_results WHERE rubric_name = :rubric)
      UNION ALL
      SELECT (SELECT min(judge_model) FROM judge_results
              WHERE rubric_name = :rubric AND judge_model > judges.model)
      FROM judges WHERE judges.model IS NOT NULL)
    SELECT model, (SELECT max(id) FROM judge_results
                   WHERE rubric_name = :rubric AND judge_model = judges.model) AS latest
    FROM judges WHERE model IS NOT NULL ORDER BY latest DESC"""


def judge_models(store: ProjectStore, rubric_name: str) -> list[str]:
    """Judge models with results for a rubric, most recently used first; a few index
    seeks per judge, so it costs the same on a 100,000-pair project as on an empty one."""
    return [r[0] for r in store.conn.execute(_JUDGES, {"rubric": rubric_name})]


def judge_pair_counts(store: ProjectStore, rubric_name: str) -> list[tuple[str, int]]:
    """(judge, pairs it judged) for a rubric, most recent first: what the status bar says
    for each judge, so an error is not counted as judged."""
    return [
        (model, judged_pairs(store, rubric_name, model))
        for model in judge_models(store, rubric_name)
    ]


def judged_pairs(store: ProjectStore, rubric_name: str, judge_model: str) -> int:
    """Pairs a judge judged for a rubric: some order's latest answer is not an error, as the
    pair list marks it. The latest answers are found along the covering lookup index."""
    return store.conn.execute(
        "SELECT count(DISTINCT pair_id) FROM judge_results WHERE status != 'error' AND id IN"
        " (SELECT max(id) FROM judge_results WHERE rubric_name = ? AND judge_model = ?"
        " GROUP BY pair_id, ord)",
        [rubric_name, judge_model],
    ).fetchone()[0]


def judge_summaries(store: ProjectStore) -> list[tuple[Any, ...]]:
    """Per rubric and judge: pairs, answers, ok, parse failures, errors, first and last
    answer time, and where the answers came from; judges most recent first."""
    return store.conn.execute(
        "SELECT rubric_name, judge_model, count(DISTINCT pair_id), count(*),"
        " sum(status = 'ok'), sum(status = 'parse-failure'), sum(status = 'error'),"
        " min(created_at), max(created_at), group_concat(DISTINCT origin)"
        " FROM judge_results GROUP BY rubric_name, judge_model"
        " ORDER BY rubric_name, max(id) DESC"
    ).fetchall()
