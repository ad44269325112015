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
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import repeat
from operator import itemgetter
from typing import Any, NamedTuple

from desktop.domain import numerals
from desktop.domain.collector import paused
from desktop.domain.trajectory import (
    Step,
    TrajectoryError,
    check_side,
    is_rich,
    may_act,
    step,
    tools_list,
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

    decoded: tuple[Any, ...]


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


def _kind(value: Any) -> str:
    if isinstance(value, str) and type(value) is not str:  # a Numeral: a JSON number
        return "a number"
    if value is None:
        return "null"
    return {bool: "true/false", dict: "an object", list: "a list", str: "text"}.get(
        type(value), type(value).__name__
    )


def messages(value: Any, field: str = "conversation_a") -> Conversation:
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
        if is_rich(item):
            out.append(Message(item["role"], _text(item, written), written))
        else:
            out.append(Message(item["role"], item["content"]))
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


def _plain_messages(side: list[dict[str, Any]]) -> Conversation | None:
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


def _text(item: dict[str, Any], written: str) -> str:
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


def _as_written(text: str) -> Iterator[tuple[Any, str]]:
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
    both sides; a compared answer with no user message before it. Two trajectories (a
    side calls a tool or carries a result) are compared as wholes at their final answers,
    whatever ``turn`` says (see ``_compare_runs``)."""
    on_a, on_b = answers(a), answers(b)
    if not on_a or not on_b:
        field = "conversation_a" if not on_a else "conversation_b"
        raise ConversationError(field, "has no assistant message to compare")
    if is_trajectory(a) or is_trajectory(b):
        return _compare_runs(a, b, on_a[-1], on_b[-1])
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


def task_of(conversation: Sequence[Message]) -> int:
    """The position of a trajectory's task: its first user message that is a request (not
    a message of tool results); -1 where it has none."""
    for i, m in enumerate(conversation):
        if m.role == "user" and (m.raw is None or not m.step().results):
            return i
        if m.role not in ("system", "user"):
            break
    return -1


def _compare_runs(a: Conversation, b: Conversation, at_a: int, at_b: int) -> Compared:
    """Two runs of one task compared as wholes: the messages up to and with the task (the
    system message and the first user message) the same on both sides, the final answers
    (each side's last assistant message; none where it calls a tool) compared."""
    task_a, task_b = task_of(a), task_of(b)
    for field, task in (("conversation_a", task_a), ("conversation_b", task_b)):
        if task < 0:
            raise ConversationError(
                field, "a trajectory must begin with its task: system messages, then a user message"
            )
    if a[: task_a + 1] != b[: task_b + 1]:
        what = "the task (first user message)" if a[task_a] != b[task_b] else "the system message"
        raise ConversationError(
            "conversation_b", f"{what} differs between A and B; two runs of one task share it"
        )
    if at_a < task_a or at_b < task_b:
        field = "conversation_a" if at_a < task_a else "conversation_b"
        raise ConversationError(field, "has no assistant message after its task")
    return Compared(
        1,
        a[task_a].content,
        _final_answer(a[at_a]),
        _final_answer(b[at_b]),
        ConversationShape.TWO_TRAJECTORIES,
        at_a,
        at_b,
    )


def _final_answer(message: Message) -> str:
    """A run's answer: its last assistant message's text, or nothing where that message
    calls a tool (a run stopped at its step limit, or cut short, never answered; what it
    said beside its last call is a step's, not an answer)."""
    if message.raw is not None and message.step().calls:
        return ""
    return message.content


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
    a: Conversation, b: Conversation, turn: int | None = None, tools: Any = None
) -> dict[str, str | int | None]:
    """The pair fields two conversations give: the compared turn's ``instruction``,
    ``response_a`` and ``response_b``, and ``conversation_a``, ``conversation_b`` (as
    stored) and ``turn``, which stay None where the conversations are the implied ones of
    a single-turn pair (one user message, one answer), so such a pair is the same pair
    however a file wrote it; ``tools``, the tool definitions two trajectories were given
    (a list, kept as written), JSON text, else None."""
    c = compare(a, b, turn)
    single = len(a) == 2 and len(b) == 2 and a[0] == b[0] and a[0].role == "user"
    if tools is not None:
        try:
            listed = tools_list(tools)
        except TrajectoryError as exc:
            raise ConversationError("tools", str(exc).removeprefix("tools: ")) from None
        tools = numerals.to_json(listed) if listed else None
    if tools is not None and c.shape is not ConversationShape.TWO_TRAJECTORIES:
        single = False
    return {
        "instruction": c.instruction,
        "response_a": c.response_a,
        "response_b": c.response_b,
        "conversation_a": None if single else to_json(a),
        "conversation_b": None if single else to_json(b),
        "turn": None if single else c.turn,
        "tools": None if single else tools,
    }
