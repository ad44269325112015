"""Conversations: a pair whose two sides are chats, compared at one assistant turn.

Each side is a list of messages (role ``system``, ``user`` or ``assistant``; content
text), kept exactly as given, turns after the compared one included. ``turn`` counts the
assistant messages from 1; the compared answers are each side's ``turn``-th assistant
message, and the pair's instruction is the user message they reply to. Two shapes occur:

- a **shared history** with different final answers (HH-RLHF, TRL's implicit prompt, most
  Chatbot Arena votes): every message before the compared answers is the same on both
  sides;
- **two conversations** whose user turns are the same but whose earlier answers differ
  (MT-bench turn 2, where each model answered turn 1 its own way).

Anything else (a user turn or system message that differs before the compared answers)
is no comparison of two answers to the same request, and is refused. A single-turn pair
is the one-turn case: its conversations are implied (``implied``), never stored.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, NamedTuple

ROLES = ("system", "user", "assistant")
_ROLES = frozenset(ROLES)
_MEMBERS = frozenset({"role", "content"})


class Message(NamedTuple):
    role: str
    content: str


Conversation = tuple[Message, ...]


class ConversationError(ValueError):
    """A side, or the pair of them, cannot be compared; ``field`` names what is wrong
    (``conversation_a``, ``conversation_b`` or ``turn``) for the importer's message."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class ConversationShape(enum.StrEnum):
    SHARED_HISTORY = "shared history"
    TWO_CONVERSATIONS = "two conversations"


def _kind(value: Any) -> str:
    if isinstance(value, str) and type(value) is not str:  # a Numeral: a JSON number
        return "a number"
    if value is None:
        return "null"
    return {bool: "true/false", dict: "an object", list: "a list", str: "text"}.get(
        type(value), type(value).__name__
    )


def messages(value: Any, field: str = "conversation_a") -> Conversation:
    """A side as a file gives it, a list of ``{"role", "content"}`` objects, checked: a
    known role, text content, no other member (it would be dropped unseen)."""
    if not isinstance(value, list):
        raise ConversationError(field, f"must be a list of messages, got {_kind(value)}")
    if not value:
        raise ConversationError(field, "holds no messages")
    out: list[Message] = []
    for n, item in enumerate(value, start=1):
        if not isinstance(item, dict):
            raise ConversationError(
                field, f"message {n} must be an object with role and content, got {_kind(item)}"
            )
        role, content = item.get("role"), item.get("content")
        if role not in _ROLES:
            got = "no role" if role is None else f"role {role!r}"
            raise ConversationError(
                field, f"message {n} has {got}; a role is one of {', '.join(ROLES)}"
            )
        if type(content) is not str:
            raise ConversationError(
                field, f"message {n} ({role}): content must be text, got {_kind(content)}"
            )
        if len(item) != 2:
            extra = sorted(set(item) - _MEMBERS)[0]
            raise ConversationError(
                field,
                f"message {n} ({role}) has member {extra!r}; a message is kept as its role"
                " and content only",
            )
        out.append(Message(role, content))
    return tuple(out)


def decoded(value: Any, field: str) -> Any:
    """A side that a file may give as JSON text (a CSV cell, Kaggle's encoded lists) or
    as the list itself: the list."""
    if isinstance(value, str) and type(value) is str:
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise ConversationError(
                field, f"is text that is not a JSON list of messages ({exc.msg})"
            ) from None
    return value


def to_json(conversation: Sequence[Message]) -> str:
    """How a project stores a side: a JSON list of ``{"role", "content"}`` objects."""
    return json.dumps(
        [{"role": m.role, "content": m.content} for m in conversation], ensure_ascii=False
    )


_ROLE_AND_CONTENT = itemgetter("role", "content")


def from_json(text: str) -> Conversation:
    """A side as a project stores it (``to_json``); read on every pair shown, so the work
    per message is done in C (a third quicker for a side of 10,000 messages)."""
    return tuple(map(Message._make, map(_ROLE_AND_CONTENT, json.loads(text))))


def implied(instruction: str, response: str) -> Conversation:
    """The conversation a single-turn pair stands for: one request, one answer."""
    return (Message("user", instruction), Message("assistant", response))


def answers(conversation: Sequence[Message]) -> list[int]:
    """The positions of the assistant messages: ``answers(c)[turn - 1]`` is that turn's."""
    return [i for i, m in enumerate(conversation) if m.role == "assistant"]


@dataclass(frozen=True)
class Compared:
    """What a pair of conversations compares: the compared turn, the request it answers,
    the two answers, the shape, and where the compared answer stands on each side."""

    turn: int
    instruction: str
    response_a: str
    response_b: str
    shape: ConversationShape
    at_a: int  # the compared answer's position in conversation A
    at_b: int


