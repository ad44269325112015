"""Import a data file, or every data file under a folder, into a project: all or nothing,
no duplicate pairs, streaming.

A file is read in its physical format (``adapters/formats/readers.py``) and its records
as one import shape (``domain/import_shapes``: plain pairs, AlpacaEval, HREF, and the
conversation kinds; a FastChat folder is one source, ``fastchat_source.py``), which
gives each record's pair and the verdicts it carries (an AlpacaEval annotator's
preference becomes that annotator's judge verdict on ``overall``; HREF-style human
``annotations`` become human verdicts). Everything is written in one transaction: a bad
record anywhere, in any file, leaves the project exactly as it was, with the file, line
and field named. The report counts what was stored, so importing the same file again
reports that nothing was added.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from desktop.adapters.formats.readers import FORMATS, Record, in_batches, read_records
from desktop.adapters.store.pair_steps import counts_row
from desktop.adapters.store.pairs import PairRow, ids_for_keys, insert_rows, last_id, new_row
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.search_backlog import defer, index_some, unindexed
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes import PLAIN, SHAPES, Shape, shape_named, taken_over
from desktop.domain.import_shapes.base import ShapedRecord
from desktop.domain.numerals import to_json
from desktop.domain.trajectory import TRAJECTORY_RUBRIC
from desktop.services.import_identity import IdCheck
from desktop.services.import_sources import Source, Sources, unstorable_text
from desktop.services.import_verdicts import VerdictCounts, VerdictWriter

# What `--format` takes: a physical format (the records' kind is found in each file) or
# an import shape (the physical format is found in each file).
IMPORT_FORMATS = ("auto", *FORMATS, *(shape.name for shape in SHAPES))
FORMAT_HELP = (
    f"auto (the default: each file's format and kind found), a file format ({', '.join(FORMATS)}),"
    " or a kind of record: " + "; ".join(f"{s.name}: {s.title}" for s in SHAPES)
)

Progress = Callable[[int], None]

#: An import that leaves at most this many pairs outside the search index indexes them
#: before it commits (under a second); a larger one commits without them, and they are
#: indexed after it returns (``search_indexing``), the search reading them whole meanwhile.
INDEX_NOW_MOST = 20_000
_EVERY = 2**62


@dataclass(frozen=True)
class ImportReport:
    records: int
    added: int  # pairs stored
    duplicates: int  # records of pairs the project had, or that an earlier record gave
    judge_verdicts: int  # annotator verdicts stored that the project lacked
    human_verdicts: int  # human verdicts stored
    kind: str  # "pairs", "alpaca-eval", "href", or "mixed" for a folder of several
    judge_replaced: int = 0  # annotator verdicts that changed (a newer file)
    judge_present: int = 0  # annotator verdicts the project already had
    human_present: int = 0
    files: int = 1
    skipped: tuple[str, ...] = ()  # files under a folder without pairs
    present: int = 0  # pairs the project had before, named by records (each counted once)
    repeated: int = 0  # records of a pair an earlier record of this import added
    unindexed: int = 0  # pairs left for the search index to take in after the import

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
            (self.present, "pairs"),
            (self.judge_present, "annotator verdicts"),
            (self.human_present, "human verdicts"),
        ]
        there = [f"{n:,} {what}" for n, what in present if n]
        line = ", ".join(said)
        if there:
            line += f"; already in the project: {', '.join(there)}"
        if self.repeated:  # several votes on one pair, or a pair listed twice
            line += f"; {self.repeated:,} records repeat a pair read before them"
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
    pair_with: str | None = None,
    index_now: int = INDEX_NOW_MOST,
) -> ImportReport:
    """Import ``path``: one data file, or every data file under a folder (see
    ``import_sources``), all in one transaction. ``pair_with``: for a FastChat folder,
    ``all`` (every pair of models, the default) or the baseline model each is paired
    with. The pairs go into the search index before the commit where they are at most
    ``index_now``; else the report's ``unindexed`` says how many wait for
    ``search_indexing``."""
    path = Path(path)
    if fmt not in IMPORT_FORMATS:
        raise ImportDataError(f"unknown format {fmt!r} (known: {', '.join(IMPORT_FORMATS)})")
    named = shape_named(fmt) if fmt not in FORMATS and fmt != "auto" else None
    plan = Sources(path, fmt if fmt in FORMATS else None, named, mapping or {}, pair_with)
    job = _Job(store, rubric)
    with store.bulk_write(), store.transaction():
        defer(store.conn)
        for source in plan:
            job.start_file(source, sniffed=named is None)
            size = source.shape.batch
            for batch in in_batches(source.first, source.rest, size):
                job.write(batch)
                if progress and len(batch) == size:
                    progress(job.records)
        left = _index_if_few(store, index_now)
    if progress:
        progress(job.records)
    return _report(job, plan.count, tuple(plan.skipped), left)


def _index_if_few(store: ProjectStore, most: int) -> int:
    """Inside the import's transaction: index the pairs outside the search index where
    they are at most ``most``; returns about how many are left outside it."""
    left = unindexed(store.conn)
    if left <= most:  # none left: the backlog goes (no later pair is kept out)
        index_some(store.conn, left)
        return 0
    return left


def import_records(
    store: ProjectStore,
    path: Path,
    shape: Shape,
    records: Iterator[Record],
    *,
    progress: Progress | None = None,
) -> ImportReport:
    """Records another source than a data file made (two Inspect AI logs' samples, see
    ``inspect_import.py``), read by ``shape`` and written as a file's are: in one
    transaction, each batch checked before it is written, a re-import adding nothing.
    ``path`` names the source in the report (it is not read again)."""
    first = next(records, None)
    if first is None:
        raise ImportDataError(f"{path}: no records to import")
    job = _Job(store, None)
    source = Source(path, "json", first, records, shape, shape.columns(first[1], {}, first[0]))
    with store.bulk_write(), store.transaction():
        defer(store.conn)
        job.start_file(source, sniffed=False)
        for batch in in_batches(source.first, source.rest, shape.batch):
            job.write(batch)
            if progress and len(batch) == shape.batch:
                progress(job.records)
        left = _index_if_few(store, _EVERY)  # no command here starts an indexer
    if progress:
        progress(job.records)
    return _report(job, 1, (), left)


def _report(job: _Job, files: int, skipped: tuple[str, ...], unindexed: int) -> ImportReport:
    kinds = set(job.kinds)
    counts = job.counts
    return ImportReport(
        records=job.records,
        added=job.added,
        duplicates=job.records - job.added,
        judge_verdicts=counts.judge_added,
        human_verdicts=counts.human_added,
        kind=kinds.pop() if len(kinds) == 1 else "mixed",
        judge_replaced=counts.judge_replaced,
        judge_present=counts.judge_present,
        human_present=counts.human_present,
        files=files,
        skipped=skipped,
        present=len(job.present),
        repeated=job.repeated,
        unindexed=unindexed,
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else str(value)


class _Job:
    """The state of one import; every write happens inside the caller's transaction."""

    def __init__(self, store: ProjectStore, rubric: str | None) -> None:
        self.store, self.rubric_name = store, rubric
        self.records = self.added = self.repeated = 0
        # Rows above this id are this import's: a record naming one that was not added is
        # a repeat within the import, one naming a row below it a pair the project had.
        self.first_new = last_id(store) + 1
        self.present: set[int] = set()
        self.counts = VerdictCounts()
        self.verdicts = VerdictWriter(store, self.counts)
        self.kinds: list[str] = []
        self.done: list[Source] = []  # files read so far, to find an earlier record again
        self.ids = IdCheck(store, self._find_earlier)

    def start_file(self, source: Source, *, sniffed: bool) -> None:
        """``sniffed``: the kind was read off the first record, so a later record of a
        kind that takes over plain pairs (a ``preference`` first given in record 2) still
        has its verdicts read."""
        self.source, self.sniffed = source, sniffed
        self.done.append(source)
        self.kinds.append(source.shape.name)
        self._use(source.shape)

    def _use(self, shape: Shape) -> None:
        self.kinds[-1], self.shape = shape.name, shape
        self.verdicts.use(shape, self.rubric_name or shape.rubric)

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
        if self.shape is PLAIN and self.sniffed:
            later = taken_over(batch)  # no record before this batch was of its kind
            if later is not None:
                self._use(later)
        read, columns = self.shape.read, self.source.columns
        records = [read(where, fields, columns) for where, fields in batch]
        rows = [new_row(r.fields, to_json(r.metadata) if r.metadata else None) for r in records]
        self.ids.check([(where, row) for (where, _), row in zip(batch, rows, strict=True)])
        added = insert_rows(self.store.conn, rows)
        self.added += added
        self.records += len(batch)
        ids: dict[str, int] | None = None
        if added < len(rows):  # some records named pairs already stored
            ids = ids_for_keys(self.store.conn, [row.pair_key for row in rows])
            old = [ids[row.pair_key] for row in rows if ids[row.pair_key] < self.first_new]
            self.present.update(old)
            self.repeated += len(rows) - len(old) - added
        if any(r.answers or r.reviews for r in records):
            if ids is None:
                ids = ids_for_keys(self.store.conn, [row.pair_key for row in rows])
            self._verdicts(records, rows, [ids[row.pair_key] for row in rows])

    def _verdicts(self, records: list[ShapedRecord], rows: list[PairRow], pids: list[int]) -> None:
        """The verdicts ``records`` carry, on the shape's rubric; a person's verdict on two
        runs of an agent on the trajectory rubric (its ``overall``), unless ``--rubric``
        names one or the shape's judge answers were given on its own."""
        if self.rubric_name or self.shape.judge_rubric is not None:
            self.verdicts.write(records, pids)
            return
        runs = [counts_row(r.conversation_a, r.conversation_b, r.tools) is not None for r in rows]
        if not any(runs):
            self.verdicts.write(records, pids)
            return
        for run, rubric in ((False, self.shape.rubric), (True, TRAJECTORY_RUBRIC)):
            picked = [i for i, is_run in enumerate(runs) if is_run is run]
            if picked:
                self.verdicts.use(self.shape, rubric)
                self.verdicts.write([records[i] for i in picked], [pids[i] for i in picked])
        self.verdicts.use(self.shape, self.shape.rubric)

    def _find_earlier(self, external_id: str) -> str | None:
        for source in self.done:
            column = source.columns.by_field.get("external_id")
            if column is None:
                continue
            for where, fields in read_records(source.path, source.fmt):
                value = fields.get(column)
                if value is not None and _text(value) == external_id:
                    return where
        return None
