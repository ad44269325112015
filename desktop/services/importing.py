"""Import a data file into a project: all or nothing, no duplicate pairs, streaming.

Pairs and the verdicts that come with them (an AlpacaEval annotator's preference becomes
that annotator's judge verdict on ``overall``; HREF-style human ``annotations`` become
human verdicts) are written in one transaction: a bad record anywhere leaves the project
exactly as it was, with the file, line and field named.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.adapters.formats.readers import (
    FORMATS,
    Record,
    in_batches,
    read_records,
    sniff_format,
)
from desktop.adapters.store.pairs import content_key, ids_for_keys, insert_rows
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import insert_results, result_row
from desktop.adapters.store.rubrics import now, record_rubric
from desktop.domain.annotations import (
    BadAnnotation,
    annotation_items,
    annotation_verdict,
    preference_as_given,
    preference_verdict,
)
from desktop.domain.columns import REQUIRED, resolve_columns
from desktop.domain.errors import ImportDataError
from desktop.domain.results import JudgeResult, Order, Status

IMPORT_FORMATS = ("auto", *FORMATS, "alpaca-eval", "href")
ALPACA_RUBRIC = "alpaca-eval"
HREF_RUBRIC = "href-overall"
BATCH = 2000

Progress = Callable[[int], None]


@dataclass(frozen=True)
class ImportReport:
    records: int
    added: int
    duplicates: int
    judge_verdicts: int
    human_verdicts: int
    kind: str  # "pairs", "alpaca-eval" or "href"


def import_file(
    store: ProjectStore,
    path: str | Path,
    *,
    fmt: str = "auto",
    mapping: Mapping[str, str] | None = None,
    rubric: str | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    path = Path(path)
    if fmt not in IMPORT_FORMATS:
        raise ImportDataError(f"unknown format {fmt!r} (known: {', '.join(IMPORT_FORMATS)})")
    if not path.is_file():
        raise ImportDataError(f"{path}: no such file")
    reader_fmt = fmt if fmt in FORMATS else sniff_format(path)
    records = read_records(path, reader_fmt)
    first = next(records, None)
    if first is None:
        raise ImportDataError(f"{path}: no records to import")
    kind = _kind(fmt, first[1])
    columns = resolve_columns(first[1].keys(), mapping or {}, first[0])
    job = _Job(store, kind, columns, rubric)
    with store.bulk_write(), store.transaction():
        job.start()
        for batch in in_batches(first, records, BATCH):
            job.write(batch)
            if progress and len(batch) == BATCH:
                progress(job.records)
    if progress:
        progress(job.records)
    return ImportReport(
        job.records, job.added, job.records - job.added, job.judge_count, job.human_count, kind
    )


def _kind(fmt: str, sample: Mapping[str, Any]) -> str:
    if fmt in ("alpaca-eval", "href"):
        return fmt
    if "preference" in sample:
        return "alpaca-eval"
    if "annotations" in sample:
        return "href"
    return "pairs"


class _Job:
    """The state of one import; every write happens inside the caller's transaction."""

    def __init__(
        self, store: ProjectStore, kind: str, columns: dict[str, str], rubric: str | None
    ) -> None:
        self.store, self.kind, self.columns = store, kind, columns
        self.rubric = rubric or (ALPACA_RUBRIC if kind == "alpaca-eval" else HREF_RUBRIC)
        self.used = set(columns.values()) | {
            "preference",
            "annotations",
            "annotator",
            "raw_completion",
        }
        self.records = self.added = self.judge_count = self.human_count = 0
        self.rubric_hash = ""

    def start(self) -> None:
        if self.kind == "alpaca-eval":
            text = json.dumps(
                {
                    "name": self.rubric,
                    "dimensions": ["overall"],
                    "origin": "verdicts imported from AlpacaEval annotations",
                }
            )
            self.rubric_hash = hashlib.sha256(text.encode()).hexdigest()
            record_rubric(
                self.store,
                hash=self.rubric_hash,
                name=self.rubric,
                title="AlpacaEval annotator preference",
                dimensions=("overall",),
                kind="imported",
                text=text,
            )

    def write(self, batch: list[Record]) -> None:
        if not batch:
            return
        rows = [self._row(where, fields) for where, fields in batch]
        self.added += insert_rows(self.store.conn, rows)
        self.records += len(batch)
        if self.kind == "pairs":
            return
        keys = [row[0] for row in rows]
        ids = ids_for_keys(self.store.conn, keys)
        if self.kind == "alpaca-eval":
            self._alpaca(batch, keys, ids)
        else:
            self._href(batch, keys, ids)

    def _row(self, where: str, fields: Mapping[str, Any]) -> tuple[Any, ...]:
        """The pairs-table row of one record (see PAIR_COLUMNS), checked field by field."""
        values: dict[str, str | None] = {}
        for field, column in self.columns.items():
            value = fields.get(column)
            # A response may be empty (a model can answer nothing); it may not be absent,
            # and an instruction must have text.
            if value is None or (value == "" and field == "instruction"):
                if field in REQUIRED:
                    state = "missing" if value is None else "empty"
                    raise ImportDataError(f"{where}: field {column!r} ({field}) is {state}")
                values[field] = None
            elif isinstance(value, str):
                values[field] = value
            elif isinstance(value, (dict, list, bool)):
                raise ImportDataError(
                    f"{where}: field {column!r} ({field}) must be text, got {type(value).__name__}"
                )
            else:
                values[field] = str(value)
        get = values.get
        metadata = {k: v for k, v in fields.items() if k not in self.used}
        instruction, a, b = values["instruction"], values["response_a"], values["response_b"]
        key = content_key(get("external_id"), instruction, a, b, get("reference"), get("source"))
        return (
            key,
            get("external_id"),
            instruction,
            a,
            b,
            get("reference"),
            get("source"),
            get("model_a"),
            get("model_b"),
            get("category"),
            json.dumps(metadata, ensure_ascii=False) if metadata else None,
        )

    def _alpaca(self, batch: list[Record], keys: list[str], ids: dict[str, int]) -> None:
        rows = []
        for (where, fields), key in zip(batch, keys, strict=True):
            try:
                got = preference_verdict(fields.get("preference"))
            except BadAnnotation as exc:
                raise ImportDataError(f"{where}: field 'preference': {exc}") from None
            if got is None:
                continue
            verdict, confidence = got
            annotator = str(fields.get("annotator") or "annotator")
            raw = fields.get("raw_completion")
            rows.append(
                result_row(
                    JudgeResult(
                        pair_id=ids[key],
                        rubric_hash=self.rubric_hash,
                        rubric_name=self.rubric,
                        judge_model=annotator,
                        settings_hash="imported",
                        order=Order.AB,
                        status=Status.OK,
                        verdicts={"overall": verdict},
                        confidence={"overall": confidence} if confidence is not None else {},
                        preference={"overall": preference_as_given(fields["preference"])},
                        raw_completion=raw
                        if isinstance(raw, str)
                        else json.dumps({"preference": fields.get("preference")}),
                        origin="import",
                    )
                )
            )
        insert_results(self.store.conn, rows)
        self.judge_count += len(rows)

    def _href(self, batch: list[Record], keys: list[str], ids: dict[str, int]) -> None:
        conn, stamp = self.store.conn, now()
        for (where, fields), key in zip(batch, keys, strict=True):
            try:
                items = annotation_items(fields.get("annotations", []))
                verdicts = [
                    (who or f"annotator-{n}", annotation_verdict(v))
                    for n, (who, v) in enumerate(items, start=1)
                ]
            except BadAnnotation as exc:
                raise ImportDataError(f"{where}: field 'annotations': {exc}") from None
            for reviewer, verdict in verdicts:
                if (
                    verdict is None
                    or _latest(conn, ids[key], self.rubric, reviewer) == verdict.value
                ):
                    continue
                conn.execute(
                    "INSERT INTO human_verdicts(pair_id, rubric_name, dimension, verdict,"
                    " reviewer, note, mode, created_at) VALUES (?, ?, 'overall', ?, ?, NULL,"
                    " 'imported', ?)",
                    [ids[key], self.rubric, verdict.value, reviewer, stamp],
                )
                self.human_count += 1


def _latest(conn: Any, pair_id: int, rubric: str, reviewer: str) -> str | None:
    row = conn.execute(
        "SELECT verdict FROM human_verdicts WHERE pair_id = ? AND rubric_name = ?"
        " AND dimension = 'overall' AND reviewer = ? ORDER BY id DESC LIMIT 1",
        [pair_id, rubric, reviewer],
    ).fetchone()
    return row[0] if row else None
