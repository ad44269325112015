"""Merge from an export: the human verdicts of a file written by ``tiebreak export``
(CSV or JSONL).

An export's ``<dim>_human`` column is the reviewers' verdict on each dimension; it comes in
as one reviewer's verdict, marked mode "imported" (whether they saw the judge's verdict is
not known). A CSV export defused formula-like cells with a leading quote, so pairs are
matched on the cells exactly as exported, never on a guess at the original text.

A JSONL export carries a conversation pair whole (``turn``, ``conversation_a``,
``conversation_b``: every message; two trajectories' ``tools`` as stored): it is matched
on its texts, generators, conversations and tools, and a pair the project lacks is added
with every message, the same pair an import of that file makes. A CSV flattens a
conversation's turns into cells it cannot be rebuilt from exactly, so a conversation pair
the project lacks stops a CSV merge, in one line that names the JSONL export instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from desktop.adapters.formats.cells import safe_cell, unescape
from desktop.adapters.formats.readers import Record, in_batches, read_records, sniff_format
from desktop.adapters.store.human_verdicts import insert_verdict
from desktop.adapters.store.pair_keys import content_key
from desktop.adapters.store.pair_reader import Condition, PairQuery, read_pair, read_pairs
from desktop.adapters.store.pairs import PairRow, ids_for_keys, insert_rows, new_row
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import now
from desktop.domain.columns import REQUIRED
from desktop.domain.conversations import ConversationError, messages
from desktop.domain.errors import ImportDataError, RubricError
from desktop.domain.import_shapes.conversation_parts import compared_fields
from desktop.domain.numerals import to_json
from desktop.domain.pairs import CONVERSATION_FIELDS, FIELDS, IDENTITY_FIELDS, identity_clash
from desktop.domain.rubric import dimension_problem
from desktop.domain.verdicts import ACCEPTED, IMPORTED, Mark, answer_from_token
from desktop.services.merge.current import current_rows
from desktop.services.merge.report import BATCH, MergeReport
from desktop.services.overrides import split_answer
from desktop.services.project_rubrics import dimensions_for

NEEDED = ("instruction", "response_a", "response_b", "rubric")
_IDENTITY = PairQuery(columns=("id", *IDENTITY_FIELDS, *CONVERSATION_FIELDS))
_NAMES = {name: name for name in CONVERSATION_FIELDS}
#: A conversation's texts, as a JSONL export gives them: the compared turn's.
Talk = dict[str, str | int | None]
_WITHOUT_ID = Condition("coalesce(p.external_id, '') = ''", {})


def merge_export(
    store: ProjectStore, path: Path, *, reviewer: str, rubric: str | None
) -> MergeReport:
    """Call inside the caller's transaction."""
    fmt = sniff_format(path)
    if fmt == "json":
        raise ImportDataError(f"{path}: expected a project file or an exported CSV or JSONL")
    records = read_records(path, fmt)
    first = next(records, None)
    if first is None:
        raise ImportDataError(f"{path}: no rows to merge")
    dims = _dimensions(path, first[1])
    job = _ExportMerge(store, fmt, dims, reviewer, rubric)
    for batch in in_batches(first, records, BATCH):
        job.write(batch)
    return job.report


def _dimensions(path: Path, fields: Mapping[str, object]) -> list[str]:
    missing = [c for c in NEEDED if c not in fields]
    dims = [c.removesuffix("_human") for c in fields if c.endswith("_human")]
    if missing or not dims:
        what = f"no column {missing[0]!r}" if missing else "no <dimension>_human column"
        raise ImportDataError(
            f"{path}: not a file written by 'tiebreak export' ({what}); to add pairs or"
            " annotations from a data file, use 'tiebreak import'"
        )
    return dims


