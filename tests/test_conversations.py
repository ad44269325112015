"""A pair may be two conversations: the model (domain/conversations.py, Pair), its
storage (migration m004, the pair key) and what a single-turn project keeps of itself."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from sqlite_utils import Database

from desktop.adapters.store import open_project
from desktop.adapters.store.migrations import migrations
from desktop.adapters.store.pairs import get_pair, insert_rows
from desktop.adapters.store.schema import APPLICATION_ID
from desktop.domain.conversation_comparison import compare, pair_fields, shared_history, turn_fields
from desktop.domain.conversations import (
    ConversationError,
    ConversationShape,
    Message,
    messages,
    to_json,
)
from desktop.domain.pairs import PairContent
from desktop.services.importing import import_file
from tests.helpers import new_project, pair_row, table_digest, write_jsonl

U1, U2 = Message("user", "Name a prime."), Message("user", "And one more?")
A1, B1 = Message("assistant", "7"), Message("assistant", "Eleven.")
A2, B2 = Message("assistant", "13"), Message("assistant", "Seventeen.")
SYSTEM = Message("system", "Answer briefly.")


def test_a_shared_history_is_compared_at_its_last_answer() -> None:
    a, b = (SYSTEM, U1, A1, U2, A2), (SYSTEM, U1, A1, U2, B2)
    got = compare(a, b)
    assert (got.turn, got.instruction, got.response_a, got.response_b) == (
        2,
        "And one more?",
        "13",
        "Seventeen.",
    )
    assert got.shape is ConversationShape.SHARED_HISTORY
    assert shared_history(a, b, 2) == (SYSTEM, U1, A1, U2)


def test_two_conversations_share_user_turns_and_differ_in_earlier_answers() -> None:
    a, b = (U1, A1, U2, A2), (U1, B1, U2, B2)
    got = compare(a, b, 2)
    assert got.shape is ConversationShape.TWO_CONVERSATIONS
    assert shared_history(a, b, 2) == (U1,)
    first = compare(a, b, 1)  # turn 1 of the same chats: the turns after it are kept
    assert (first.instruction, first.response_a, first.response_b) == (
        "Name a prime.",
        "7",
        "Eleven.",
    )


@pytest.mark.parametrize(
    ("a", "b", "turn", "field", "says"),
    [
        ((U1, A1), (U1, B1), 2, "turn", "2 is beyond the conversation: A has 1 assistant turn"),
        ((U1, A1, U2, A2), (U1, B1, U2, B2), 0, "turn", "must be a whole number from 1"),
        ((U1, A1, U2, A2), (U1, B1, U1, B2), 2, "conversation_b", "user turn 2 differs"),
        ((SYSTEM, U1, A1), (U1, B1), 1, "conversation_b", "A has a system message where B"),
        ((U1, A1, U2, A2), (U1, B1), None, "turn", "A has 2 assistant turns, B 1"),
        ((A1, U1), (B1, U1), 1, "conversation_a", "answers no user message"),
    ],
)
def test_what_cannot_be_compared_is_refused_naming_the_field(
    a: tuple[Message, ...], b: tuple[Message, ...], turn: int | None, field: str, says: str
) -> None:
    with pytest.raises(ConversationError, match=says) as caught:
        compare(a, b, turn)
    assert caught.value.field == field


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("hi", "must be a list of messages, got text"),
        ([], "holds no messages"),
        (["hi"], "message 1 must be an object"),
        ([{"role": "human", "content": "hi"}], "message 1 has role 'human'; a role is one of"),
        (
            [{"role": "user", "content": None}],
            r"message 1 \(user\): content must be text or a list of parts, got null",
        ),
        (
            [{"role": "assistant", "content": None}],
            r"content must be text or a list of parts \(null only beside tool calls\)",
        ),
    ],
)
def test_a_side_that_is_not_a_list_of_messages_is_refused(value: object, says: str) -> None:
    with pytest.raises(ConversationError, match=says):
        messages(value, "conversation_a")


def test_a_message_with_members_of_its_own_is_kept_with_them() -> None:
    side = messages([{"role": "user", "content": "hi", "name": "x"}], "conversation_a")
    assert (
        side[0].content == "hi"
        and to_json(side) == '[{"role": "user", "content": "hi", "name": "x"}]'
    )


def test_per_turn_fields_are_fastchats_names() -> None:
    fields = turn_fields((U1, A1, U2, A2), (U1, B1, U2, B2), 2, references=("5", "19"))
    assert fields == {
        "turn": 2,
        "question": "And one more?",
        "answer_a": "13",
        "answer_b": "Seventeen.",
        "question_1": "Name a prime.",
        "answer_a_1": "7",
        "answer_b_1": "Eleven.",
        "question_2": "And one more?",
        "answer_a_2": "13",
        "answer_b_2": "Seventeen.",
        "ref_answer_1": "5",
        "ref_answer_2": "19",
    }


def test_one_request_and_one_answer_is_a_single_turn_pair() -> None:
    assert pair_fields((U1, A1), (U1, B1)) == {
        "instruction": "Name a prime.",
        "response_a": "7",
        "response_b": "Eleven.",
        "conversation_a": None,
        "conversation_b": None,
        "turn": None,
        "tools": None,
    }
    assert pair_fields((SYSTEM, U1, A1), (SYSTEM, U1, B1))["turn"] == 1  # the system is kept


def test_swapping_a_conversation_pair_exchanges_whole_sides() -> None:
    pair = PairContent(
        "And one more?",
        "13",
        "Seventeen.",
        model_a="x",
        model_b="y",
        conversation_a=(U1, A1, U2, A2),
        conversation_b=(U1, B1, U2, B2),
        turn=2,
    )
    swapped = pair.swapped()
    assert swapped.conversations() == ((U1, B1, U2, B2), (U1, A1, U2, A2))
    assert (swapped.response_a, swapped.model_a, swapped.turn) == ("Seventeen.", "y", 2)
    single = PairContent("Name a prime.", "7", "Eleven.")
    assert single.conversations() == ((U1, A1), (U1, B1)) and single.compared_turn == 1


def test_a_conversation_pair_is_stored_and_read_back_exactly(tmp_path: Path) -> None:
    tricky = Message("assistant", 'She said "13"\n\n\\u00e9 — ✅ {{ x }} \u2028')
    pair = PairContent(
        "And one more?",
        tricky.content,
        "Seventeen.",
        conversation_a=(SYSTEM, U1, A1, U2, tricky, U1, A1),
        conversation_b=(SYSTEM, U1, B1, U2, B2),
        turn=2,
    )
    with open_project(new_project(tmp_path)) as store, store.transaction():
        assert insert_rows(store.conn, [pair_row(pair)]) == 1
        assert insert_rows(store.conn, [pair_row(pair)]) == 0  # the same pair
        other_turn = PairContent(**{**pair.__dict__, "turn": 1})
        assert insert_rows(store.conn, [pair_row(other_turn)]) == 1  # another comparison
        back = get_pair(store, 1)
    assert back is not None
    assert back.conversation_a == pair.conversation_a and back.turn == 2


def _project_at_m003(path: Path) -> Path:
    """Pairs and verdicts in a file as the release before conversations wrote it."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA journal_mode = WAL")
    migrations.apply(Database(conn), stop_before="m004_conversations")
    conn.close()
    return path


