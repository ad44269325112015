"""Merge another reviewer's human verdicts into a project, from their project file or from
a CSV/JSONL file exported by ``tiebreak export``.

Pairs are matched as import matches them: by the external id where the pair has one (and
then its texts must be the same, and its generators where both name one, or the merge
stops), else by its texts and generators. A pair the project lacks is
added. All or nothing: one transaction, and any problem leaves the project as it was.
Merging the same file again adds nothing. Judge results are not merged; rubric texts the
project lacks are, so every merged verdict still traces to its prompt.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import (
    PAIR_COLUMNS,
    identities_for_keys,
    identity_of,
    ids_for_keys,
    insert_rows,
)
from desktop.adapters.store.project import SQLITE_HEADER, ProjectStore
from desktop.domain.errors import ImportDataError, TiebreakError
from desktop.domain.pairs import identity_clash

BATCH = 1000


@dataclass
class MergeReport:
    kind: str  # "project", "csv" or "jsonl"
    records: int = 0  # pairs (project) or rows (export) read
    matched: int = 0
    added_pairs: int = 0
    verdicts_added: int = 0
    verdicts_present: int = 0  # already in the project, or older than what it holds
    reviewers: set[str] = field(default_factory=set)


def merge_file(
    store: ProjectStore,
    other: str | os.PathLike[str],
    *,
    reviewer: str | None = None,
    rubric: str | None = None,
) -> MergeReport:
    """``reviewer`` and ``rubric`` apply to an export, which says neither who reviewed
    (default: the file's name without extension) nor, if exported without one, which
    rubric (default: its ``rubric`` column)."""
    path = Path(other)
    if not path.is_file():
        raise TiebreakError(f"{path}: no such file")
    if store.path.exists() and os.path.samefile(path, store.path):
        raise TiebreakError(f"{path}: is the project itself; nothing to merge")
    if _is_sqlite(path):
        with open_project(path, readonly=True) as source, store.transaction():
            return _ProjectMerge(store, source).run()
    from desktop.services.merge_export import merge_export

    with store.transaction():
        return merge_export(store, path, reviewer=reviewer or path.stem, rubric=rubric)


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError as exc:
        raise TiebreakError(f"{path}: cannot be read ({exc.strerror})") from None


def latest_created(
    store: ProjectStore, pair_id: int, rubric: str, dimension: str, reviewer: str
) -> tuple[str | None, str | None] | None:
    """(verdict, created_at) of a reviewer's latest verdict, or None if they gave none."""
    row = store.conn.execute(
        "SELECT verdict, created_at FROM human_verdicts WHERE pair_id = ? AND rubric_name = ?"
        " AND dimension = ? AND reviewer = ? ORDER BY id DESC LIMIT 1",
        [pair_id, rubric, dimension, reviewer],
    ).fetchone()
    return (row[0], row[1]) if row else None


def insert_verdict(store: ProjectStore, pair_id: int, row: dict[str, Any]) -> None:
    store.conn.execute(
        "INSERT INTO human_verdicts(pair_id, rubric_name, dimension, verdict, reviewer, note,"
        " mode, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            pair_id,
            row["rubric_name"],
            row["dimension"],
            row["verdict"],
            row["reviewer"],
            row["note"],
            row["mode"],
            row["created_at"],
        ],
    )


class _ProjectMerge:
    """Another project file: its pairs matched or added, then its verdict history copied,
    each row only if it is newer than the same reviewer's latest verdict here."""

    def __init__(self, store: ProjectStore, source: ProjectStore) -> None:
        self.store, self.source = store, source
        self.report = MergeReport("project")
        self.ids: dict[int, int] = {}  # source pair id -> project pair id

    def run(self) -> MergeReport:
        for batch in self._pair_batches():
            self._match(batch)
        self._rubrics()
        rows = self.source.conn.execute(
            "SELECT pair_id, rubric_name, dimension, verdict, reviewer, note, mode, created_at"
            " FROM human_verdicts ORDER BY id"
        )
        names = ("pair_id", "rubric_name", "dimension", "verdict", "reviewer", "note", "mode")
        # Each reviewer's latest verdict here before the merge: their rows from the other
        # file count only if newer (several may share a millisecond, so not the latest
        # row at the moment of inserting).
        before: dict[tuple[int, str, str, str], str | None] = {}
        for values in rows:
            row = dict(zip((*names, "created_at"), values, strict=True))
            pid = self.ids[row["pair_id"]]
            key = (pid, row["rubric_name"], row["dimension"], row["reviewer"])
            if key not in before:
                latest = latest_created(self.store, *key)
                before[key] = latest[1] if latest else None
            stamp = before[key]
            if stamp is not None and stamp >= row["created_at"]:
                self.report.verdicts_present += 1
                continue
            insert_verdict(self.store, pid, row)
            self.report.verdicts_added += 1
            self.report.reviewers.add(row["reviewer"])
        return self.report

    def _pair_batches(self) -> Iterator[list[tuple[Any, ...]]]:
        cursor = self.source.conn.execute(
            f"SELECT id, {', '.join(PAIR_COLUMNS)} FROM pairs ORDER BY id"
        )
        while batch := cursor.fetchmany(BATCH):
            yield batch

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

    def _rubrics(self) -> None:
        """Rubric texts under a name the project does not know yet."""
        have = {r[0] for r in self.store.conn.execute("SELECT DISTINCT name FROM rubrics")}
        for row in self.source.conn.execute(
            "SELECT hash, name, title, dimensions, kind, text, added_at FROM rubrics ORDER BY rowid"
        ):
            if row[1] in have:
                continue
            self.store.conn.execute(
                "INSERT INTO rubrics(hash, name, title, dimensions, kind, text, added_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT(hash) DO NOTHING",
                list(row),
            )


def metadata_text(value: Any) -> str | None:
    """An export's metadata cell (JSON text in CSV, an object in JSONL) as stored."""
    if value in (None, "", {}):
        return None
    if isinstance(value, str):
        try:
            json.loads(value)
        except json.JSONDecodeError:
            return json.dumps({"metadata": value}, ensure_ascii=False)
        return value
    return json.dumps(value, ensure_ascii=False)
