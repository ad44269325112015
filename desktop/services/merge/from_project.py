"""Merge from another project file: its pairs matched or added, then its verdict history
copied, each row only if it is newer than the same reviewer's latest verdict here."""

from __future__ import annotations

from typing import Any

from desktop.adapters.store.human_verdicts import every_row, insert_verdict, latest_row
from desktop.adapters.store.pairs import (
    identities_for_keys,
    identity_of,
    ids_for_keys,
    insert_rows,
    stored_rows,
)
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import copy_new_rubrics
from desktop.domain.errors import ImportDataError
from desktop.domain.pairs import identity_clash
from desktop.services.merge.report import BATCH, MergeReport


def merge_project(store: ProjectStore, source: ProjectStore) -> MergeReport:
    """Call inside the caller's transaction."""
    return _ProjectMerge(store, source).run()


class _ProjectMerge:
    def __init__(self, store: ProjectStore, source: ProjectStore) -> None:
        self.store, self.source = store, source
        self.report = MergeReport("project")
        self.ids: dict[int, int] = {}  # source pair id -> project pair id

    def run(self) -> MergeReport:
        for batch in stored_rows(self.source, BATCH):
            self._match(batch)
        copy_new_rubrics(self.store, self.source)
        # Each reviewer's latest verdict here before the merge: their rows from the other
        # file count only if newer (several may share a millisecond, so not the latest
        # row at the moment of inserting).
        before: dict[tuple[int, str, str, str], str | None] = {}
        for row in every_row(self.source):
            pid = self.ids[row["pair_id"]]
            key = (pid, row["rubric_name"], row["dimension"], row["reviewer"])
            if key not in before:
                latest = latest_row(self.store, *key)
                before[key] = latest[1] if latest else None
            stamp = before[key]
            if stamp is not None and stamp >= row["created_at"]:
                self.report.verdicts_present += 1
                continue
            insert_verdict(self.store, {**row, "pair_id": pid})
            self.report.verdicts_added += 1
            self.report.reviewers.add(row["reviewer"])
        return self.report

    def _match(self, batch: list[tuple[Any, ...]]) -> None:
        keys = [row[1] for row in batch]
        known = identities_for_keys(self.store.conn, keys)
        for row in batch:
            if row[1] in known:
                pid, mine = known[row[1]]
                theirs = identity_of(row[1:])
                field = identity_clash(mine, theirs)
                if field is not None:
                    raise ImportDataError(
                        f"{self.source.path}: pair {theirs['external_id']} has the same id as"
                        f" pair #{pid} of {self.store.path} but a different {field};"
                        " nothing was merged"
                    )
        self.report.records += len(batch)
        self.report.matched += len(known)
        self.report.added_pairs += insert_rows(
            self.store.conn, [row[1:] for row in batch if row[1] not in known]
        )
        ids = ids_for_keys(self.store.conn, keys)
        self.ids.update({row[0]: ids[row[1]] for row in batch})