ROWS = [
    {
        "id": None,
        "instruction": "What is 2+2?",
        "response_a": "4",
        "response_b": "5",
        "model_a": "x",
    },
    {"id": "q2", "instruction": "Capital of France?", "response_a": "Paris", "response_b": "Lyon"},
]


def _old_key(row: dict[str, str]) -> str:
    """The key the releases before conversations gave a pair (m002's scheme, written out
    here so a change to the code that makes keys cannot hide behind itself)."""
    if row.get("id"):
        return "id:" + row["id"]
    fields = (
        "instruction",
        "response_a",
        "response_b",
        "reference",
        "source",
        "model_a",
        "model_b",
    )
    return (
        "sha256:"
        + hashlib.sha256(
            b"".join((row.get(f) or "").encode() + b"\x00" for f in fields)
        ).hexdigest()
    )


def test_an_older_project_opens_with_its_keys_and_a_reimport_adds_nothing(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "pairs.jsonl", ROWS)
    old = _project_at_m003(tmp_path / "old.tiebreak")
    conn = sqlite3.connect(old)
    for row in ROWS:
        conn.execute(
            "INSERT INTO pairs (pair_key, external_id, instruction, response_a, response_b,"
            " model_a) VALUES (?, ?, ?, ?, ?, ?)",
            [
                _old_key(row),
                row.get("id"),
                row["instruction"],
                row["response_a"],
                row["response_b"],
                row.get("model_a"),
            ],
        )
    conn.commit()
    conn.close()
    with open_project(old) as store:  # migrated to m004 here
        columns = {r[1] for r in store.conn.execute("PRAGMA table_info(pairs)")}
        assert {"conversation_a", "conversation_b", "turn"} <= columns
        keys = [r[0] for r in store.conn.execute("SELECT pair_key FROM pairs ORDER BY id")]
        assert keys == [_old_key(row) for row in ROWS]
    before = table_digest(old)
    with open_project(old) as store:
        report = import_file(store, data)
    assert (report.added, report.duplicates) == (0, 2)
    assert table_digest(old) == before


