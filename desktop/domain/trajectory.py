"""Agent trajectories: messages that call tools and carry the tools' results, read in each
ecosystem's own form and kept exactly as given.

A message is stored as its file wrote it (``conversations.Message.raw``); this module reads
one into a ``Step``, what every consumer shows, judges, counts and converts:

- **OpenAI chat**: assistant ``content`` null, text or a list of parts; ``tool_calls``
  with ``id``, ``type`` and ``function`` (``name``, ``arguments`` as a JSON *string*);
  ``tool`` messages answering by ``tool_call_id``.
- **TRL**: the same, ``function.arguments`` a *dict*, no id; a ``tool`` message answers by
  ``name``.
- **Anthropic Messages**: ``content`` a list of blocks: ``text``, ``tool_use`` (``id``,
  ``name``, ``input``), ``tool_result`` (``tool_use_id``, content text or blocks,
  ``is_error``), the results in a ``user`` message.
- **Inspect AI**: ``tool_calls`` with ``id``, ``function`` (the name) and ``arguments`` (a
  dict); ``tool`` messages with ``tool_call_id``, ``function`` and ``error``.

``check_side`` refuses what cannot be one run of an agent: a result that answers no call
before it, a call id used twice, arguments that are not JSON where the format says so.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from desktop.domain import numerals

#: The rubric of two runs of an agent (``prompts/trajectory.toml``): a person's verdict on
#: such a pair, and a project of them in the window, are on it. Named here, which the
#: window loads before its first paint, not beside the import shapes (which hash).
TRAJECTORY_RUBRIC = "trajectory"
#: What marks JSON text (a stored side or message, ``json.dumps``'s separators) that may
#: hold a step of a trajectory: a member only such a step has, or a ``tool`` role. Text
#: without any is surely no trajectory and need not be read; text that quotes one is read
#: and found to be none.
TRAJECTORY_MARKS = (
    '"tool_calls"',
    '"tool_call_id"',
    '"tool_use"',
    '"tool_result"',
    '"role": "tool"',
)


def may_act(text: str | None) -> bool:
    """Whether JSON text may hold a step of a trajectory (``TRAJECTORY_MARKS``)."""
    return text is not None and any(mark in text for mark in TRAJECTORY_MARKS)


class TrajectoryError(ValueError):
    """A message, or a side, that cannot be read as a run of an agent."""


@dataclass(frozen=True)
class ToolCall:
    id: str | None
    name: str
    arguments: object  # decoded: a dict mostly, whatever JSON value the call gave
    #: how the file wrote the arguments: "string" (JSON text, OpenAI's), "object" (TRL,
    #: Anthropic, Inspect), kept so a conversion back writes the same form
    written: str = "object"

    def arguments_text(self, indent: int | None = 2) -> str:
        """The arguments as JSON, pretty-printed for a person (keys in the call's order)."""
        return json.dumps(self.arguments, ensure_ascii=False, indent=indent)


@dataclass(frozen=True)
class ToolResult:
    call_id: str | None
    name: str | None
    text: str
    error: bool = False


@dataclass(frozen=True)
class Step:
    """One message read for a person: its role as a reader sees it (an Anthropic ``user``
    message of tool results is a ``tool`` step), its text, the calls it makes and the
    results it carries."""

    role: str  # system, user, assistant or tool
    text: str
    calls: tuple[ToolCall, ...] = ()
    results: tuple[ToolResult, ...] = ()

    @property
    def is_request(self) -> bool:
        """A user's own turn (not a message carrying tool results)."""
        return self.role == "user"


def _text_of(value: object, where: str) -> str:
    """A content's text: text itself, nothing for null, a list's text parts joined (other
    parts, an image say, named in brackets so a reader knows one was there)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return str(value)
    if isinstance(value, list):
        texts = []
        for part in value:
            if isinstance(part, str):
                texts.append(str(part))
            elif isinstance(part, dict):
                kind = part.get("type")
                if kind == "text" or (kind is None and "text" in part):
                    texts.append(str(part.get("text", "")))
                elif kind in ("tool_use", "tool_result"):
                    continue
                elif kind in ("reasoning", "thinking"):
                    said = part.get(kind) or part.get("text") or ""
                    texts.append(f"[{kind}] {said}" if said else f"[{kind}]")
                else:
                    texts.append(f"[{kind or 'part'}]")
            else:
                raise TrajectoryError(f"{where}: a content part must be an object")
        return "\n\n".join(t for t in texts if t)
    raise TrajectoryError(f"{where}: content must be text, null or a list of parts")


def _arguments(value: object, where: str) -> tuple[object, str]:
    if isinstance(value, str):
        try:
            return json.loads(value), "string"
        except json.JSONDecodeError as exc:
            raise TrajectoryError(
                f"{where}: arguments are text that is not JSON ({exc.msg}); OpenAI's format"
                " gives them as a JSON string"
            ) from None
    if value is None:
        return {}, "object"
    if not isinstance(value, dict | list):
        raise TrajectoryError(f"{where}: arguments must be a JSON object or JSON text")
    return value, "object"


def _call(item: object, where: str) -> ToolCall:
    if not isinstance(item, dict):
        raise TrajectoryError(f"{where} must be an object")
    function = item.get("function")
    call_id = item.get("id")
    if call_id is not None and not isinstance(call_id, str):
        raise TrajectoryError(f"{where}: id must be text")
    if isinstance(function, dict):  # OpenAI and TRL
        name = function.get("name")
        arguments, written = _arguments(function.get("arguments"), where)
    elif isinstance(function, str):  # Inspect AI
        name = function
        arguments, written = _arguments(item.get("arguments"), where)
    else:
        raise TrajectoryError(f"{where} has no function (a name and its arguments)")
    if not isinstance(name, str) or not name:
        raise TrajectoryError(f"{where}: the function has no name")
    return ToolCall(call_id, str(name), arguments, written)


def _block_call(block: Mapping[str, object], where: str) -> ToolCall:
    name, call_id = block.get("name"), block.get("id")
    if not isinstance(name, str) or not name:
        raise TrajectoryError(f"{where}: a tool_use block has no name")
    if call_id is not None and not isinstance(call_id, str):
        raise TrajectoryError(f"{where}: a tool_use block's id must be text")
    arguments, _ = _arguments(block.get("input"), where)
    if isinstance(block.get("input"), str):
        raise TrajectoryError(f"{where}: a tool_use block's input must be an object")
    return ToolCall(call_id, str(name), arguments, "object")


def _block_result(block: Mapping[str, object], where: str) -> ToolResult:
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str):
        raise TrajectoryError(f"{where}: a tool_result block has no tool_use_id")
    text = _text_of(block.get("content"), where)
    return ToolResult(call_id, None, text, bool(block.get("is_error")))


def step(message: Mapping[str, object], where: str = "message") -> Step:
    """One message, in any of the four forms, as a step (see the module's docstring)."""
    role = message.get("role")
    content = message.get("content")
    calls: list[ToolCall] = []
    results: list[ToolResult] = []
    if isinstance(content, list):
        for k, part in enumerate(content, start=1):
            if isinstance(part, dict) and part.get("type") == "tool_use":
                calls.append(_block_call(part, f"{where}, block {k}"))
            elif isinstance(part, dict) and part.get("type") == "tool_result":
                results.append(_block_result(part, f"{where}, block {k}"))
    text = _text_of(content, where)
    given = message.get("tool_calls")
    if given is not None:
        if not isinstance(given, list):
            raise TrajectoryError(f"{where}: tool_calls must be a list")
        if role != "assistant":
            raise TrajectoryError(f"{where}: only an assistant message calls tools")
        calls += [_call(c, f"{where}, tool call {k}") for k, c in enumerate(given, start=1)]
    if role == "tool":
        call_id = message.get("tool_call_id")
        if call_id is not None and not isinstance(call_id, str):
            raise TrajectoryError(f"{where}: tool_call_id must be text")
        name = message.get("name") or message.get("function")
        error = message.get("error")
        if error and not text:
            text = str(error.get("message", "")) if isinstance(error, dict) else str(error)
        results.append(
            ToolResult(
                call_id,
                name if isinstance(name, str) else None,
                text,
                bool(error) or bool(message.get("is_error")),
            )
        )
    shown = role
    if results and role == "user":  # Anthropic's results come back in a user message
        shown = "tool"
        if not text.strip():  # a tool step's text is what the tools returned
            text = "\n\n".join(r.text for r in results)
    return Step(str(shown), text, tuple(calls), tuple(results))


def is_rich(message: Mapping[str, object]) -> bool:
    """Whether a message is more than a role and its text (a step of a trajectory, or a
    message with members of its own): kept as the file wrote it."""
    return (
        len(message) != 2
        or type(message.get("content")) is not str
        or message.get("role") == "tool"  # a result: checked against the calls before it
    )


def check_side(steps: Sequence[Step]) -> None:
    """A side's calls and results make one run: every call id used once, every result
    answering a call made before it (by id, or by name where the format has no id)."""
    seen: set[str] = set()
    open_by_id: set[str] = set()
    open_by_name: dict[str, int] = {}
    for n, s in enumerate(steps, start=1):
        for call in s.calls:
            if call.id is not None:
                if call.id in seen:
                    raise TrajectoryError(f"message {n}: tool call id {call.id!r} is used twice")
                seen.add(call.id)
                open_by_id.add(call.id)
            open_by_name[call.name] = open_by_name.get(call.name, 0) + 1
        for result in s.results:
            if result.call_id is not None:
                if result.call_id not in seen:
                    raise TrajectoryError(
                        f"message {n}: a tool result answers call {result.call_id!r}, which"
                        " no message before it makes"
                    )
                open_by_id.discard(result.call_id)
                continue
            if result.name is None:
                raise TrajectoryError(
                    f"message {n}: a tool result names neither the call it answers"
                    " (tool_call_id) nor the tool (name)"
                )
            if not open_by_name.get(result.name):
                raise TrajectoryError(
                    f"message {n}: a result of tool {result.name!r} answers no call of it before it"
                )
            open_by_name[result.name] -= 1


#: What marks a message as stored (``json.dumps``'s separators) that may call a tool or
#: carry a result or an error; a message without any is not read to be counted.
CARRIES = ('"tool_calls"', '"tool_use"', '"tool_result"', '"error"', '"is_error"')


@dataclass(frozen=True)
class Counts:
    """What a side did after its task, the one definition the window's summary, the
    list's columns, the export and the judge's variables share: its **steps**, the
    assistant messages after the task but a final answer that calls no tool (the answer
    is what is compared, not a step: a run that answers at once took 0 steps); the tool
    **calls** it made; the results its tools returned as **errors** (only Anthropic's and
    Inspect's forms mark one); the tools it called, each once, in first-use order; and
    whether it calls a tool or carries a result anywhere (``acts``: it is a trajectory)."""

    steps: int
    calls: int
    errors: int
    tools: tuple[str, ...] = ()
    acts: bool = False


def tally(message: Mapping[str, object]) -> tuple[list[str], int, bool]:
    """The names of the tools a message calls, how many of its results are errors, and
    whether it carries a result, as ``step`` reads them in each form, without reading the
    calls' arguments."""
    names: list[str] = []
    errors = 0
    carries = message.get("role") == "tool"
    content = message.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict):
                kind = block.get("type")
                if kind == "tool_use":
                    names.append(str(block.get("name")))
                elif kind == "tool_result":
                    carries = True
                    errors += bool(block.get("is_error"))
    given = message.get("tool_calls")
    for call in given if isinstance(given, list) else ():  # (a list: ``step`` checked it)
        function = call.get("function") if isinstance(call, dict) else None
        name = function.get("name") if isinstance(function, dict) else function
        names.append(str(name))
    if message.get("role") == "tool":
        errors += bool(message.get("error")) or bool(message.get("is_error"))
    return names, errors, carries


class _Said(Protocol):
    @property
    def role(self) -> str: ...
    @property
    def raw(self) -> str | None: ...


def run_counts(
    side: Sequence[_Said], decoded: Sequence[Mapping[str, object]] | None = None
) -> Counts:
    """``Counts`` of a side of ``Message``s (whole, its task included); only a message
    kept as written with a mark of a call or a result is read, from ``decoded`` (the
    side's messages as a reader already decoded them, in order) where given."""
    return _counted(
        (
            m.role,
            (decoded[i] if decoded is not None else json.loads(m.raw))
            if m.raw and any(k in m.raw for k in CARRIES)
            else None,
        )
        for i, m in enumerate(side)
    )


def counts_of_json(text: str) -> Counts:
    """``Counts`` of a side as a project stores it (JSON text of its messages)."""
    return _counted((str(m.get("role")), m) for m in json.loads(text))


def _counted(messages: Iterable[tuple[str, Mapping[str, object] | None]]) -> Counts:
    calls = errors = 0
    used: dict[str, None] = {}
    acts = started = False
    answered: list[bool] = []  # per assistant message after the task: does it call a tool
    for role, message in messages:
        names, failed, carries = tally(message) if message is not None else ([], 0, False)
        carries = carries or role == "tool"
        acts = acts or bool(names) or carries
        if not started:
            if role == "user" and not carries:
                started = True  # the task
                continue
            if role not in ("system", "user"):
                started = True  # no task: everything counts
        if not started:
            continue
        calls += len(names)
        errors += failed
        for name in names:
            used.setdefault(name, None)
        if role == "assistant":
            answered.append(bool(names))
    steps = len(answered) - (1 if answered and not answered[-1] else 0)
    return Counts(steps, calls, errors, tuple(used), acts)


def tools_list(value: object, where: str = "tools") -> list[dict[str, object]]:
    """A trajectory's tools as given: a list of tool definitions (JSON schemas), or JSON
    text of one."""
    if isinstance(value, str) and type(value) is str:  # JSON text (a CSV cell)
        try:
            value = numerals.loads(value)
        except json.JSONDecodeError as exc:
            raise TrajectoryError(f"{where}: text that is not a JSON list ({exc.msg})") from None
    if not isinstance(value, list):
        raise TrajectoryError(f"{where}: must be a list of tool definitions (objects)")
    tools = [t for t in value if isinstance(t, dict)]
    if len(tools) != len(value):
        raise TrajectoryError(f"{where}: must be a list of tool definitions (objects)")
    return tools


def tool_name(definition: Mapping[str, object]) -> str:
    """A tool definition's name in any of the forms: OpenAI's ``{"type": "function",
    "function": {"name": ...}}``, Anthropic's and Inspect's ``{"name": ...}``."""
    function = definition.get("function")
    if isinstance(function, dict) and isinstance(function.get("name"), str):
        return str(function["name"])
    name = definition.get("name")
    return str(name) if isinstance(name, str) else "?"
