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
is the one-turn case: its conversations are implied (``implied``), never stored. The
comparison itself is ``conversation_comparison``'s; here are the sides, read, checked and
stored.
"""

from __future__ import annotations

import enum
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache, partial
from itertools import repeat
from operator import itemgetter
from typing import NamedTuple

from desktop.domain import numerals
from desktop.domain.collector import paused
from desktop.domain.trajectory import (
    Step,
    TrajectoryError,
    check_side,
    is_rich,
    may_act,
    step,
)

ROLES = ("system", "user", "assistant", "tool")
_ROLES = frozenset(ROLES)


class Message(NamedTuple):
    """A message: its role and its text; ``raw`` is the message as its file wrote it (JSON
    text, numbers digit for digit) where it is more than a role and text content (tool
    calls, a tool's result, content parts, members of its own), so it is kept exactly."""

    role: str
    content: str
    raw: str | None = None

    def step(self) -> Step:
        """The message read as a step of a trajectory (its calls and results), for a
        person: numbers as Python reads them (``raw`` keeps them as written)."""
        if self.raw is None:
            return Step(self.role, self.content)
        return step(json.loads(self.raw))


Conversation = tuple[Message, ...]


class ReadSide(tuple[Message, ...]):
    """A side holding messages kept as written, as ``from_json`` read it: its messages,
    and ``decoded``, each one as read there (numbers as Python reads them, as
    ``json.loads`` of its ``raw`` gives it), for what reads more of a message than its
    text: the counts above each side of two trajectories read 400 messages of two
    200-step runs on every pair shown, and read them again took a tenth of showing it."""

    decoded: tuple[dict[str, object], ...]


class ConversationError(ValueError):
    """A side, or the pair of them, cannot be compared; ``field`` names what is wrong
    (``conversation_a``, ``conversation_b`` or ``turn``) for the importer's message."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class ConversationShape(enum.StrEnum):
    SHARED_HISTORY = "shared history"
    TWO_CONVERSATIONS = "two conversations"
    #: two runs of an agent on one task: the same system message, tools and first user
    #: message, everything after free to differ, compared as wholes at the final answers
    TWO_TRAJECTORIES = "two trajectories"


def _kind(value: object) -> str:
    if isinstance(value, str) and type(value) is not str:  # a Numeral: a JSON number
        return "a number"
    if value is None:
        return "null"
    return {bool: "true/false", dict: "an object", list: "a list", str: "text"}.get(
        type(value), type(value).__name__
    )


def messages(value: object, field: str = "conversation_a") -> Conversation:
    """A side as a file gives it, a list of message objects, checked: a known role, text
    content (or, for a step of a trajectory, null or a list of parts), and the side's tool
    calls and results making one run (``trajectory.check_side``). A message with more than
    a role and its text is kept as written (``Message.raw``)."""
    if not isinstance(value, list):
        raise ConversationError(field, f"must be a list of messages, got {_kind(value)}")
    if not value:
        raise ConversationError(field, "holds no messages")
    out: list[Message] = []
    rich = False
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
        if not is_rich(item):
            out.append(Message(role, str(content)))
            continue
        if (
            type(content) is not str
            and not isinstance(content, list)
            and not (content is None and role == "assistant" and item.get("tool_calls"))
        ):
            also = " (null only beside tool calls)" if role == "assistant" else ""
            raise ConversationError(
                field,
                f"message {n} ({role}): content must be text or a list of parts{also}, got"
                f" {_kind(content)}",
            )
        try:
            shown = step(item, f"message {n} ({role})")
        except TrajectoryError as exc:
            raise ConversationError(field, str(exc)) from None
        if role == "tool" or shown.calls or shown.results:
            rich = True
        out.append(Message(role, shown.text, numerals.to_json(item)))
    if rich:
        try:
            check_side([m.step() for m in out])
        except TrajectoryError as exc:
            raise ConversationError(field, str(exc)) from None
    return tuple(out)


def decoded(value: object, field: str) -> object:
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
    """How a project stores a side: a JSON list of ``{"role", "content"}`` objects, a
    message kept as written (``raw``) as it was written."""
    if not any(m.raw for m in conversation):
        return json.dumps(
            [{"role": m.role, "content": m.content} for m in conversation], ensure_ascii=False
        )
    return (
        "["
        + ", ".join(
            m.raw or json.dumps({"role": m.role, "content": m.content}, ensure_ascii=False)
            for m in conversation
        )
        + "]"
    )


_ROLE_AND_CONTENT = itemgetter("role", "content")
#: What a side holding a message kept as written has (a tool's result, a call), as
#: ``to_json`` writes them (inside a text their quotes are escaped): such a side is read
#: message by message at once, not read whole first to find it is one. A mark found in a
#: side with none costs only time: both ways read the same messages.
_RUN_MARKS = ('"role": "tool"', '"tool_calls": [')


def _may_be_run(text: str) -> bool:
    return any(mark in text for mark in _RUN_MARKS)


@lru_cache(maxsize=8)  # a pair shown again (K after J) reads its sides again
def from_json(text: str) -> Conversation:
    """A side as a project stores it (``to_json``); read on every pair shown, so the work
    per message is done in C (a third quicker for a side of 10,000 messages), and the last
    few sides read are kept (a side is a tuple: never changed). A side with a message kept
    as written (an agent's run: found by its marks, else once read) is read message by
    message, for each one's text as written (``_as_written``)."""
    if not _may_be_run(text):  # else surely a run: read as one
        with paused():
            plain = _plain_messages(json.loads(text))
        if plain is not None:
            return plain
    out, items = [], []
    for item, written in _as_written(text):
        items.append(item)
        role, content = str(item["role"]), item.get("content")
        if is_rich(item) or not isinstance(content, str):  # (not rich: text content)
            out.append(Message(role, _text(item, written), written))
        else:
            out.append(Message(role, content))
    side = ReadSide(out)
    side.decoded = tuple(items)
    return side


# Between two messages as ``to_json`` writes a plain side (inside a text a quote is
# escaped: never there).
_BETWEEN_MESSAGES = '}, {"role": '


@lru_cache(maxsize=4)  # (as from_json's: a pair shown again)
def sides_from_json(a: str | None, b: str | None) -> tuple[Conversation | None, ...]:
    """Both sides of a pair as ``from_json`` reads them, the messages B's text shares with
    A's from its start (a shared history: all but the last) read once, for A: a pair of
    two sides of 10,000 messages read in half the time."""
    if a is None or b is None:
        return tuple(from_json(side) if side is not None else None for side in (a, b))
    side_a = from_json(a)
    return side_a, _after_shared(a, side_a, b) or from_json(b)


def _after_shared(a: str, side_a: Conversation, b: str) -> Conversation | None:
    """B read as A's messages up to where the two texts part, then its own; None where
    too little is shared to gain anything, or A or B is more than plain messages."""
    if type(side_a) is not tuple or _may_be_run(b):  # (a ReadSide: A is more than plain)
        return None
    low, high = 0, min(len(a), len(b))  # the longest common start, by bisection in C
    while low < high:
        middle = (low + high + 1) // 2
        if b.startswith(a[low:middle], low):
            low = middle
        else:
            high = middle - 1
    cut = a.rfind(_BETWEEN_MESSAGES, 0, low)  # the last message boundary both texts have
    if cut < len(a) // 2:
        return None
    shared = a.count(_BETWEEN_MESSAGES, 0, cut) + 1  # messages before the cut
    with paused():
        own = _plain_messages(json.loads("[" + b[cut + 3 :]))  # (from B's next message on)
    return None if own is None else side_a[:shared] + own


def _plain_messages(side: list[dict[str, object]]) -> Conversation | None:
    """The side's messages, if none is more than a role and its text (``is_rich`` of
    none), else None. Asked and made in C's loops, not message by message: a side of 10,000
    messages took 15 ms to ask and 10 ms to make, on every pair shown."""
    try:
        pairs = list(map(_ROLE_AND_CONTENT, side))  # (KeyError: a member is missing)
        roles, texts = list(map(itemgetter(0), pairs)), list(map(itemgetter(1), pairs))
        if set(map(len, side)) - {2} or set(map(type, texts)) - {str} or "tool" in set(roles):
            return None
    except (KeyError, TypeError):  # (TypeError: a role that is not text)
        return None
    return tuple(map(_MESSAGE, zip(roles, texts, repeat(None))))


_MESSAGE = partial(tuple.__new__, Message)  # a Message of (role, content, raw), made in C


def _text(item: Mapping[str, object], written: str) -> str:
    """A stored message's text as ``step`` reads it. Text content (or none) is the text
    itself, beside any tool calls (a tool's result and an assistant's words, nearly every
    message of a run); anything else is read again with its numbers as written and read
    by ``step``, its ``tool_calls`` left out, which the text does not depend on (reading
    each call's arguments was half the work, and the import checked them)."""
    content, role = item.get("content"), item.get("role")
    if type(content) is str and (content or role != "tool"):
        return content
    if content is None and role != "tool":
        return ""
    exact = _READER.decode(written)
    if "tool_calls" in exact:
        exact = {key: value for key, value in exact.items() if key != "tool_calls"}
    return step(exact).text


_READER = json.JSONDecoder(parse_float=numerals.Numeral, parse_int=numerals.Numeral)
_PLAIN = json.JSONDecoder()  # where only text is read: numbers need not be as written
_BETWEEN = re.compile(r"[\s,]*")


def _as_written(text: str) -> Iterator[tuple[dict[str, object], str]]:
    """Each message of a side as ``to_json`` stored it: read, and its text as it stands in
    the side, which for a message kept as written is its ``raw`` verbatim (``to_json``
    writes it so), so it is not written out again: that took 40% of reading a side of 400
    tool calls and results, on every pair shown. Read in C, numbers as Python reads
    them (``_text`` reads a message again with them as written where they could show)."""
    scan = _PLAIN.scan_once  # type: ignore[attr-defined]  # raw_decode's own, in C
    at = _skip(text, text.index("[") + 1)
    while text[at] != "]":
        try:
            item, end = scan(text, at)
        except StopIteration as err:
            raise json.JSONDecodeError("Expecting value", text, err.value) from None
        yield item, text[at:end]
        at = end + 2 if text.startswith(", ", end) else _skip(text, end)  # as to_json wrote it


def _skip(text: str, at: int) -> int:
    """Past the spaces and commas from ``at``."""
    found = _BETWEEN.match(text, at)
    return found.end() if found is not None else at


def is_trajectory(conversation: Sequence[Message]) -> bool:
    """Whether a side calls tools or carries their results (an agent's run)."""
    for m in conversation:
        if m.raw is None:
            continue
        if m.role == "tool":
            return True
        if may_act(m.raw):
            s = m.step()
            if s.calls or s.results:
                return True
    return False


def implied(instruction: str, response: str) -> Conversation:
    """The conversation a single-turn pair stands for: one request, one answer."""
    return (Message("user", instruction), Message("assistant", response))


def answers(conversation: Sequence[Message]) -> list[int]:
    """The positions of the assistant messages: ``answers(c)[turn - 1]`` is that turn's."""
    return [i for i, m in enumerate(conversation) if m.role == "assistant"]


def task_of(conversation: Sequence[Message]) -> int:
    """The position of a trajectory's task: its first user message that is a request (not
    a message of tool results); -1 where it has none."""
    for i, m in enumerate(conversation):
        if m.role == "user" and (m.raw is None or not m.step().results):
            return i
        if m.role not in ("system", "user"):
            break
    return -1
