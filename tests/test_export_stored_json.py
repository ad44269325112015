"""A JSONL export writes a conversation and the metadata as the project stores them, each
checked first: a stored text that is not one JSON value of its kind (a forged or damaged
file) stops the export in one line, and no file is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.test_export_conversations import SHARED_HISTORY, SINGLE


def project(tmp_path: Path, talk: str) -> Path:
    """A conversation pair (its record's JSON text as given) and a single-turn pair."""
    path = new_project(tmp_path)
    (tmp_path / "talk.jsonl").write_text(talk + "\n", encoding="utf-8")
    for data in (tmp_path / "talk.jsonl", write_jsonl(tmp_path / "one.jsonl", [SINGLE])):
        done = tiebreak("import", path, data)
        assert done.returncode == 0, done.stderr
    return path


@pytest.mark.parametrize(
    ("column", "stored"),
    [
        ("conversation_a", '[], "injected": [1]'),
        ("conversation_b", '{"role": "user", "content": "not a list"}'),
        ("metadata", '{"a": 1} {"b": 2}'),
    ],
)
def test_a_stored_text_that_is_not_json_stops_the_export(
    tmp_path: Path, column: str, stored: str
) -> None:
    path = project(tmp_path, json.dumps({**SHARED_HISTORY, "note": "kept as metadata"}))
    with open_project(path) as store:
        store.conn.execute(f"UPDATE pairs SET {column} = ? WHERE external_id = 'talk-1'", (stored,))
        store.conn.commit()
    out = tmp_path / "out.jsonl"
    done = tiebreak("export", path, out)
    assert done.returncode == 1 and not out.exists()
    assert done.stderr.splitlines() == [
        f"tiebreak: error: pair #1: its stored {column} is not valid; nothing was written"
    ]


def test_stored_texts_are_written_as_they_are(tmp_path: Path) -> None:
    numbers = ', "score": 1.50, "big": 123456789012345678901234567890}'
    path = project(tmp_path, json.dumps(SHARED_HISTORY)[:-1] + numbers)
    out = tmp_path / "out.jsonl"
    assert tiebreak("export", path, out).returncode == 0
    lines = out.read_text(encoding="utf-8").split("\n")[:-1]
    with open_project(path) as store:
        stored = store.conn.execute(
            "SELECT conversation_a, metadata FROM pairs WHERE external_id = 'talk-1'"
        ).fetchone()
    talk = next(line for line in lines if '"talk-1"' in line)
    assert f'"conversation_a": {stored[0]}, ' in talk
    assert talk.endswith(f'"metadata": {stored[1]}}}')
    assert '"score": 1.50' in talk and '"big": 123456789012345678901234567890' in talk
    assert json.loads(talk)["conversation_a"] == SHARED_HISTORY["conversation_a"]
