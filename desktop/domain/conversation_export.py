"""How an export writes a conversation pair: every message exactly in JSONL, one column
per turn and side in a CSV, and the labelled preference records trainers read (TRL,
OpenAI preference fine-tuning). Two agent runs (trajectories) add their tools, their
counts (steps, tool calls, tool errors per side), in a CSV each run flattened into one
readable cell per side, and training records in each trainer's tool-calling form.

A single-turn pair is the one-turn case (its conversations are implied), so in a project
that holds conversations every row has the same columns, and a JSONL export imported again
gives back the same pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop.domain import numerals
from desktop.domain.conversation_comparison import compare
from desktop.domain.conversations import (
    Conversation,
    Message,
    answers,
    implied,
    is_trajectory,
    task_of,
)
from desktop.domain.trajectory import run_counts
from desktop.domain.trajectory_formats import (
    flat,
    message_dict,
    read_side,
    to_openai,
    to_trl,
    tools_as_openai,
)

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


def csv_cells(a: Conversation, b: Conversation, turn: int, turns: int) -> list[str | int]:
    """The cells of ``csv_columns(turns)``. A user turn that differs between the sides
    (only after the compared turn can it) is written as both, labelled."""
    system = "\n\n".join(m.content for m in a if m.role == "system")
    cells: list[str | int] = [turn, system]
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
) -> dict[str, object]:
    """TRL's conversational preference record (explicit prompt)."""
    return {"prompt": as_json(prompt), "chosen": as_json(chosen), "rejected": as_json(rejected)}


def openai_record(
    prompt: list[Message], preferred: list[Message], non_preferred: list[Message]
) -> dict[str, object] | None:
    """OpenAI's preference fine-tuning record, or None where the two sides are not one
    shared history and one answer each (its format has one input for both outputs)."""
    if len(preferred) != 1 or len(non_preferred) != 1:
        return None
    return {
        "input": {"messages": as_json(prompt), "tools": [], "parallel_tool_calls": True},
        "preferred_output": as_json(preferred),
        "non_preferred_output": as_json(non_preferred),
    }


# --- Trajectories (two agent runs): their tools, counts, a flat cell, training records ---

#: A JSONL export's columns where the project holds trajectories: the tools as stored.
TRAJECTORY_JSONL_COLUMNS = ("tools",)
#: A CSV export's: each side's whole run flattened into one readable cell.
TRAJECTORY_CSV_COLUMNS = ("trajectory_a", "trajectory_b")
#: Both exports': per side, the steps after the task, the tool calls made and the results
#: the tools returned as errors (``trajectory.run_counts``).
COUNT_COLUMNS = tuple(
    f"{what}_{side}" for side in ("a", "b") for what in ("steps", "tool_calls", "tool_errors")
)


def side_counts(side: Conversation) -> tuple[int, int, int]:
    """A side's steps, tool calls and tool errors (``trajectory.Counts``)."""
    got = run_counts(side)
    return got.steps, got.calls, got.errors


def count_cells(a: Conversation, b: Conversation) -> list[int]:
    return [*side_counts(a), *side_counts(b)]


def _dicts(side: Sequence[Message]) -> list[dict[str, object]]:
    return [message_dict(m.raw, m.role, m.content) for m in side]


def _arguments_text(arguments: object) -> str:
    return numerals.to_json(arguments)


def flattened(side: Conversation) -> str:
    """A whole run as one readable cell: a line per message (its number, role and text),
    under an assistant's message a line per call (``name(arguments)``), and each result
    after the tool's name (``error`` where the tool said it failed)."""
    lines: list[str] = []
    for n, (m, read) in enumerate(zip(side, read_side(_dicts(side)), strict=True), start=1):
        if read.results and not read.calls:
            for r in read.results:
                error = ", error" if r.error else ""
                lines.append(f"[{n}] tool {r.name}{error}: {r.text}")
            if isinstance(read.content, str) and read.content.strip():  # a user's words too
                lines.append(f"[{n}] {m.role}: {read.content}")
            continue
        text = m.step().text if m.raw is not None else m.content
        lines.append(f"[{n}] {m.role}: {text}" if text else f"[{n}] {m.role}:")
        lines += [f"    → {c.name}({_arguments_text(c.arguments)})" for c in read.calls]
    return "\n".join(lines)