def test_the_demo_project_keeps_its_twenty_pairs_and_adds_conversations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from desktop.adapters.store.pairs import iter_pairs
    from desktop.services.demo import ensure_demo_project

    monkeypatch.setenv("TIEBREAK_DATA_DIR", str(tmp_path))
    with open_project(ensure_demo_project(), readonly=True) as store:
        pairs = list(iter_pairs(store))
    assert [p.external_id for p in pairs[:20]] == [f"demo-{n:02d}" for n in range(1, 21)]
    assert all(p.turn is None for p in pairs[:20])
    talks = pairs[20:]
    assert [p.turn for p in talks] == [2, 2, 2]
    shapes = {compare(*p.conversations(), p.turn).shape for p in talks}
    assert shapes == {ConversationShape.SHARED_HISTORY, ConversationShape.TWO_CONVERSATIONS}


def test_a_merge_from_another_project_carries_its_conversations(tmp_path: Path) -> None:
    """Merge reads the other file through the one reader: a conversation pair it adds
    keeps every message, its turn and its key, so a second merge adds nothing."""
    from desktop.services.merge import merge_file

    pair = PairContent(
        "And one more?",
        "13",
        "Seventeen.",
        conversation_a=(SYSTEM, U1, A1, U2, A2),
        conversation_b=(SYSTEM, U1, B1, U2, B2),
        turn=2,
    )
    theirs, mine = new_project(tmp_path, "theirs.tiebreak"), new_project(tmp_path, "mine")
    with open_project(theirs) as store, store.transaction():
        insert_rows(store.conn, [pair_row(pair)])
    with open_project(mine) as store:
        assert merge_file(store, theirs).added_pairs == 1
        back = get_pair(store, 1)
        assert back is not None
        assert (back.conversation_a, back.conversation_b, back.turn) == (
            pair.conversation_a,
            pair.conversation_b,
            2,
        )
        assert merge_file(store, theirs).added_pairs == 0


def test_the_reader_gives_a_conversation_pairs_messages_decoded(tmp_path: Path) -> None:
    from desktop.adapters.store.pair_reader import CONVERSATION_COLUMNS, PairQuery, read_pairs

    pair = PairContent(
        "And one more?",
        "13",
        "Seventeen.",
        conversation_a=(U1, A1, U2, A2),
        conversation_b=(U1, B1, U2, B2),
        turn=2,
    )
    single = PairContent("Name a prime.", "7", "Eleven.")
    with open_project(new_project(tmp_path)) as store:
        with store.transaction():
            insert_rows(store.conn, [pair_row(pair), pair_row(single)])
        query = PairQuery(columns=("id", *CONVERSATION_COLUMNS, "conversation_a"))
        got = [r.fields for r in read_pairs(store, query)]
    assert (got[0].messages_a, got[0].messages_b, got[0].turn) == (
        pair.conversation_a,
        pair.conversation_b,
        2,
    )
    assert got[0].messages_a[1] == A1 and got[0].conversation_a.startswith('[{"role"')
    assert (got[1].messages_a, got[1].messages_b, got[1].turn) == (None, None, None)
