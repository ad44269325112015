"""The list's search through the full-text index (migration m005): the same pairs as the
scan it replaced, for any text, and kept in step with every way a pair arrives, changes or
goes (import, merge, a migration of an older file, a delete)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pair_reader import PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.search_index import scan_search, text_search
from desktop.services.importing import import_file
from desktop.services.merge import merge_file
from tests.helpers import new_project, write_jsonl

_IDS = PairQuery(columns=("id",))

PAIRS = [
    {
        "id": "p1",
        "instruction": "Où est la Tour Eiffel ?",
        "response_a": "À Paris, café",
        "response_b": "CAFÉ crème brûlée",
    },
    {
        "id": "p2",
        "instruction": "Explain ALTITUDE",
        "response_a": "air pressure drops",
        "response_b": '100% sure_thing \\o/ "quoted" it\'s',
    },
    {"id": "p3", "instruction": "東京 データ", "response_a": "模型 回答 🙂🙂", "response_b": "ab"},
    {"id": "ab", "instruction": "straße Straße STRASSE", "response_a": "ß", "response_b": "x"},
    {"id": "p5", "instruction": "ελληνικά Λόγος", "response_a": "ответ Вопрос", "response_b": "aB"},
]
# Case (ASCII folds, other letters do not, as LIKE), non-ASCII text, quotes and wildcards
# taken literally, texts of one and two characters (no three-character piece: a scan),
# an external id, a text longer than the index is asked about.
QUERIES = [
    "café",
    "Café",
    "CAFÉ",
    "caf",
    "altitude",
    "ALTITUDE",
    "AlTiTuDe",
    "air pressure drops",
    "100%",
    "%",
    "_",
    "sure_thing",
    "\\o/",
    '"quoted"',
    "it's",
    "東京",
    "東京 デ",
    "データ",
    "🙂🙂",
    "模型 回答 🙂",
    "straße",
    "STRASSE",
    "Straße",
    "ß",
    "ss",
    "ab",
    "aB",
    "a",
    "λόγος",
    "Λόγος",
    "вопрос",
    "Вопрос",
    "p2",
    "p",
    "nothing here",
    " ",
    "ère brû",
    "Où est la Tour",
    "Où est la Tour Eiffel ? À Paris" * 3,
    "x",
    "xyz",
]


def _found(store: ProjectStore, condition) -> list[int]:
    return [r.id for r in read_pairs(store, _IDS, where=condition)]


def _same_as_scan(store: ProjectStore, queries: list[str]) -> None:
    for query in queries:
        assert _found(store, text_search(query)) == _found(store, scan_search(query)), query


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", PAIRS))
    return path


def test_the_index_finds_what_the_scan_finds(project: Path) -> None:
    with open_project(project, readonly=True) as store:
        _same_as_scan(store, QUERIES)
        assert _found(store, text_search("café")) == [1]  # ASCII folds, É and é do not
        assert _found(store, text_search("CAFÉ")) == [1]
        assert _found(store, text_search("ALTITUDE")) == [2]
        assert _found(store, text_search("ab")) == [3, 4, 5]  # a scan: "ab", "aB", id "ab"
        assert _found(store, text_search("100%")) == [2]
        plan = store.conn.execute(
            "EXPLAIN QUERY PLAN SELECT p.id FROM pairs p WHERE p.id > 0 AND "
            + text_search("altitude").sql,
            {"after": 0, **text_search("altitude").params},
        ).fetchall()
        assert any("pairs_search" in row[-1] for row in plan)  # the index, not a scan


def test_every_pair_of_real_data_is_found_as_the_scan_finds_it(
    tmp_path: Path, alpaca_file: Path
) -> None:
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, alpaca_file)
        words = [
            "the",
            "The",
            "Python",
            "recipe",
            "é",
            "—",
            "ing a",
            "Hello!",
            "2023",
            "cannot",
            "```",
            "München",
            "€",
            "quantum entanglement",
        ]
        _same_as_scan(store, words)
        assert len(_found(store, text_search("the"))) > 700


def test_the_index_follows_imports_merges_changes_and_deletes(
    tmp_path: Path, project: Path
) -> None:
    other = new_project(tmp_path, "other.tiebreak")
    with open_project(other) as store:
        import_file(
            store,
            write_jsonl(
                tmp_path / "more.jsonl",
                [
                    {
                        "id": "m1",
                        "instruction": "merged zebrafish",
                        "response_a": "a",
                        "response_b": "b",
                    }
                ],
            ),
        )
    with open_project(project) as store:
        import_file(
            store,
            write_jsonl(
                tmp_path / "new.jsonl",
                [
                    {
                        "id": "n1",
                        "instruction": "imported okapi",
                        "response_a": "a",
                        "response_b": "b",
                    }
                ],
            ),
        )
        assert _found(store, text_search("okapi")) == [6]
        merge_file(store, other)
        assert _found(store, text_search("zebrafish")) == [7]
        with store.transaction():
            store.conn.execute("UPDATE pairs SET response_b = 'narwhal' WHERE id = 2")
            store.conn.execute("DELETE FROM pairs WHERE id = 1")
        assert _found(store, text_search("narwhal")) == [2]
        assert _found(store, text_search("pressure")) == [2]
        assert _found(store, text_search("quoted")) == []  # its old text is gone
        assert _found(store, text_search("café")) == []  # so is the deleted pair
        _same_as_scan(store, [*QUERIES, "okapi", "zebrafish", "narwhal"])


def test_an_older_project_gets_its_index_when_opened(tmp_path: Path) -> None:
    from sqlite_utils import Database

    from desktop.adapters.store.migrations import APPLICATION_ID, migrations

    path = tmp_path / "old.tiebreak"
    db = Database(path)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    migrations.apply(db, stop_before="m005_search_index")
    for i, pair in enumerate(PAIRS, 1):
        db.execute(
            "INSERT INTO pairs(id, pair_key, external_id, instruction, response_a, response_b)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [i, f"k{i}", pair["id"], pair["instruction"], pair["response_a"], pair["response_b"]],
        )
    db.conn.commit()
    db.close()
    with open_project(path, readonly=True) as store:  # brought up to date, then read
        assert _found(store, text_search("altitude")) == [2]
        _same_as_scan(store, QUERIES)


def test_the_list_pages_a_search_window_by_window_as_the_scan_finds(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.services import pair_list

    monkeypatch.setattr(pair_list, "_WINDOWS", (1, 2))  # windows of one, then two
    with open_project(project, readonly=True) as store:
        for query in QUERIES:
            listed = [r.id for r in pair_list.list_rows(store, "r", None, search=query, limit=2)]
            listed += (
                [
                    r.id
                    for r in pair_list.list_rows(
                        store,
                        "r",
                        None,
                        search=query,
                        limit=10,
                        after_id=listed[-1] if listed else 0,
                    )
                ]
                if len(listed) == 2
                else []
            )
            assert listed == _found(store, scan_search(query)), query


def test_filters_by_category_and_generator_and_sorts(tmp_path: Path) -> None:
    from desktop.adapters.store.pair_filters import categories, generators
    from desktop.services.pair_list import list_rows, ordering

    path = new_project(tmp_path)
    rows = [
        {
            "id": f"e{9 - i}",
            "instruction": f"q{i} café",
            "response_a": "a",
            "response_b": "b",
            "category": ["math", None, "code"][i % 3],
            "model_a": f"m{i % 2}",
            "model_b": "base",
        }
        for i in range(9)
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "f.jsonl", rows))
        assert categories(store) == ["", "code", "math"]
        assert generators(store) == ["base", "m0", "m1"]

        def ids(**options) -> list[int]:
            return [r.id for r in list_rows(store, "r", None, limit=100, **options)]

        assert ids(category="math") == [1, 4, 7]
        assert ids(category="") == [2, 5, 8]  # no category
        assert ids(generator="m1") == [2, 4, 6, 8]
        assert ids(generator="base") == list(range(1, 10))
        assert ids(generator="m1", category="code", search="café") == [6]
        assert ids(order=ordering("#", True, None)) == [9, 8, 7, 6, 5, 4, 3, 2, 1]
        assert ids(order=ordering("id", False, None)) == [9, 8, 7, 6, 5, 4, 3, 2, 1]  # e1 … e9
        by_category = ids(order=ordering("category", False, None))
        assert by_category == [2, 5, 8, 3, 6, 9, 1, 4, 7]  # '' < code < math, then by id
        # Read on page by page from the last row: the same order, nothing twice.
        paged, last = [], None
        while page := list_rows(store, "r", None, limit=2, order=ordering("category", True, last)):
            paged += [r.id for r in page]
            last = page[-1]
        assert paged == by_category[::-1]
        assert ids(order=ordering("category", False, None), search="café", category="code") == [
            3,
            6,
            9,
        ]
