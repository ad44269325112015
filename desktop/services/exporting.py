"""Export a project as one row per pair with judge, human and final verdicts.

Streams straight from SQLite to a temporary file renamed at the end, so memory stays flat
on any project size and a crash never leaves half a file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator
from contextlib import closing
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path

from desktop.adapters.formats.atomic import atomic_text_file, check_target
from desktop.adapters.formats.cells import FormulaGuard
from desktop.adapters.formats.csv_lines import csv_line
from desktop.adapters.store.pair_reader import (
    CONVERSATION_COLUMNS,
    EVERY_FIELD,
    Condition,
    PairQuery,
    read_pairs,
)
from desktop.adapters.store.pair_steps import holds_trajectories
from desktop.adapters.store.pairs import conversation_turns
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import judge_models
from desktop.domain import conversation_export as talk
from desktop.domain import numerals
from desktop.domain.conversations import implied, to_json
from desktop.domain.errors import TiebreakError
from desktop.domain.judge_policy import JudgePolicy
from desktop.domain.labels import REVIEWERS, Label
from desktop.domain.pair_record import PairColumns, ReviewerVerdict
from desktop.domain.pair_view import PairView
from desktop.domain.verdicts import ACCEPTED, Verdict
from desktop.services.juries import policy_named
from desktop.services.rubric_choice import Judge, choose_rubric, dimensions_of

EXPORT_FORMATS = ("csv", "jsonl")
PAIR_FIELDS = EVERY_FIELD  # the export's first columns
DIMENSION_PARTS = (
    "model",
    "human",  # the label: A, B, tie or bothbad ('' for none, a dispute or a broken pair)
    "source",  # whose: adjudicated, reviewers, accepted, judge; dispute; broken
    "final",
    "confidence",
    "preference",
    "consistent",
    "reviewer",  # who gave the human verdict (of several agreeing, the latest)
    "mode",  # how: blind, gui, cli, imported
    "time",  # when (UTC, ISO 8601)
)
_NOBODY = ("", "", "")
JUDGE_SOURCE, DISPUTE_SOURCE = "judge", "dispute"
STORED_TALKS = ("conversation_a", "conversation_b", "turn")  # the sides as JSON text
_TALKS = Condition("p.turn IS NOT NULL", {})  # a conversation pair
# Reads JSON only to check it: numbers stay text (a 5,000-digit integer is no int).
_CHECK = json.JSONDecoder(parse_int=str, parse_float=str, parse_constant=str)
#: CSV rows written to the file in one call (about half a megabyte of 2 KB pairs).
_LINES_AT_ONCE = 256


@dataclass(frozen=True)
class ExportReport:
    rows: int
    rubric: str | None
    judge_model: str | None
    columns: tuple[str, ...]
    fmt: str = "csv"
    guarded: int | None = None  # CSV cells defused as formulas; None when not guarded
    flattened: int = 0  # CSV: pairs of two trajectories, each run written in one cell

    @property
    def guard_note(self) -> str:
        """The summary's words after the row count, for the command line and the window:
        the formula guard, and in a CSV the trajectories flattened into one cell a side."""
        if self.fmt != "csv":
            return ""
        runs = ""
        if self.flattened:
            runs = (
                f"; {self.flattened:,} pairs of trajectories, each run flattened into one"
                " readable cell per side (trajectory_a, trajectory_b; the JSONL export keeps"
                " every message)"
            )
        if self.guarded is None:
            return f"; formula guard off{runs}"
        cells = "1 cell" if self.guarded == 1 else f"{self.guarded:,} cells"
        return f"; {cells} guarded against spreadsheet formulas{runs}"


def format_for(out: Path) -> str:
    """The format a file's name asks for: JSON lines for .jsonl and .ndjson, else CSV."""
    return "jsonl" if out.suffix.lower() in (".jsonl", ".ndjson") else "csv"


def export_columns(
    dimensions: tuple[str, ...], conversation: tuple[str, ...] = (), fmt: str = "csv"
) -> tuple[str, ...]:
    """The columns in order: the pair's fields, its ``conversation`` columns (none for a
    project of single-turn pairs; see ``conversation_export``), the rubric and judge; per
    dimension the judge's, the human and the final verdict and who gave the human one,
    how and when; the pair's notes; JSONL adds every reviewer's verdict (``reviews``); the
    metadata."""
    per_dim = tuple(f"{d}_{part}" for d in dimensions for part in DIMENSION_PARTS)
    head = (*PAIR_FIELDS, *conversation, "rubric", "judge_model", "judge_status")
    every_review = ("reviews",) if fmt == "jsonl" else ()
    return (*head, *per_dim, "note", *every_review, "metadata")


