"""Import a data file, or every data file under a folder, into a project: all or nothing,
no duplicate pairs, streaming.

Pairs and the verdicts that come with them (an AlpacaEval annotator's preference becomes
that annotator's judge verdict on ``overall``; HREF-style human ``annotations`` become
human verdicts) are written in one transaction: a bad record anywhere, in any file, leaves
the project exactly as it was, with the file, line and field named. The report counts what
was stored, so importing the same file again reports that nothing was added.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.adapters.formats.readers import (
    FORMATS,
    Record,
    in_batches,
    read_records,
)
from desktop.adapters.store.human_verdicts import insert_verdict, latest_row
from desktop.adapters.store.pairs import ids_for_keys, insert_rows, new_row
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import imported_answers, insert_results, result_row
from desktop.adapters.store.rubrics import now, record_rubric
from desktop.domain.annotations import (
    BadAnnotation,
    annotation_items,
    annotation_verdict,
    preference_as_given,
    preference_verdict,
)
from desktop.domain.columns import REQUIRED
from desktop.domain.errors import ImportDataError
from desktop.domain.numerals import to_json
from desktop.domain.results import JudgeResult, Order, Status
from desktop.domain.verdicts import Verdict
from desktop.services.import_identity import IdCheck
from desktop.services.import_sources import Source, Sources, unstorable_text

# Records that carry verdicts, and the members of a record that hold them.
KINDS = {"alpaca-eval": ("preference", "annotator", "raw_completion"), "href": ("annotations",)}
IMPORT_FORMATS = ("auto", *FORMATS, *KINDS)
ALPACA_RUBRIC = "alpaca-eval"
HREF_RUBRIC = "href-overall"
BATCH = 2000
_JSON_CONSTANTS = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}

Progress = Callable[[int], None]


@dataclass(frozen=True)
class ImportReport:
    records: int
    added: int  # pairs stored
    duplicates: int  # records of pairs the project had (or that came twice)
    judge_verdicts: int  # annotator verdicts stored that the project lacked
    human_verdicts: int  # human verdicts stored
    kind: str  # "pairs", "alpaca-eval", "href", or "mixed" for a folder of several
    judge_replaced: int = 0  # annotator verdicts that changed (a newer file)
    judge_present: int = 0  # annotator verdicts the project already had
    human_present: int = 0
    files: int = 1
    skipped: tuple[str, ...] = ()  # files under a folder without pairs

    def summary(self) -> str:
        """One line for the user: what was stored, then what the project already had."""
        added = [
            (self.added, "pairs added"),
            (self.judge_verdicts, "annotator verdicts added"),
            (self.judge_replaced, "annotator verdicts replaced"),
            (self.human_verdicts, "human verdicts added"),
        ]
        said = [f"{n:,} {what}" for n, what in added if n] or ["nothing added"]
        if self.added == 0 and said[0] != "nothing added":
            said.insert(0, "0 pairs added")
        present = [
            (self.duplicates, "pairs"),
            (self.judge_present, "annotator verdicts"),
            (self.human_present, "human verdicts"),
        ]
        there = [f"{n:,} {what}" for n, what in present if n]
        line = ", ".join(said)
        if there:
            line += f"; already in the project: {', '.join(there)}"
        if self.files != 1 or self.skipped:
            line = f"{self.files:,} files: {line}"
        if self.skipped:
            line += f"; skipped {len(self.skipped):,} without pairs: {self.skipped[0]}"
            line += ", ..." if len(self.skipped) > 1 else ""
        return line


def import_file(
    store: ProjectStore,
    path: str | Path,
    *,
    fmt: str = "auto",
    mapping: Mapping[str, str] | None = None,
    rubric: str | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Import ``path``: one data file, or every data file under a folder (see
    ``import_sources``), all in one transaction."""
    path = Path(path)
    if fmt not in IMPORT_FORMATS:
        raise ImportDataError(f"unknown format {fmt!r} (known: {', '.join(IMPORT_FORMATS)})")
    reader_fmt = fmt if fmt in FORMATS else None
    plan = Sources(path, reader_fmt, mapping or {})
    job = _Job(store, rubric)
    with store.bulk_write(), store.transaction():
        for source in plan:
            job.start_file(source, _kind(fmt, source.first[1]), sniffed=fmt not in KINDS)
            for batch in in_batches(source.first, source.rest, BATCH):
                job.write(batch)
                if progress and len(batch) == BATCH:
                    progress(job.records)
    if progress:
        progress(job.records)
    kinds = set(job.kinds)
    return ImportReport(
        records=job.records,
        added=job.added,
        duplicates=job.records - job.added,
        judge_verdicts=job.judge_added,
        human_verdicts=job.human_added,
        kind=kinds.pop() if len(kinds) == 1 else "mixed",
        judge_replaced=job.judge_replaced,
        judge_present=job.judge_present,
        human_present=job.human_present,
        files=plan.count,
        skipped=tuple(plan.skipped),
    )


def _kind(fmt: str, sample: Mapping[str, Any]) -> str:
    if fmt in KINDS:
        return fmt
    if "preference" in sample:
        return "alpaca-eval"
    if "annotations" in sample:
        return "href"
    return "pairs"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


