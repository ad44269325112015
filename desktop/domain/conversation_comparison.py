"""Two conversations compared at one assistant turn: which turn, the request it answers,
the two answers, and the shape of the pair (``ConversationShape``); refused where the two
sides do not ask the same thing before the compared answers. The pair fields and the
template fields a comparison gives are read from here too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desktop.domain import numerals
from desktop.domain.conversations import (
    Conversation,
    ConversationError,
    ConversationShape,
    Message,
    answers,
    is_trajectory,
    task_of,
    to_json,
)
from desktop.domain.trajectory import TrajectoryError, tools_list


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
) -> dict[str, object]:
    """Per-turn fields as FastChat's MT-bench judge prompts name them: ``question_k`` (the
    user message assistant turn k answers), ``answer_a_k``, ``answer_b_k``, ``ref_answer_k``
    from ``references``; and the compared turn's as ``question``, ``answer_a``,
    ``answer_b`` (``pair-v2``'s names), ``turn``, and ``system`` where there is one. Turns
    run as far as both sides have them, turns after the compared one included."""
    c = compare(a, b, turn)
    out: dict[str, object] = {
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
    a: Conversation, b: Conversation, turn: int | None = None, tools: object = None
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