def _conversation_columns(store: ProjectStore, fmt: str) -> tuple[tuple[str, ...], int, bool]:
    """The conversation columns of this project's export, its most turns (0: none; JSONL,
    whose columns do not depend on it, only asks whether a conversation is there: counting
    every side's turns reads every message, seconds on 100,000 pairs), and whether it holds
    trajectories (then the tools in JSONL, each run in a cell of a CSV, and the counts)."""
    if fmt != "csv":
        first = read_pairs(store, PairQuery(columns=("id",), reviews=False), where=_TALKS)
        with closing(first):
            if next(first, None) is None:
                return (), 0, False
        if not holds_trajectories(store.conn):
            return talk.JSONL_COLUMNS, 1, False
        runs = (*talk.JSONL_COLUMNS, *talk.TRAJECTORY_JSONL_COLUMNS, *talk.COUNT_COLUMNS)
        return runs, 1, True
    if not holds_trajectories(store.conn):
        turns = conversation_turns(store)
        return (talk.csv_columns(turns), turns, False) if turns else ((), 0, False)
    turns = max(conversation_turns(store, runs=False), 1)
    columns = (*talk.csv_columns(turns), *talk.TRAJECTORY_CSV_COLUMNS, *talk.COUNT_COLUMNS)
    return columns, turns, True


def export_project(
    store: ProjectStore,
    out: str | Path,
    *,
    rubric: str | None = None,
    fmt: str = "csv",
    judge_model: Judge = None,
    progress: Callable[[int], None] | None = None,
    formula_guard: bool = True,
) -> ExportReport:
    """Write one row per pair to ``out``, never over the project or its sidecars (see
    ``check_target``). A CSV's text cells are guarded against formulas unless
    ``formula_guard`` is off; JSONL is always exact."""
    if fmt not in EXPORT_FORMATS:
        raise TiebreakError(f"unknown export format {fmt!r} (known: {', '.join(EXPORT_FORMATS)})")
    out = Path(out)
    check_target(out, keep=store.path)  # before any other complaint: this one loses work
    name = choose_rubric(store, rubric)
    dims = dimensions_of(store, name) if name else ()
    if name and judge_model is None:
        models = judge_models(store, name)
        judge_model = models[0] if models else None
    conversation, turns, runs = _conversation_columns(store, fmt)
    columns = export_columns(dims, conversation, fmt)
    # Only the free text (pair fields, metadata, names) can start a formula; the verdict,
    # status and number cells Tiebreak writes itself cannot, so they skip the check.
    guard = FormulaGuard() if fmt == "csv" and formula_guard else None
    policy = policy_named(store, name, judge_model if name else None)
    flattened = [0]  # CSV: pairs of trajectories written as one cell a side
    rows = _rows(
        store, name, policy, dims, guard.cell if guard else _same, fmt, turns, runs, flattened
    )
    count = 0
    # Closed here, while the project is open, when a write fails (a full disk): left to
    # the garbage collector, the reader's cursor closes after the project and says so.
    with (
        closing(rows),
        atomic_text_file(out, newline="" if fmt == "csv" else None, keep=store.path) as fh,
    ):
        if fmt == "csv":
            # A header names a dimension, which an older rubric may have begun with "-".
            fh.write(csv_line([guard.cell(c) for c in columns] if guard else columns))
            lines: list[str] = []
            for row in rows:
                lines.append(csv_line(row))
                count += 1
                if len(lines) == _LINES_AT_ONCE:
                    fh.write("".join(lines))
                    lines.clear()
                if progress and count % 5000 == 0:
                    progress(count)
            fh.write("".join(lines))
        else:
            line = _JsonLines(columns, dims).line
            for row in rows:
                fh.write(line(row) + "\n")
                count += 1
                if progress and count % 5000 == 0:
                    progress(count)
        store.ensure_read_whole()  # rows of two files are no export: nothing is written
    if progress:
        progress(count)
    guarded = guard.guarded if guard else None
    return ExportReport(count, name, policy.name or None, columns, fmt, guarded, flattened[0])