def compare(a: Conversation, b: Conversation, turn: int | None = None) -> Compared:
    """The comparison two conversations make at ``turn`` (the last assistant turn when
    None, which both sides must then have as many of). Refused: a turn either side lacks;
    a system message or user turn before the compared answers that is not the same on
    both sides; a compared answer with no user message before it."""
    on_a, on_b = answers(a), answers(b)
    if not on_a or not on_b:
        field = "conversation_a" if not on_a else "conversation_b"
        raise ConversationError(field, "has no assistant message to compare")
    if turn is None:
        if len(on_a) != len(on_b):
            raise ConversationError(
                "turn",
                f"not given, and A has {len(on_a)} assistant turns, B {len(on_b)}:"
                " name the compared one",
            )
        turn = len(on_a)
    if type(turn) is not int or turn < 1:
        raise ConversationError("turn", f"must be a whole number from 1, got {turn!r}")
    for side, found in (("A", on_a), ("B", on_b)):
        if turn > len(found):
            raise ConversationError(
                "turn",
                f"{turn} is beyond the conversation: {side} has {len(found)} assistant"
                f" turn{'s' if len(found) != 1 else ''}",
            )
    at_a, at_b = on_a[turn - 1], on_b[turn - 1]
    _check_requests(a[:at_a], b[:at_b])
    instruction = next((m.content for m in reversed(a[:at_a]) if m.role == "user"), None)
    if instruction is None:
        raise ConversationError(
            "conversation_a", f"assistant turn {turn} answers no user message before it"
        )
    shape = (
        ConversationShape.SHARED_HISTORY
        if a[:at_a] == b[:at_b]
        else ConversationShape.TWO_CONVERSATIONS
    )
    return Compared(turn, instruction, a[at_a].content, b[at_b].content, shape, at_a, at_b)


def _check_requests(before_a: Conversation, before_b: Conversation) -> None:
    """Everything but the answers before the compared turn is the same on both sides."""
    asks_a = [m for m in before_a if m.role != "assistant"]
    asks_b = [m for m in before_b if m.role != "assistant"]
    users = 0
    for mine, theirs in zip(asks_a, asks_b, strict=False):
        users += mine.role == "user"
        if mine == theirs:
            continue
        if mine.role != theirs.role:
            raise ConversationError(
                "conversation_b",
                f"A has a {mine.role} message where B has a {theirs.role} message, before"
                " the compared answer; the requests must be the same",
            )
        what = f"user turn {users}" if mine.role == "user" else "the system message"
        raise ConversationError(
            "conversation_b", f"{what} differs between A and B; it must be the same"
        )
    if len(asks_a) != len(asks_b):
        raise ConversationError(
            "conversation_b",
            f"A has {sum(m.role == 'user' for m in asks_a)} user turns before the compared"
            f" answer, B {sum(m.role == 'user' for m in asks_b)}; they must be the same",
        )


def first_difference(a: Conversation, b: Conversation) -> int | None:
    """The assistant turn at which two transcripts of one chat part (HH-RLHF's chosen and
    rejected, TRL's implicit prompt): the first assistant message that differs, counted
    from 1; None where neither differs from the other before one of them ends. A request
    (user or system message) that differs first is refused: the two answer different
    chats."""
    turn = 0
    for mine, theirs in zip(a, b, strict=False):
        if mine.role == "assistant" and theirs.role == "assistant":
            turn += 1
            if mine.content != theirs.content:
                return turn
        elif mine != theirs:
            raise ConversationError(
                "conversation_b",
                "the two transcripts differ in a request before any answer differs;"
                " they must be the same chat up to the compared answers",
            )
    return None


def shared_history(a: Conversation, b: Conversation, turn: int) -> Conversation:
    """The messages before the compared answers that both sides share: all of them for a
    shared history; for two conversations, those up to the first answer that differs."""
    c = compare(a, b, turn)
    out = []
    for mine, theirs in zip(a[: c.at_a], b[: c.at_b], strict=False):
        if mine != theirs:
            break
        out.append(mine)
    return tuple(out)


def turn_fields(
    a: Conversation, b: Conversation, turn: int, references: Sequence[str] = ()
) -> dict[str, Any]:
    """Per-turn fields as FastChat's MT-bench judge prompts name them: ``question_k`` (the
    user message assistant turn k answers), ``answer_a_k``, ``answer_b_k``, ``ref_answer_k``
    from ``references``; and the compared turn's as ``question``, ``answer_a``,
    ``answer_b`` (``pair-v2``'s names), ``turn``, and ``system`` where there is one. Turns
    run as far as both sides have them, turns after the compared one included."""
    c = compare(a, b, turn)
    out: dict[str, Any] = {
        "turn": c.turn,
        "question": c.instruction,
        "answer_a": c.response_a,
        "answer_b": c.response_b,
    }
    system = next((m.content for m in a[: c.at_a] if m.role == "system"), None)
    if system is not None:
        out["system"] = system
    on_a, on_b = answers(a), answers(b)
    for k, (i, j) in enumerate(zip(on_a, on_b, strict=False), start=1):
        question = next((m.content for m in reversed(a[:i]) if m.role == "user"), "")
        out[f"question_{k}"] = question
        out[f"answer_a_{k}"] = a[i].content
        out[f"answer_b_{k}"] = b[j].content
    for k, text in enumerate(references, start=1):
        out[f"ref_answer_{k}"] = text
    return out


def pair_fields(
    a: Conversation, b: Conversation, turn: int | None = None
) -> dict[str, str | int | None]:
    """The pair fields two conversations give: the compared turn's ``instruction``,
    ``response_a`` and ``response_b``, and ``conversation_a``, ``conversation_b`` (as
    stored) and ``turn``, which stay None where the conversations are the implied ones of
    a single-turn pair (one user message, one answer), so such a pair is the same pair
    however a file wrote it."""
    c = compare(a, b, turn)
    single = len(a) == 2 and len(b) == 2 and a[0] == b[0] and a[0].role == "user"
    return {
        "instruction": c.instruction,
        "response_a": c.response_a,
        "response_b": c.response_b,
        "conversation_a": None if single else to_json(a),
        "conversation_b": None if single else to_json(b),
        "turn": None if single else c.turn,
    }
