"""`tiebreak merge` from an export carries conversation pairs whole: from a JSONL export a
pair the project lacks comes in with every message and its compared turn (the same pair,
key and all, that the other project holds), a pair it has is matched on its conversations,
and merging again adds nothing. A CSV export cannot give a conversation back exactly, so a
conversation pair the project lacks stops a CSV merge in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from tests.helpers import new_project, table_digest, tiebreak, write_jsonl
from tests.stats_helpers import add_rubric, review
from tests.test_export_conversations import SHARED_HISTORY, SINGLE, TWO_CONVERSATIONS

DIMS = ("overall",)
# MT-bench's turn 2: two whole conversations, no external id (a pair is its texts then)
MT_BENCH = {
    "question_id": 81,
    "model_a": "alpaca-13b",
    "model_b": "gpt-3.5-turbo",
    "winner": "model_b",
    "judge": "expert_1",
    "conversation_a": [
        {"role": "user", "content": "Write a blog post."},
        {"role": "assistant", "content": "I went."},
        {"role": "user", "content": "Now in 4 lines."},
        {"role": "assistant", "content": "Went, saw."},
    ],
    "conversation_b": [
        {"role": "user", "content": "Write a blog post."},
        {"role": "assistant", "content": "Aloha!"},
        {"role": "user", "content": "Now in 4 lines."},
        {"role": "assistant", "content": "Sun, sea."},
    ],
    "turn": 2,
}
PAIRS = "SELECT pair_key, external_id, instruction, response_a, response_b, model_a, model_b,"
PAIRS += " conversation_a, conversation_b, turn, metadata FROM pairs ORDER BY pair_key"


def theirs(tmp_path: Path) -> Path:
    """Bob's project: two conversation pairs with ids, one single-turn pair, MT-bench's
    vote; his verdicts on each under rubric r."""
    path = new_project(tmp_path, "bob.tiebreak")
    for name, rows in (
        ("talks", [SHARED_HISTORY, TWO_CONVERSATIONS]),
        ("plain", [SINGLE]),
        ("votes", [MT_BENCH]),
    ):
        done = tiebreak("import", path, write_jsonl(tmp_path / f"{name}.jsonl", rows))
        assert done.returncode == 0, done.stderr
    with open_project(path) as store:
        add_rubric(store, "r", DIMS)
        for ref, verdict in (("talk-1", "A"), ("talk-2", "B"), ("one", "tie"), ("#4", "B")):
            review(store, ref, "overall", verdict, dims=DIMS, reviewer="bob")
    return path


def exported(path: Path, out: Path) -> Path:
    done = tiebreak("export", path, out, "--rubric", "r")
    assert done.returncode == 0, done.stderr
    return out


def pairs_of(path: Path) -> list[tuple]:
    with open_project(path) as store:
        return list(store.conn.execute(PAIRS))


def human_verdicts(path: Path) -> set[tuple]:
    with open_project(path) as store:
        return set(
            store.conn.execute(
                "SELECT p.pair_key, h.dimension, h.verdict, h.reviewer FROM human_verdicts h"
                " JOIN pairs p ON p.id = h.pair_id WHERE h.rubric_name = 'r'"
            )
        )


def test_a_jsonl_export_carries_conversation_pairs_whole(tmp_path: Path) -> None:
    bob = theirs(tmp_path)
    out = exported(bob, tmp_path / "bob.jsonl")
    mine = new_project(tmp_path, "ann.tiebreak")
    done = tiebreak("merge", mine, out)
    assert done.returncode == 0, done.stderr
    assert "4 pairs added, 4 human verdicts added" in done.stdout
    # every message, the compared turn and the key: the very pairs Bob's project holds
    assert pairs_of(mine) == pairs_of(bob)
    turns = {row[1] or "mt-bench": row[9] for row in pairs_of(mine)}
    assert turns == {"talk-1": 2, "talk-2": 2, "one": None, "mt-bench": 2}
    assert human_verdicts(mine) == human_verdicts(bob)  # reviewer bob: the file's name
    # again: nothing added, nothing changed
    before = table_digest(mine)
    again = tiebreak("merge", mine, out)
    assert again.returncode == 0, again.stderr
    assert "0 human verdicts added, 4 already there" in again.stdout
    assert table_digest(mine) == before
    # and importing the export into the merged project finds every pair there
    imported = tiebreak("import", mine, out)
    assert "nothing added" in imported.stdout, imported.stdout


def test_a_jsonl_export_matches_the_conversation_pairs_a_project_has(tmp_path: Path) -> None:
    bob = theirs(tmp_path)
    out = exported(bob, tmp_path / "bob.jsonl")
    mine = new_project(tmp_path, "ann.tiebreak")
    for name in ("talks", "plain", "votes"):
        assert tiebreak("import", mine, tmp_path / f"{name}.jsonl").returncode == 0
    with open_project(mine) as store:  # Ann's own project, her own verdicts cleared away
        store.conn.execute("DELETE FROM human_verdicts")
        store.conn.commit()
    before = pairs_of(mine)
    done = tiebreak("merge", mine, out, "--reviewer", "bob")
    assert done.returncode == 0, done.stderr
    assert "4 already in the project, 4 human verdicts added" in done.stdout
    assert pairs_of(mine) == before


def test_the_same_id_with_other_messages_stops_the_merge(tmp_path: Path) -> None:
    bob = theirs(tmp_path)
    out = exported(bob, tmp_path / "bob.jsonl")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").split("\n")[:-1]]
    talk = next(r for r in rows if r["external_id"] == "talk-1")
    talk["conversation_b"][2]["content"] = "And 3+3?"  # an earlier turn, not the compared one
    changed = write_jsonl(tmp_path / "changed.jsonl", [talk])
    mine = new_project(tmp_path, "ann.tiebreak")
    assert tiebreak("import", mine, tmp_path / "talks.jsonl").returncode == 0
    before = table_digest(mine)
    done = tiebreak("merge", mine, changed)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"tiebreak: error: {changed} line 1: pair talk-1 has the same id as pair #1 of the"
        " project but a different conversation_b; nothing was merged"
    ]
    assert table_digest(mine) == before


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"conversation_a": "not a list"}, "field 'conversation_a': must be a list of messages"),
        ({"turn": 7}, "field 'turn': 7 is beyond the conversation"),
        ({"response_a": "something else"}, "field 'response_a' is not the compared turn's"),
    ],
)
def test_a_bad_conversation_in_an_export_is_one_line(
    tmp_path: Path, change: dict, says: str
) -> None:
    bob = theirs(tmp_path)
    out = exported(bob, tmp_path / "bob.jsonl")
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").split("\n")[:-1]]
    rows[1] = {**rows[1], **change}
    bad = write_jsonl(tmp_path / "bad.jsonl", rows)
    mine = new_project(tmp_path, "ann.tiebreak")
    before = table_digest(mine)
    done = tiebreak("merge", mine, bad)
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert f"{bad} line 2: {says}" in done.stderr
    assert table_digest(mine) == before


def test_a_csv_export_cannot_add_a_conversation_but_matches_one(tmp_path: Path) -> None:
    bob = theirs(tmp_path)
    out = exported(bob, tmp_path / "bob.csv")
    empty = new_project(tmp_path, "empty.tiebreak")
    before = table_digest(empty)
    done = tiebreak("merge", empty, out)
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert "a conversation pair the project lacks; a CSV export holds its turns flattened," in (
        done.stderr
    )
    assert "merge the JSONL export" in done.stderr
    assert table_digest(empty) == before
    mine = new_project(tmp_path, "ann.tiebreak")
    for name in ("talks", "plain", "votes"):
        assert tiebreak("import", mine, tmp_path / f"{name}.jsonl").returncode == 0
    done = tiebreak("merge", mine, out, "--reviewer", "bob")
    assert done.returncode == 0, done.stderr
    assert "4 already in the project, 4 human verdicts added" in done.stdout
