"""A large import's pairs go into the search index after it returns (``search_backlog``,
m013; ``services/search_indexing``): meanwhile the search finds every match the scan
finds, every change to a pair keeps the index true to the pairs, a failed import leaves no
backlog, and an indexer stopped between chunks is taken up where it stopped."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pair_reader import PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.search_backlog import first_unindexed, index_some, unindexed
from desktop.adapters.store.search_index import (
    _match,
    candidates,
    indexed,
    scan_search,
    text_search,
)
from desktop.cli.main import main
from desktop.domain.errors import ImportDataError
from desktop.services import pair_list
from desktop.services.importing import import_file
from desktop.services.merge import merge_file
from desktop.services.search_indexing import index_backlog, index_in_background
from tests.helpers import new_project, table_digest, write_jsonl
from tests.test_search_index import PAIRS, QUERIES

_IDS = PairQuery(columns=("id",))
#: Beside the index's own pairs (PAIRS, imported first and indexed), pairs an import left
#: outside it: some hold what the first ones hold, some what only they hold.
LATER = [
    {"id": f"L{i}", "instruction": text, "response_a": f"okapi {i}", "response_b": "Café noir"}
    for i, text in enumerate(["air pressure", "東京 データ", "nothing", "100% sure", "ab"] * 3)
]
WORDS = [*QUERIES, "okapi", "okapi 1", "noir", "L3", "L14", "narwhal"]


def _found(store: ProjectStore, condition) -> list[int]:
    return [r.id for r in read_pairs(store, _IDS, where=condition)]


def _listed(store: ProjectStore, query: str) -> list[int]:
    """The pair list's search, paged two by two."""
    ids: list[int] = []
    while True:
        after = ids[-1] if ids else 0
        page = pair_list.list_rows(store, "r", None, search=query, limit=2, after_id=after)
        ids += [r.id for r in page]
        if len(page) < 2:
            return ids


def _all_found_as_by_scan(store: ProjectStore) -> None:
    for query in WORDS:
        expected = _found(store, scan_search(query))
        assert _found(store, text_search(query)) == expected, query
        assert _listed(store, query) == expected, query


def _index_is_true(store: ProjectStore) -> None:
    """The index holds the pairs below the backlog as they now are, and no other: FTS5's
    own check of its structure, then every word's pieces asked of it and of an index built
    afresh of those pairs (with no backlog, FTS5's check against the pairs themselves)."""
    conn = store.conn
    first = first_unindexed(conn)
    if first is None:
        conn.execute("INSERT INTO pairs_search(pairs_search, rank) VALUES ('integrity-check', 1)")
        return
    conn.execute("INSERT INTO pairs_search(pairs_search) VALUES ('integrity-check')")
    conn.execute("DROP TABLE IF EXISTS temp.fresh")
    conn.execute(
        "CREATE VIRTUAL TABLE temp.fresh USING fts5(instruction, response_a, response_b,"
        " tokenize='trigram', detail='none')"
    )
    conn.execute(
        "INSERT INTO temp.fresh(rowid, instruction, response_a, response_b)"
        " SELECT id, instruction, response_a, response_b FROM pairs WHERE id < ?",
        [first],
    )
    for word in WORDS:
        if not indexed(word) or "\x00" in word:
            continue
        match = _match(word)
        ours = conn.execute("SELECT rowid FROM pairs_search(?) ORDER BY rowid", [match])
        fresh = conn.execute("SELECT rowid FROM temp.fresh(?) ORDER BY rowid", [match])
        assert ours.fetchall() == fresh.fetchall(), word
    conn.execute("DROP TABLE temp.fresh")