def _rows(
    store: ProjectStore,
    rubric: str | None,
    policy: JudgePolicy,
    dims: tuple[str, ...],
    text: Callable[[str], str],
    fmt: str,
    turns: int = 0,
    runs: bool = False,
    flattened: list[int] | None = None,
) -> Generator[list[object], None, None]:
    """One list of cell values per pair, in column order; verdicts as A / B / tie / ''.
    Free-text cells go through ``text`` (the formula guard, for a CSV). Metadata: its JSON
    text in a CSV, the object in JSONL (its numbers as the file wrote them). Where the
    project holds conversations (``turns``), each pair's turns follow its fields; where it
    holds trajectories (``runs``), their tools (JSONL), runs (CSV) and counts, each pair
    of trajectories counted in ``flattened``."""
    # JSONL writes each side and the metadata as stored (JSON text, checked), never decoded
    # and encoded again: 100,000 conversation pairs export in half the time.
    talks = (CONVERSATION_COLUMNS if fmt == "csv" else STORED_TALKS) if turns else ()
    if runs:  # the tools, and each side's messages for its counts
        talks = (*talks, "tools", *(("messages_a", "messages_b") if fmt != "csv" else ()))
    query = PairQuery(rubric, policy.judges, (*PAIR_FIELDS, *talks, "metadata_text"))
    tally = flattened if flattened is not None else [0]
    pair_values = attrgetter(*PAIR_FIELDS)
    for record in read_pairs(store, query):
        fields = record.fields
        out = [
            "" if v is None else text(v) if isinstance(v, str) else v for v in pair_values(fields)
        ]
        if turns:
            out += _turn_cells(fields, turns, text, fmt, runs, tally)
        if rubric is None:
            out += ("", "", "", "")  # rubric, judge, status, note
            if fmt == "jsonl":
                out.append([])
        else:
            view = PairView(record, policy)
            status = view.status
            out += (text(rubric), text(policy.name) if status else "", status)  # each counted
            given = view.ruling.given_preferences()  # as the file gave them: every digit
            reviewed = bool(record.reviews)
            broken = reviewed and view.broken
            values = view.dimension_values(dims)
            if not reviewed:  # most pairs: the judge's alone (label_source of no label)
                for dim, (judge, conf, consistent, _, final) in zip(dims, values, strict=True):
                    preference = given.get(dim)
                    out += (
                        judge or "",
                        "",
                        "" if judge is None else JUDGE_SOURCE,
                        final or "",
                        "" if conf is None else round(conf, 4),
                        "" if preference is None else preference,
                        "" if consistent is None else ("yes" if consistent else "no"),
                        *_NOBODY,
                    )
            else:
                for dim, (judge, conf, consistent, human, final) in zip(dims, values, strict=True):
                    preference = given.get(dim)
                    label = view.label(dim)
                    source = label_source(label, judge, broken=broken)
                    by = label.given[-1] if label.given and not broken else None
                    answer = label.answer if human is not None and not broken else None
                    out += (
                        judge or "",
                        answer or "",
                        source,
                        "" if broken else answer or final or "",
                        "" if conf is None else round(conf, 4),
                        "" if preference is None else preference,
                        "" if consistent is None else ("yes" if consistent else "no"),
                        *(_NOBODY if by is None else _who(by, text)),
                    )
            out.append(_notes(view, text) if reviewed else "")
            if fmt == "jsonl":
                out.append([_review(r) for r in record.reviews])
        value = fields.metadata_text
        if fmt == "csv":
            out.append(text(value or ""))
        else:
            out.append("" if value is None else _stored_json(value, fields.id, "metadata"))
        yield out


def label_source(label: Label, judge: Verdict | None, *, broken: bool) -> str:
    """Whose a dimension's final verdict is, as the export's ``<dim>_source`` says it."""
    if broken:
        return "broken"
    if label.disputed:
        return DISPUTE_SOURCE
    if label.verdict is not None:
        if label.source == REVIEWERS and all(r.mode == ACCEPTED for r in label.given):
            return ACCEPTED
        return label.source or REVIEWERS
    return JUDGE_SOURCE if judge is not None else ""


def _who(review: ReviewerVerdict, text: Callable[[str], str]) -> tuple[str, str, str]:
    """Who gave a verdict, how and when: text a merged file may have written, so guarded."""
    return text(review.reviewer), text(review.mode or ""), text(review.created_at)


def _notes(view: PairView, text: Callable[[str], str]) -> str:
    """The pair's notes in one cell, in the order written, each once (a note saved on two
    dimensions is one note); each after its writer's name where several reviewers wrote."""
    notes = view.notes()
    if not notes:
        return ""
    several = len({r.reviewer for r in notes}) > 1
    lines = dict.fromkeys(f"{r.reviewer}: {r.note}" if several else r.note for r in notes)
    return text("\n".join(line for line in lines if line))


