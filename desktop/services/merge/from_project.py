"""Merge from another project file: its pairs matched or added, then its verdict history
copied, each row only if it is newer than the same reviewer's latest verdict here."""

from __future__ import annotations

from collections.abc import Iterator

from desktop.adapters.store.human_verdicts import every_row, insert_verdict
from desktop.adapters.store.pair_reader import EVERY_STORED_FIELD, PairQuery, read_pairs
from desktop.adapters.store.pairs import identities_for_keys, ids_for_keys, insert_rows, stored_row
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import copy_new_rubrics
from desktop.domain.errors import ImportDataError
from desktop.domain.pair_record import PairRecord
from desktop.domain.pairs import identity_clash
from desktop.services.merge.current import current_rows
from desktop.services.merge.report import BATCH, MergeReport

# A pair as the other file stores it: its key, conversations and metadata text are copied
# as they are.
_STORED = PairQuery(columns=(*EVERY_STORED_FIELD, "pair_key", "metadata_text"))


def merge_project(store: ProjectStore, source: ProjectStore) -> MergeReport:
    """Call inside the caller's transaction."""
    return _ProjectMerge(store, source).run()


class _ProjectMerge:
    def __init__(self, store: ProjectStore, source: ProjectStore) -> None:
        self.store, self.source = store, source
        self.report = MergeReport("project")
        self.ids: dict[int, int] = {}  # source pair id -> project pair id

    def run(self) -> MergeReport:
        for batch in _batches(read_pairs(self.source, _STORED)):
            self._match(batch)
        copy_new_rubrics(self.store, self.source)
        # Each reviewer's current row here before the merge, read once per pair and rubric
        # before any row of theirs is added: rows from the other file count only if newer
        # (several may share a millisecond, so not the latest row at the moment of inserting).
        before: dict[tuple[int, str], dict[tuple[str, str], str]] = {}
        for row in every_row(self.source):
            pid = self.ids[row["pair_id"]]
            key = (pid, row["rubric_name"])
            if key not in before:
                current = current_rows(self.store, *key)
                before[key] = {slot: r.created_at for slot, r in current.items()}
            stamp = before[key].get((row["dimension"], row["reviewer"]))
            if stamp is not None and stamp >= row["created_at"]:
                self.report.verdicts_present += 1
                continue
            insert_verdict(self.store, {**row, "pair_id": pid})
            self.report.verdicts_added += 1
            self.report.reviewers.add(row["reviewer"])
        return self.report

    def _match(self, batch: list[PairRecord]) -> None:
        pairs = [record.fields for record in batch]
        keys = [pair.pair_key for pair in pairs]
        known = identities_for_keys(self.store.conn, keys)
        for theirs in pairs:
            if theirs.pair_key in known:
                pid, mine = known[theirs.pair_key]
                field = identity_clash(mine, theirs._asdict())
                if field is not None:
                    raise ImportDataError(
                        f"{self.source.path}: pair {theirs.external_id} has the same id as"
                        f" pair #{pid} of {self.store.path} but a different {field};"
                        " nothing was merged"
                    )
        self.report.records += len(batch)
        self.report.matched += len(known)
        new = [pair for pair in pairs if pair.pair_key not in known]
        self.report.added_pairs += insert_rows(
            self.store.conn, [stored_row(pair._asdict(), pair.metadata_text) for pair in new]
        )
        ids = ids_for_keys(self.store.conn, keys)
        self.ids.update({pair.id: ids[pair.pair_key] for pair in pairs})


def _batches(records: Iterator[PairRecord]) -> Iterator[list[PairRecord]]:
    batch: list[PairRecord] = []
    for record in records:
        batch.append(record)
        if len(batch) == BATCH:
            yield batch
            batch = []
    if batch:
        yield batch
