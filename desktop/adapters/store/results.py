"""Judge results: each one committed as it arrives; the latest per key counts."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, NamedTuple

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import now
from desktop.domain.numerals import to_json

if TYPE_CHECKING:  # the window lists judges at start-up without loading the result types
    from desktop.domain.results import JudgeResult, Order, Status


class ResultRow(NamedTuple):
    """A judge_results row ready to write, its fields named as the table's columns;
    verdicts, confidence and preference as the JSON text stored."""

    pair_id: int
    rubric_hash: str
    rubric_name: str
    judge_model: str
    settings_hash: str
    ord: str
    request_hash: str | None
    raw_completion: str | None
    verdicts: str | None
    confidence: str | None
    preference: str | None
    status: str
    error: str | None
    latency_ms: float | None
    prompt_tokens: int | None
    completion_tokens: int | None
    origin: str
    created_at: str


_COLUMNS = ResultRow._fields  # the insert names each value where the row holds it
# A newer answer for the same key replaces the old one (judging again with --redo).
_KEY = ("pair_id", "rubric_hash", "judge_model", "settings_hash", "ord", "rubric_name")
_UPSERT = (
    f"INSERT INTO judge_results ({', '.join(_COLUMNS)})"
    f" VALUES ({', '.join('?' * len(_COLUMNS))})"
    " ON CONFLICT(pair_id, rubric_hash, judge_model, settings_hash, ord) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c not in _KEY)
)


def result_row(result: JudgeResult) -> ResultRow:
    return ResultRow(
        pair_id=result.pair_id,
        rubric_hash=result.rubric_hash,
        rubric_name=result.rubric_name,
        judge_model=result.judge_model,
        settings_hash=result.settings_hash,
        ord=result.order.value,
        request_hash=result.request_hash,
        raw_completion=result.raw_completion,
        verdicts=(
            json.dumps({d: v.value for d, v in result.verdicts.items()})
            if result.verdicts
            else None
        ),
        confidence=json.dumps(result.confidence) if result.confidence else None,
        preference=to_json(result.preference) if result.preference else None,  # digits as given
        status=result.status.value,
        error=result.error,
        latency_ms=result.latency_ms,
        prompt_tokens=result.prompt_tokens,
        completion_tokens=result.completion_tokens,
        origin=result.origin,
        created_at=now(),
    )


def insert_results(conn: sqlite3.Connection, rows: Sequence[ResultRow]) -> None:
    """Write prepared rows inside the caller's transaction."""
    conn.executemany(_UPSERT, rows)


class ImportedAnswer(NamedTuple):
    """An answer an annotator's file gave, as stored: an import compares a file's answer
    with the one the project holds in the same slot."""

    pair_id: int
    judge_model: str
    ord: str
    raw_completion: str | None
    verdicts: str | None  # JSON text, as stored
    confidence: str | None

    @property
    def slot(self) -> tuple[int, str, str]:
        return self.pair_id, self.judge_model, self.ord


# Where a prepared row (see result_row) holds each of an ImportedAnswer's values, by name.
_ANSWER_OF_ROW = itemgetter(*(_COLUMNS.index(name) for name in ImportedAnswer._fields))


def imported_answer(row: Sequence[object]) -> ImportedAnswer:
    """The ImportedAnswer of a prepared row (see result_row)."""
    return ImportedAnswer._make(_ANSWER_OF_ROW(row))


def imported_answers(
    store: ProjectStore, rubric_hash: str, pair_ids: Sequence[int]
) -> Iterator[ImportedAnswer]:
    """What annotators' files gave for these pairs (500 ids a query), each order."""
    columns = ", ".join(ImportedAnswer._fields)
    for start in range(0, len(pair_ids), 500):
        chunk = pair_ids[start : start + 500]
        cursor = store.conn.execute(
            f"SELECT {columns} FROM judge_results WHERE rubric_hash = ?"
            " AND settings_hash = 'imported'"
            f" AND pair_id IN ({','.join('?' * len(chunk))})",
            [rubric_hash, *chunk],
        )
        yield from map(ImportedAnswer._make, cursor)


class Outcome(NamedTuple):
    status: Status
    latency_ms: float | None
    error: str | None


