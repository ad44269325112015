"""A conversation pair's turns as the window lays them out (desktop/domain/transcript.py):
the history above the compared turn, the turns after it below, a message both sides have
the same once, one that differs on each side; on the demo's pairs, real HH-RLHF ones and
made-up edge cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.domain.conversations import ConversationError, ConversationShape, Message, messages
from desktop.domain.transcript import Row, transcript

REPO = Path(__file__).resolve().parents[1]
HH = REPO.parent / "shared" / "data" / "hh_rlhf" / "harmless-base-test-sample100.jsonl"


def _m(*pairs: tuple[str, str]) -> tuple[Message, ...]:
    return tuple(Message(role, content) for role, content in pairs)


def _demo() -> dict[str, dict]:
    lines = (REPO / "resources" / "demo_conversations.jsonl").read_text().splitlines()
    return {r["id"]: r for r in map(json.loads, lines)}


def test_two_conversations_share_their_requests_and_differ_in_earlier_answers() -> None:
    record = _demo()["demo-22"]
    t = transcript(messages(record["conversation_a"]), messages(record["conversation_b"]), 2)
    assert (t.turn, t.turns, t.shape) == (2, 2, ConversationShape.TWO_CONVERSATIONS)
    assert t.after == ()
    (turn,) = t.before
    user, answer = turn.rows
    assert user.shared and user.a == "Write a haiku about a lighthouse."
    assert not answer.shared and answer.a.startswith("Night fog") and answer.b.startswith("Tall")
    assert turn.preview() == "user: Write a haiku about a lighthouse."


def test_a_shared_history_and_a_system_message_are_each_one_row() -> None:
    record = _demo()["demo-23"]
    t = transcript(messages(record["conversation_a"]), messages(record["conversation_b"]), 2)
    assert t.shape is ConversationShape.SHARED_HISTORY
    rows = t.before[0].rows
    assert [(r.role, r.shared) for r in rows] == [
        ("system", True),
        ("user", True),
        ("assistant", True),
    ]


def test_the_compared_turns_own_system_message_is_history_and_later_turns_follow() -> None:
    """MT-bench's turn-1 votes keep turn 2 in the data: it is shown after, where the two
    sides may even ask different things, or one side go on longer."""
    a = _m(("system", "Be brief."), ("user", "Q1"), ("assistant", "A1"), ("user", "Q2"),
           ("assistant", "A2"), ("user", "Q3"), ("assistant", "A3"))  # fmt: skip
    b = _m(("system", "Be brief."), ("user", "Q1"), ("assistant", "B1"), ("user", "Q2 other"),
           ("assistant", "B2"))  # fmt: skip
    t = transcript(a, b, 1)
    assert t.turns == 3
    assert [r for turn in t.before for r in turn.rows] == [Row("system", "Be brief.", "Be brief.")]
    assert [turn.number for turn in t.after] == [2, 3]
    assert t.after[0].rows == (Row("user", "Q2", "Q2 other"), Row("assistant", "A2", "B2"))
    assert t.after[1].rows == (Row("user", "Q3", None), Row("assistant", "A3", None))
    assert t.after[0].words("a") == 1 and t.after[1].words("b") == 0


def test_a_turn_either_side_lacks_is_refused_as_the_import_refuses_it() -> None:
    a = _m(("user", "Q1"), ("assistant", "A1"))
    with pytest.raises(ConversationError):
        transcript(a, a, 2)


@pytest.mark.skipif(not HH.exists(), reason="needs ../shared/data")
def test_every_hh_rlhf_record_lays_out_with_nothing_lost() -> None:
    """The chosen and rejected transcripts of Anthropic's HH-RLHF, split as the import
    splits them and compared where they part: every message is in a row (the compared
    request and answers aside), the shared ones once."""
    from desktop.domain.conversation_comparison import first_difference
    from desktop.domain.import_shapes.hh_rlhf import split_transcript

    for line in HH.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        a, b = split_transcript(record["chosen"]), split_transcript(record["rejected"])
        turn = first_difference(a, b)
        if turn is None:
            continue
        t = transcript(a, b, turn)
        rows = [r for part in (t.before, t.after) for turn_ in part for r in turn_.rows]
        side_a = [r.a for r in rows if r.a is not None]
        side_b = [r.b for r in rows if r.b is not None]
        assert len(side_a) == len(a) - 2 and len(side_b) == len(b) - 2  # request, answer
        assert all(r.shared for turn_ in t.before for r in turn_.rows)  # a shared history