class _Job:
    """The state of one import; every write happens inside the caller's transaction."""

    def __init__(self, store: ProjectStore, rubric: str | None) -> None:
        self.store, self.rubric_name = store, rubric
        self.records = self.added = 0
        self.judge_added = self.judge_replaced = self.judge_present = 0
        self.human_added = self.human_present = 0
        self.kinds: list[str] = []
        self.done: list[Source] = []  # files read so far, to find an earlier record again
        self.ids = IdCheck(store, self._find_earlier)
        self.rubric_hash = ""

    def start_file(self, source: Source, kind: str, *, sniffed: bool) -> None:
        """``sniffed``: the kind was read off the first record, so a later record that
        carries verdicts (a ``preference`` first given in record 2) still has them read."""
        self.source, self.columns, self.sniffed = source, source.columns, sniffed
        self.done.append(source)
        self.kinds.append(kind)
        self._set_kind(kind)

    def _set_kind(self, kind: str) -> None:
        self.kinds[-1] = self.kind = kind
        # Members read into the pair, and those read into its verdicts; any other member
        # (an `annotations` in an AlpacaEval file) is kept as metadata.
        self.pair_members = set(self.columns.values())
        self.used = self.pair_members | set(KINDS.get(kind, ()))
        self.rubric = self.rubric_name or (ALPACA_RUBRIC if kind == "alpaca-eval" else HREF_RUBRIC)
        if kind == "alpaca-eval":
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
        try:
            self._write(batch)
        except UnicodeEncodeError:
            # A lone surrogate (a JSON "\ud800" escape) is no text SQLite can store.
            error = unstorable_text(batch)
            if error is None:
                raise
            raise error from None

    def _write(self, batch: list[Record]) -> None:
        if self.kind == "pairs" and self.sniffed:
            for _, fields in batch:
                if "preference" in fields or "annotations" in fields:
                    self._set_kind(_kind("auto", fields))  # no record before this one did
                    break
        alpaca = self.kind == "alpaca-eval"
        rows, preferences = [], []
        for where, fields in batch:
            values = self._values(where, fields)
            got = self._preference(where, fields) if alpaca else None
            # A record without a preference has no verdict to hold its annotator and raw
            # completion: they stay with the pair, as metadata.
            used = self.used if got is not None or not alpaca else self.pair_members
            metadata = {k: v for k, v in fields.items() if k not in used}
            rows.append(new_row(values, to_json(metadata) if metadata else None))
            preferences.append(got)
        self.ids.check([(where, row) for (where, _), row in zip(batch, rows, strict=True)])
        self.added += insert_rows(self.store.conn, rows)
        self.records += len(batch)
        if self.kind == "pairs":
            return
        keys = [row[0] for row in rows]
        ids = ids_for_keys(self.store.conn, keys)
        if alpaca:
            self._alpaca(batch, preferences, keys, ids)
        else:
            self._href(batch, keys, ids)

    @staticmethod
    def _preference(where: str, fields: Mapping[str, Any]) -> tuple[Verdict, float | None] | None:
        try:
            return preference_verdict(fields.get("preference"))
        except BadAnnotation as exc:
            raise ImportDataError(f"{where}: field 'preference': {exc}") from None

    def _find_earlier(self, external_id: str) -> str | None:
        for source in self.done:
            column = source.columns.get("external_id")
            if column is None:
                continue
            for where, fields in read_records(source.path, source.fmt):
                value = fields.get(column)
                if value is not None and _text(value) == external_id:
                    return where
        return None

    def _values(self, where: str, fields: Mapping[str, Any]) -> dict[str, str | None]:
        """The pair fields of one record, checked field by field."""
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
            elif isinstance(value, (dict, list, bool)) or (
                isinstance(value, float) and not math.isfinite(value)
            ):
                got = _JSON_CONSTANTS.get(str(value), type(value).__name__)
                raise ImportDataError(
                    f"{where}: field {column!r} ({field}) must be text, got {got}"
                )
            else:
                values[field] = str(value)
        return values

    def _alpaca(
        self,
        batch: list[Record],
        preferences: list[tuple[Verdict, float | None] | None],
        keys: list[str],
        ids: dict[str, int],
    ) -> None:
        rows = []
        for (_, fields), got, key in zip(batch, preferences, keys, strict=True):
            if got is None:
                continue
            verdict, confidence = got
            annotator = str(fields.get("annotator") or "annotator")
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
                        raw_completion=_raw_completion(fields),
                        origin="import",
                    )
                )
            )
        insert_results(self.store.conn, self._changed(rows))

    def _changed(self, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """The result rows that are new or differ from what the project holds (counted)."""
        held: dict[tuple[int, str], tuple[Any, ...]] = {}
        pair_ids = sorted({row[0] for row in rows})
        for pid, judge, *answer in imported_answers(self.store, self.rubric_hash, pair_ids):
            held[(pid, judge)] = tuple(answer)
        out = []
        for row in rows:
            slot, answer = (row[0], row[3]), row[7:10]
            before = held.get(slot)
            if before == answer:
                self.judge_present += 1
                continue
            if before is None:
                self.judge_added += 1
            else:
                self.judge_replaced += 1
            held[slot] = answer
            out.append(row)
        return out

    def _href(self, batch: list[Record], keys: list[str], ids: dict[str, int]) -> None:
        stamp = now()
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
                if verdict is None:
                    continue
                latest = latest_row(self.store, ids[key], self.rubric, "overall", reviewer)
                if latest is not None and latest[0] == verdict.value:
                    self.human_present += 1
                    continue
                insert_verdict(
                    self.store,
                    {
                        "pair_id": ids[key],
                        "rubric_name": self.rubric,
                        "dimension": "overall",
                        "verdict": verdict.value,
                        "reviewer": reviewer,
                        "note": None,
                        "mode": "imported",
                        "created_at": stamp,
                    },
                )
                self.human_added += 1


def _raw_completion(fields: Mapping[str, Any]) -> str:
    """The annotator's raw completion as stored: text as it is, an object (AlpacaEval's
    chain-of-thought annotators keep their reasoning in one, others their logprobs) as
    JSON; without one, the preference it gave."""
    raw = fields.get("raw_completion")
    if isinstance(raw, str):
        return raw
    if raw is not None:
        return to_json(raw)
    return to_json({"preference": fields.get("preference")})