@pytest.fixture
def behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose first pairs are indexed and whose later ones wait for the index."""
    monkeypatch.setattr(pair_list, "_WINDOWS", (1, 2))  # windows of one, then two
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "first.jsonl", PAIRS))
        report = import_file(store, write_jsonl(tmp_path / "later.jsonl", LATER), index_now=0)
        assert report.unindexed == len(LATER)
        assert first_unindexed(store.conn) == len(PAIRS) + 1
    return path


def test_a_large_import_returns_before_its_pairs_are_indexed_and_the_search_finds_them(
    behind: Path,
) -> None:
    with open_project(behind, readonly=True) as store:
        assert unindexed(store.conn) == len(LATER)
        assert store.conn.execute("SELECT count(*) FROM pairs_search_idx").fetchone()[0] > 0
        _all_found_as_by_scan(store)
        assert _found(store, text_search("okapi")) == list(range(6, 6 + len(LATER)))
        window, more = candidates(store, "okapi", 0, 3)
        assert (window, more) == ([6, 7, 8], True)  # read a window at a time, as the index
    with open_project(behind) as store:
        assert index_backlog(store, chunk=4) == len(LATER)
        assert first_unindexed(store.conn) is None
        _index_is_true(store)
        _all_found_as_by_scan(store)
        # Once built, the index alone answers: no pair is read whole.
        plan = store.conn.execute(
            "EXPLAIN QUERY PLAN SELECT p.id FROM pairs p WHERE p.id > 0 AND "
            + text_search("okapi").sql,
            {"after": 0, **text_search("okapi").params},
        ).fetchall()
        assert any("pairs_search" in row[-1] for row in plan)


def test_changes_merges_and_deletes_while_the_index_is_behind_keep_it_true(
    tmp_path: Path, behind: Path
) -> None:
    other = new_project(tmp_path, "other.tiebreak")
    with open_project(other) as store:
        rows = [
            {"id": "m1", "instruction": "merged zebrafish", "response_a": "a", "response_b": "b"}
        ]
        import_file(store, write_jsonl(tmp_path / "more.jsonl", rows))
    with open_project(behind) as store:
        merge_file(store, other)  # after the backlog: outside the index too
        with store.transaction():
            store.conn.execute("UPDATE pairs SET response_b = 'narwhal' WHERE id IN (2, 8)")
            store.conn.execute("DELETE FROM pairs WHERE id IN (1, 9)")
        _index_is_true(store)
        _all_found_as_by_scan(store)
        assert _found(store, text_search("zebrafish")) == [len(PAIRS) + len(LATER) + 1]
        assert _found(store, text_search("narwhal")) == [2, 8]
        with store.transaction():  # an indexer's chunk, then a change, then the rest
            index_some(store.conn, 3)
            store.conn.execute("UPDATE pairs SET instruction = 'okapi too' WHERE id IN (7, 12)")
        _index_is_true(store)
        index_backlog(store, chunk=5)
        _index_is_true(store)
        _all_found_as_by_scan(store)
        assert _found(store, text_search("okapi too")) == [7, 12]


def test_a_failed_import_leaves_no_backlog(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "first.jsonl", PAIRS))
    before = table_digest(path)
    bad = [
        *LATER,
        {"id": "L0", "instruction": "another text", "response_a": "x", "response_b": "y"},
    ]
    with open_project(path) as store, pytest.raises(ImportDataError, match="already used"):
        import_file(store, write_jsonl(tmp_path / "bad.jsonl", bad), index_now=0)
    assert table_digest(path) == before
    with open_project(path, readonly=True) as store:
        assert first_unindexed(store.conn) is None


def test_a_small_import_is_indexed_before_it_returns(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    with open_project(path) as store:
        report = import_file(store, write_jsonl(tmp_path / "later.jsonl", LATER))
        assert report.unindexed == 0
        assert first_unindexed(store.conn) is None
        again = import_file(store, write_jsonl(tmp_path / "again.jsonl", LATER), index_now=0)
        assert (again.added, again.unindexed) == (0, 0)  # nothing added: no backlog left
        assert first_unindexed(store.conn) is None
        _index_is_true(store)


def test_the_command_line_builds_the_index_and_the_background_one_too(
    tmp_path: Path, behind: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "copy.tiebreak"
    with sqlite3.connect(behind) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    assert main(["index", str(behind)]) == 0
    assert f"{len(LATER)} pairs added to the search index" in capsys.readouterr().out
    with open_project(behind) as store:
        assert first_unindexed(store.conn) is None
        _index_is_true(store)
    assert index_in_background(copy).wait(timeout=60) == 0
    with open_project(copy) as store:
        assert first_unindexed(store.conn) is None
        _index_is_true(store)
        _all_found_as_by_scan(store)