def _review(review: ReviewerVerdict) -> dict[str, object]:
    """One reviewer's current verdict on one dimension, for JSONL (null: withdrawn)."""
    return {
        "dimension": review.dimension,
        "reviewer": review.reviewer,
        "verdict": review.verdict.value if review.verdict else None,
        "mark": review.mark.value if review.mark else None,  # bothbad, skip, broken
        "mode": review.mode,
        "time": review.created_at,
        "note": review.note,
    }


def _turn_cells(
    fields: PairColumns,
    turns: int,
    text: Callable[[str], str],
    fmt: str,
    runs: bool = False,
    flattened: list[int] | None = None,
) -> list[object]:
    if fmt != "csv" and not runs:
        return [fields.turn or 1, *_stored_sides(fields)]
    a, b = talk.sides(
        fields.instruction,
        fields.response_a,
        fields.response_b,
        fields.messages_a,
        fields.messages_b,
    )
    if fmt != "csv":  # the tools as stored, JSON checked as the sides are
        tools = (
            None if fields.tools is None else _stored_json(fields.tools, fields.id, "tools", list)
        )
        return [fields.turn or 1, *_stored_sides(fields), tools, *talk.count_cells(a, b)]
    turn = fields.turn or 1
    if not runs:
        return [text(c) if isinstance(c, str) else c for c in talk.csv_cells(a, b, turn, turns)]
    if talk.is_run(a, b):
        if flattened is not None:
            flattened[0] += 1
        cells = [*talk.trajectory_csv_cells(a, b, turns), talk.flattened(a), talk.flattened(b)]
    else:
        cells = [*talk.csv_cells(a, b, turn, turns), "", ""]
    cells += talk.count_cells(a, b)
    return [text(c) if isinstance(c, str) else c for c in cells]


class _RawJSON(str):
    """A cell that is JSON text already (a conversation or metadata as the project stores
    it: numbers as the file wrote them)."""


def _stored_sides(fields: PairColumns) -> tuple[_RawJSON, _RawJSON]:
    """Both sides of a pair as JSONL writes them: a conversation pair's as stored, each
    checked to be one JSON list (so no stored text can add to a line); a single-turn pair's
    implied ones."""
    a, b = fields.conversation_a, fields.conversation_b
    if a is None or b is None:
        side_a = to_json(implied(fields.instruction, fields.response_a))
        return _RawJSON(side_a), _RawJSON(to_json(implied(fields.instruction, fields.response_b)))
    return (
        _stored_json(a, fields.id, "conversation_a", list),
        _stored_json(b, fields.id, "conversation_b", list),
    )


def _stored_json(text: str, pair: int, column: str, kind: type | None = None) -> _RawJSON:
    """JSON text the project stores, checked to be one JSON value (of ``kind``), so that
    written as it is it cannot add to or break a line."""
    bad = f"pair #{pair}: its stored {column} is not valid; nothing was written"
    try:
        value = _CHECK.decode(text)
    except json.JSONDecodeError:
        raise TiebreakError(bad) from None
    if kind is not None and not isinstance(value, kind):
        raise TiebreakError(bad)
    return _RawJSON(text)


class _JsonLines:
    """Rows as JSON objects, each byte for byte ``json.dumps`` of it, but a stored
    conversation is written as it is stored and a number an imported file gave (a
    preference, numbers in metadata) as the file wrote it."""

    def __init__(self, columns: tuple[str, ...], dims: tuple[str, ...]) -> None:
        self.columns = columns
        # The cells that may need more than json.dumps, with their keys written once.
        names = {"conversation_a", "conversation_b", "tools", "metadata"}
        names.update(f"{d}_preference" for d in dims)
        self.special = tuple(
            (i, json.dumps(name, ensure_ascii=False) + ": ")
            for i, name in enumerate(columns)
            if name in names
        )

    def line(self, row: list[object]) -> str:
        """Runs of ordinary cells are dumped in one call each."""
        columns = self.columns
        parts: list[str] = []
        start = 0
        for i, key in self.special:
            value = row[i]
            if isinstance(value, _RawJSON):
                written: str = value
            elif numerals.holds_numeral(value):
                written = numerals.to_json(value)
            else:
                continue
            if start < i:
                run = dict(zip(columns[start:i], row[start:i], strict=True))
                parts.append(json.dumps(run, ensure_ascii=False)[1:-1])
            parts.append(key + written)
            start = i + 1
        if not parts:
            return json.dumps(dict(zip(columns, row, strict=True)), ensure_ascii=False)
        if start < len(row):
            run = dict(zip(columns[start:], row[start:], strict=True))
            parts.append(json.dumps(run, ensure_ascii=False)[1:-1])
        return "{" + ", ".join(parts) + "}"


def _same(value: str) -> str:
    return value