class _ExportMerge:
    def __init__(
        self,
        store: ProjectStore,
        fmt: str,
        dims: list[str],
        reviewer: str,
        rubric: str | None,
    ) -> None:
        self.store, self.csv, self.dims = store, fmt == "csv", dims
        self.reviewer, self.rubric = reviewer, rubric
        self.report = MergeReport(fmt)
        self._by_cells: dict[str, int] | None = None
        self._by_talks: dict[str, int] | None = None
        self._dims: dict[str, tuple[str, ...] | None] = {}  # rubric -> its dimensions
        self.stamp = now()

    def write(self, batch: list[Record]) -> None:
        if not batch:
            return
        self.report.records += len(batch)
        talks = [self._talk(where, fields) for where, fields in batch]
        found = self._find(batch, talks)
        new = {
            i: self._pair_row(fields, talks[i])
            for i, (_, fields) in enumerate(batch)
            if found[i] is None
        }
        if new:
            self.report.added_pairs += insert_rows(self.store.conn, list(new.values()))
            ids = ids_for_keys(self.store.conn, [row.pair_key for row in new.values()])
            for i, row in new.items():
                found[i] = ids[row.pair_key]
        self.report.matched += len(batch) - len(new)
        for (where, fields), pid in zip(batch, found, strict=True):
            assert pid is not None
            self._verdicts(where, fields, pid)

    def _talk(self, where: str, fields: Mapping[str, object]) -> Talk | None:
        """A JSONL row's conversations, checked, as the pair fields they give (all None
        for the implied conversations of a single-turn pair), or None without any."""
        if self.csv or (
            fields.get("conversation_a") is None and fields.get("conversation_b") is None
        ):
            return None
        try:
            a = messages(fields.get("conversation_a"), "conversation_a")
            b = messages(fields.get("conversation_b"), "conversation_b")
        except ConversationError as exc:
            raise ImportDataError(
                f"{where}: field {exc.field!r}: {exc}; nothing was merged"
            ) from None
        tools = fields.get("tools")
        talk = compared_fields(where, a, b, fields.get("turn"), _NAMES, tools or None)
        for name in REQUIRED:
            if (fields.get(name) or "") != talk[name]:
                raise ImportDataError(
                    f"{where}: field {name!r} is not the compared turn's in the conversations;"
                    " nothing was merged"
                )
        return talk

    def _find(self, batch: list[Record], talks: list[Talk | None]) -> list[int | None]:
        """The project's pair for each row, checked to have the same text."""
        by_id = ids_for_keys(
            self.store.conn,
            ["id:" + ext for _, f in batch for ext in self._id_candidates(f)],
        )
        out: list[int | None] = []
        for (where, fields), talk in zip(batch, talks, strict=True):
            candidates = self._id_candidates(fields)
            if candidates:
                pid = next((by_id[k] for k in ("id:" + c for c in candidates) if k in by_id), None)
                if pid is not None:
                    self._check_same(where, fields, pid, talk)
            elif talk is not None:
                pid = self._talk_index().get(self._talk_key(fields, talk))
            else:
                pid = self._cell_index().get(self._cells_key(fields))
            if pid is None and self.csv and _flattened_conversation(fields):
                raise ImportDataError(
                    f"{where}: a conversation pair the project lacks; a CSV export holds its"
                    " turns flattened, so merge the JSONL export (tiebreak export PROJECT"
                    " FILE.jsonl) to add it whole; nothing was merged"
                )
            out.append(pid)
        return out

    def _id_candidates(self, fields: Mapping[str, object]) -> list[str]:
        """The external id a row names: in a CSV the cell may carry ``safe_cell``'s quote,
        so the unquoted id is tried first, then the cell as it is."""
        cell = fields.get("external_id")
        if cell in (None, ""):
            return []
        cell = str(cell)
        return list(dict.fromkeys((unescape(cell), cell))) if self.csv else [cell]

    def _cells(self, fields: Mapping[str, object]) -> list[str]:
        """The row's IDENTITY_FIELDS cells, as exported."""
        return ["" if fields.get(f) is None else str(fields.get(f)) for f in IDENTITY_FIELDS]

    def _cells_key(self, fields: Mapping[str, object]) -> str:
        return content_key(None, *self._cells(fields))

    def _talk_key(self, fields: Mapping[str, object], talk: Talk) -> str:
        turn = talk["turn"]
        conversation = None
        if turn is not None:
            conversation = (str(talk["conversation_a"]), str(talk["conversation_b"]), int(turn))
        tools = talk["tools"]
        return content_key(
            None,
            *self._cells(fields),
            conversation=conversation,
            tools=None if tools is None else str(tools),
        )

    def _talk_index(self) -> dict[str, int]:
        """Pairs without an external id, keyed by their texts, generators and
        conversations (a JSONL export's rows are matched so)."""
        if self._by_talks is None:
            self._by_talks = {}
            for pair in read_pairs(self.store, _IDENTITY, where=_WITHOUT_ID):
                f = pair.fields
                turn, side_a, side_b = f.turn, f.conversation_a, f.conversation_b
                conversation = None
                if turn is not None and side_a is not None and side_b is not None:
                    conversation = (side_a, side_b, turn)  # a conversation pair's sides
                texts = (getattr(f, name) for name in IDENTITY_FIELDS)
                key = content_key(None, *texts, conversation=conversation, tools=f.tools)
                self._by_talks.setdefault(key, pair.id)
        return self._by_talks

    def _as_exported(self, text: str | None) -> str:
        text = text or ""
        return safe_cell(text) if self.csv else text

    def _cell_index(self) -> dict[str, int]:
        """Pairs without an external id, keyed by their texts and generators as an export
        writes them."""
        if self._by_cells is None:
            self._by_cells = {}
            for pair in read_pairs(self.store, _IDENTITY, where=_WITHOUT_ID):
                texts = (getattr(pair.fields, name) for name in IDENTITY_FIELDS)
                key = content_key(None, *(self._as_exported(t) for t in texts))
                self._by_cells.setdefault(key, pair.id)
        return self._by_cells

    def _check_same(
        self, where: str, fields: Mapping[str, object], pid: int, talk: Talk | None
    ) -> None:
        """The same texts, the same generators where both name one (as import), and from
        a JSONL export the same conversations."""
        pair = read_pair(self.store, _IDENTITY, pid)
        assert pair is not None  # found by its id a moment ago
        mine: dict[str, str | int | None] = {
            f: self._as_exported(getattr(pair.fields, f)) for f in IDENTITY_FIELDS
        }
        theirs: dict[str, str | int | None] = dict(
            zip(IDENTITY_FIELDS, self._cells(fields), strict=True)
        )
        if talk is not None:
            mine.update({f: getattr(pair.fields, f) for f in CONVERSATION_FIELDS})
            theirs.update({f: talk[f] for f in CONVERSATION_FIELDS})
        field = identity_clash(mine, theirs)
        if field is not None:
            raise ImportDataError(
                f"{where}: pair {fields['external_id']} has the same id as pair #{pid}"
                f" of the project but a different {field}; nothing was merged"
            )

    def _pair_row(self, fields: Mapping[str, object], talk: Talk | None) -> PairRow:
        def text(name: str) -> str | None:
            value = fields.get(name)
            if value is None or value == "":
                return None
            value = str(value)
            return unescape(value) if self.csv else value

        ids = self._id_candidates(fields)
        values: dict[str, str | int | None] = {f: text(f) for f in FIELDS}
        values["external_id"] = ids[0] if ids else None
        for name in REQUIRED:  # a pair's texts are never absent, an empty one is ""
            values[name] = values[name] or ""
        if talk is not None:  # every message, as an import of the export stores them
            values.update({f: talk[f] for f in CONVERSATION_FIELDS})
        return new_row(values, metadata_text(fields.get("metadata")))

    def _verdicts(self, where: str, fields: Mapping[str, object], pid: int) -> None:
        named = fields.get("rubric")
        rubric = self.rubric or (str(named) if named else None)
        current = None  # what the project holds for this pair, read once it is needed
        for dim in self.dims:
            value = fields.get(f"{dim}_human")
            if value in (None, ""):
                continue
            answer = answer_from_token(str(value))
            if answer is None or (isinstance(answer, Mark) and answer is not Mark.BOTH_BAD):
                raise ImportDataError(
                    f"{where}: column {dim}_human: {value!r} is not A, B, tie or bothbad"
                )
            verdict, mark = split_answer(answer)
            assert verdict is not None
            if rubric is None:
                raise ImportDataError(f"{where}: no rubric; name it with --rubric")
            self._check_dimension(where, rubric, dim)
            if current is None:
                current = current_rows(self.store, pid, rubric)
            latest = current.get((dim, self.reviewer))
            if latest is not None and (latest.verdict, latest.mark) == (verdict, mark):
                self.report.verdicts_present += 1
                continue
            # An accept stays an accept: figures comparing people with the judge leave it out.
            accepted = fields.get(f"{dim}_source") == ACCEPTED
            insert_verdict(
                self.store,
                {
                    "pair_id": pid,
                    "rubric_name": rubric,
                    "dimension": dim,
                    "verdict": verdict.value,
                    "reviewer": self.reviewer,
                    "note": None,
                    "mode": ACCEPTED if accepted else IMPORTED,
                    "created_at": self.stamp,
                    "mark": mark.value if mark else None,
                },
            )
            self.report.verdicts_added += 1
            self.report.reviewers.add(self.reviewer)

    def _check_dimension(self, where: str, rubric: str, dim: str) -> None:
        """A verdict on a dimension the rubric lacks would be counted nowhere and exported
        under a column of its own: refused. A rubric this project has never seen (a
        colleague's own) has no dimensions to check against; its names must still be
        dimension names."""
        if rubric not in self._dims:
            try:
                self._dims[rubric] = dimensions_for(self.store, rubric)
            except RubricError:
                self._dims[rubric] = None
        dims = self._dims[rubric]
        if dims is not None and dim not in dims:
            raise ImportDataError(
                f"{where}: column {dim}_human: rubric {rubric!r} has no dimension {dim!r}"
                f" (its dimensions: {', '.join(dims)}); nothing was merged"
            )
        problem = dimension_problem(dim) if dims is None else None
        if problem is not None:
            raise ImportDataError(f"{where}: column {dim}_human: {problem}; nothing was merged")


def _flattened_conversation(fields: Mapping[str, object]) -> bool:
    """A CSV row of a conversation of more than one turn (or with a system message), or of
    two trajectories (a run in a cell): what its cells (``conversation_export.csv_columns``,
    ``TRAJECTORY_CSV_COLUMNS``) cannot give back exactly."""
    if str(fields.get("turn") or "1") != "1" or fields.get("system"):
        return True
    if fields.get("trajectory_a") or fields.get("trajectory_b"):
        return True
    return any(
        value not in (None, "")
        for name, value in fields.items()
        if name.startswith("turn_") and not name.startswith("turn_1_")
    )


def metadata_text(value: object) -> str | None:
    """An export's metadata cell (JSON text in CSV, an object in JSONL) as stored."""
    if value in (None, "", {}):
        return None
    if isinstance(value, str):
        try:
            json.loads(value)
        except json.JSONDecodeError:
            return json.dumps({"metadata": value}, ensure_ascii=False)
        return value
    return to_json(value)  # numbers as the file wrote them