def trajectory_csv_cells(a: Conversation, b: Conversation, turns: int) -> list[str | int]:
    """``csv_cells`` of two runs: compared turn 1, the system message, the task as turn
    1's user message and each side's final answer as its answer; the runs themselves go
    in ``TRAJECTORY_CSV_COLUMNS``."""
    c = compare(a, b, None)
    system = "\n\n".join(m.content for m in a[: task_of(a)] if m.role == "system")
    cells: list[str | int] = [1, system, c.instruction, c.response_a, c.response_b]
    return cells + [""] * (3 * max(turns - 1, 0))


def is_run(a: Conversation, b: Conversation, tools: str | None = None) -> bool:
    """Whether a pair is two trajectories (a side calls tools), or was given tools (its
    training records carry them)."""
    return tools is not None or is_trajectory(a) or is_trajectory(b)


def _trajectory_parts(
    a: Conversation, b: Conversation, form: str, turn: int | None
) -> tuple[list[dict[str, object]], list[dict[str, object]], list[dict[str, object]]]:
    """``preference_parts`` of two runs, each message written in ``form`` (``openai`` or
    ``trl``; ``trajectory_formats``): the messages both share, then each side's rest up
    to and with its final answer."""
    c = compare(a, b, turn)
    shared = 0
    while shared < min(c.at_a, c.at_b) and a[shared] == b[shared]:
        shared += 1
    # Each side's rest begins with what the model wrote (a trainer learns from the rest):
    # where the runs part at a tool's result, the call before it is part of the rest.
    while shared > 0 and (a[shared].role != "assistant" or b[shared].role != "assistant"):
        shared -= 1
    convert = to_openai if form == "openai" else to_trl
    on_a = convert(_dicts(a[: c.at_a + 1]))
    on_b = convert(_dicts(b[: c.at_b + 1]))
    return flat(on_a[:shared]), flat(on_a[shared:]), flat(on_b[shared:])


def _tools(tools: str | None) -> list[dict[str, object]]:
    return tools_as_openai(numerals.loads(tools)) if tools else []


def trl_run_record(
    chosen: Conversation, rejected: Conversation, tools: str | None, turn: int | None = None
) -> dict[str, object]:
    """TRL's conversational preference record of two runs (explicit prompt), in TRL's
    tool-calling form (``arguments`` dicts, results ``tool`` messages with ``name``), the
    tool definitions in a ``tools`` column (a list of JSON schemas, as TRL's docs show)."""
    prompt, on_chosen, on_rejected = _trajectory_parts(chosen, rejected, "trl", turn)
    return {"prompt": prompt, "chosen": on_chosen, "rejected": on_rejected, "tools": _tools(tools)}


def openai_run_record(
    preferred: Conversation,
    non_preferred: Conversation,
    tools: str | None,
    turn: int | None = None,
) -> dict[str, object] | None:
    """OpenAI's preference fine-tuning record of two runs: ``input.messages`` what both
    share (tool calls, ``arguments`` JSON strings, and ``tool`` results included),
    ``input.tools`` the definitions in OpenAI's form, each output the one assistant message
    that follows (its tool calls included). None where a side goes on for more than one
    message after what they share: OpenAI's outputs are assistant messages only (its API
    reference) and it trains on one, the last (its DPO guide)."""
    prompt, on_a, on_b = _trajectory_parts(preferred, non_preferred, "openai", turn)
    if len(on_a) != 1 or len(on_b) != 1 or {on_a[0]["role"], on_b[0]["role"]} != {"assistant"}:
        return None
    return {
        "input": {"messages": prompt, "tools": _tools(tools), "parallel_tool_calls": True},
        "preferred_output": on_a,
        "non_preferred_output": on_b,
    }
