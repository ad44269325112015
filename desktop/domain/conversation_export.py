"""How an export writes a conversation pair: every message exactly in JSONL, one column
per turn and side in a CSV, and the labelled preference records trainers read (TRL,
OpenAI preference fine-tuning).

A single-turn pair is the one-turn case (its conversations are implied), so in a project
that holds conversations every row has the same columns, and a JSONL export imported again
gives back the same pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from desktop.domain.conversations import Conversation, Message, answers, compare, implied

#: An export's conversation columns in JSONL: the compared turn and each side's messages.
JSONL_COLUMNS = ("turn", "conversation_a", "conversation_b")


def csv_columns(turns: int) -> tuple[str, ...]:
    """The compared ``turn``, the ``system`` message and, per turn, the user's message and
    each side's answer: ``turn_1_user``, ``turn_1_a``, ``turn_1_b``, ..."""
    per_turn = (f"turn_{k}_{part}" for k in range(1, turns + 1) for part in ("user", "a", "b"))
    return ("turn", "system", *per_turn)


def sides(
    instruction: str,
    response_a: str,
    response_b: str,
    messages_a: Conversation | None,
    messages_b: Conversation | None,
) -> tuple[Conversation, Conversation]:
    """A pair's two conversations: stored, or implied by a single-turn pair's texts."""
    if messages_a is not None and messages_b is not None:
        return messages_a, messages_b
    return implied(instruction, response_a), implied(instruction, response_b)


def as_json(conversation: Sequence[Message]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in conversation]


def _requests(conversation: Sequence[Message]) -> list[str]:
    """Per assistant turn, the user messages since the previous answer (joined), and the
    requests after the last answer as one more turn."""
    out: list[str] = []
    asked: list[str] = []
    for m in conversation:
        if m.role == "user":
            asked.append(m.content)
        elif m.role == "assistant":
            out.append("\n\n".join(asked))
            asked = []
    if asked:
        out.append("\n\n".join(asked))
    return out


def csv_cells(a: Conversation, b: Conversation, turn: int, turns: int) -> list[Any]:
    """The cells of ``csv_columns(turns)``. A user turn that differs between the sides
    (only after the compared turn can it) is written as both, labelled."""
    system = "\n\n".join(m.content for m in a if m.role == "system")
    cells: list[Any] = [turn, system]
    asked_a, asked_b = _requests(a), _requests(b)
    said_a = [a[i].content for i in answers(a)]
    said_b = [b[i].content for i in answers(b)]
    for k in range(turns):
        user_a = asked_a[k] if k < len(asked_a) else None
        user_b = asked_b[k] if k < len(asked_b) else None
        if user_a is None or user_b is None or user_a == user_b:
            user = user_a if user_a is not None else user_b or ""
        else:
            user = f"A: {user_a}\n\nB: {user_b}"
        cells += (
            user,
            said_a[k] if k < len(said_a) else "",
            said_b[k] if k < len(said_b) else "",
        )
    return cells


def preference_parts(
    a: Conversation, b: Conversation, turn: int
) -> tuple[list[Message], list[Message], list[Message]]:
    """(prompt, A's continuation, B's continuation) up to the compared answers: the prompt
    is what both sides share; each continuation is the rest of its side up to and with its
    compared answer (that answer alone for a shared history)."""
    c = compare(a, b, turn)
    shared = 0
    while shared < min(c.at_a, c.at_b) and a[shared] == b[shared]:
        shared += 1
    return list(a[:shared]), list(a[shared : c.at_a + 1]), list(b[shared : c.at_b + 1])


def trl_record(
    prompt: list[Message], chosen: list[Message], rejected: list[Message]
) -> dict[str, Any]:
    """TRL's conversational preference record (explicit prompt)."""
    return {"prompt": as_json(prompt), "chosen": as_json(chosen), "rejected": as_json(rejected)}


def openai_record(
    prompt: list[Message], preferred: list[Message], non_preferred: list[Message]
) -> dict[str, Any] | None:
    """OpenAI's preference fine-tuning record, or None where the two sides are not one
    shared history and one answer each (its format has one input for both outputs)."""
    if len(preferred) != 1 or len(non_preferred) != 1:
        return None
    return {
        "input": {"messages": as_json(prompt), "tools": [], "parallel_tool_calls": True},
        "preferred_output": as_json(preferred),
        "non_preferred_output": as_json(non_preferred),
    }