def outcomes(store: ProjectStore) -> list[Outcome]:
    """Every answer's outcome, in pair order: a small check's whole story."""
    from desktop.domain.results import Status

    cursor = store.conn.execute(
        "SELECT status, latency_ms, error FROM judge_results ORDER BY pair_id"
    )
    return [Outcome(Status(status), latency, error) for status, latency, error in cursor]


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


class StoredAnswer(NamedTuple):
    """An answer to parse again: its text, and its confidence JSON as stored."""

    id: int
    order: Order
    raw_completion: str
    confidence: str | None


def answers_to_parse(
    store: ProjectStore, rubric_name: str, *, everything: bool
) -> list[StoredAnswer]:
    """A rubric's parse failures, or with ``everything`` every answer but errors."""
    condition = "status != 'error'" if everything else "status = 'parse-failure'"
    cursor = store.conn.execute(
        f"SELECT id, ord, raw_completion, confidence FROM judge_results"
        f" WHERE rubric_name = ? AND raw_completion IS NOT NULL AND {condition}",
        [rubric_name],
    )
    from desktop.domain.results import Order

    return [StoredAnswer(i, Order(order), text, conf) for i, order, text, conf in cursor]


class Reparsed(NamedTuple):
    """An answer parsed again: what to store for the result with this id."""

    status: Status
    verdicts: str | None  # JSON text, as stored
    confidence: str | None
    error: str | None
    id: int


def update_parsed(store: ProjectStore, updates: list[Reparsed]) -> None:
    """Answers parsed again, committed together."""
    with store.transaction():
        store.conn.executemany(
            "UPDATE judge_results SET status = :status, verdicts = :verdicts,"
            " confidence = :confidence, error = :error WHERE id = :id",
            [u._asdict() for u in updates],
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


class JudgeSummary(NamedTuple):
    """One judge's answers for one rubric (each order of a pair counted)."""

    rubric: str
    judge: str
    pairs: int  # pairs with an answer of any kind
    answers: int
    ok: int
    parse_failures: int
    errors: int
    first_answer: str  # ISO 8601, UTC
    last_answer: str
    origins: list[str]  # "model", "batch", "import"


def judge_summaries(store: ProjectStore) -> list[JudgeSummary]:
    """Per rubric and judge, rubrics by name, each rubric's judges most recent first."""
    cursor = store.conn.execute(
        "SELECT rubric_name, judge_model, count(DISTINCT pair_id), count(*),"
        " sum(status = 'ok'), sum(status = 'parse-failure'), sum(status = 'error'),"
        " min(created_at), max(created_at), group_concat(DISTINCT origin)"
        " FROM judge_results GROUP BY rubric_name, judge_model"
        " ORDER BY rubric_name, max(id) DESC"
    )
    return [
        JudgeSummary._make((*row[:9], sorted(set((row[9] or "").split(","))))) for row in cursor
    ]


def orders_seen(store: ProjectStore, rubric: str) -> dict[str, str]:
    """Per judge with answers for the rubric, the order it was shown the outputs in:
    "unknown" where an answer was imported (its order is the file's to say, and
    AlpacaEval's annotator shuffles the two outputs before asking), "both" where Tiebreak
    also asked it in the swapped order (BA), else "A first"."""
    cursor = store.conn.execute(
        "SELECT judge_model, max(origin = 'import'), max(ord = 'BA') FROM judge_results"
        " WHERE rubric_name = ? GROUP BY judge_model",
        [rubric],
    )
    return {
        judge: "unknown" if imported else "both" if swapped else "A first"
        for judge, imported, swapped in cursor
    }


def answer_tokens(
    store: ProjectStore, rubric_name: str
) -> dict[tuple[int, str, str], tuple[int | None, int | None]]:
    """(pair, judge, order) -> (prompt tokens, completion tokens) summed over the stored
    answers: what judging a pair in one order cost each judge. None where no answer says
    (imported answers: an unknown count is not a free one)."""
    rows = store.conn.execute(
        "SELECT pair_id, judge_model, ord, SUM(prompt_tokens),"
        " SUM(completion_tokens) FROM judge_results"
        " WHERE rubric_name = ? GROUP BY pair_id, judge_model, ord",
        (rubric_name,),
    )
    return {(r[0], r[1], r[2]): (r[3], r[4]) for r in rows}
