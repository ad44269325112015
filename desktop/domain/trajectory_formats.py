"""A trajectory written in another ecosystem's form, losslessly: every call, its id, its
arguments and every result kept, only the way they are written changed.

A side is stored as its file wrote it (``conversations.Message.raw``); an export or a
training file may ask for another form:

- **OpenAI chat** (``to_openai``): an assistant message's calls in ``tool_calls``
  (``id``, ``type: "function"``, ``function.name``, ``function.arguments`` as a JSON
  *string*: the file's own string where it wrote one, so not a character changes), each
  result a ``tool`` message with ``tool_call_id``.
- **TRL** (``to_trl``): the same with ``arguments`` a *dict* and each result a ``tool``
  message with the tool's ``name``; the ids a side has are kept beside them (``id`` in a
  call, ``tool_call_id`` in a result: chat templates read them where a model needs them,
  and a conversion back finds the same ids), and none is made up for a side without.

Where a side has no ids (TRL's form links a result to its call by the tool's name), each
call is given a stable one, ``call_<n>`` (its place among the side's calls), and each
result the id of the call it answers (the first open call of that name), so the same side
always converts to the same file. Only Anthropic's and Inspect's forms mark a result as
an error: OpenAI's and TRL's have no member for it, so the mark goes where they cannot
write it (the result's text is kept whole).

Tool definitions likewise (``tools_as_openai``): OpenAI's and TRL's ``{"type": "function",
"function": {"name", "description", "parameters"}}`` from Anthropic's ``{"name",
"description", "input_schema"}`` (Inspect's ``parameters`` in place of ``input_schema``
reads the same); members of their own are carried across.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from desktop.domain import numerals
from desktop.domain.trajectory import Step, step

_TOOL_BLOCKS = ("tool_use", "tool_result")
# Members of a message that say how a form writes calls and results: rewritten, never
# carried over as they were (a TRL result's ``name``, Inspect's ``function`` and ``error``).
_WRITTEN = frozenset({"role", "content", "tool_calls", "tool_call_id", "is_error"})
_RESULT_MEMBERS = frozenset({"name", "function", "error"})


@dataclass(frozen=True)
class _Call:
    id: str
    name: str
    arguments: object  # decoded, numbers as the file wrote them
    text: str | None  # the JSON string the file wrote them as, where it wrote one
    given: bool = True  # the id is the file's own (not made here: TRL's calls have none)


@dataclass(frozen=True)
class _Result:
    call_id: str
    name: str
    content: object  # as the file gave it: text, or a list of parts
    text: str
    error: bool
    given: bool = True  # the call's id is the file's own


@dataclass(frozen=True)
class _Read:
    """One message of a side, read: what it says beside calls and results, its calls and
    results with their ids linked, and its members of its own."""

    role: str
    content: object  # the content left once tool blocks are taken out (None: nothing)
    calls: tuple[_Call, ...]
    results: tuple[_Result, ...]
    own: dict[str, object]


def message_dict(raw: str | None, role: str, content: str) -> dict[str, object]:
    """A stored message as a dict, numbers as written (``Message.raw``, else role and text)."""
    if raw is None:
        return {"role": role, "content": content}
    value = numerals.loads(raw)
    assert isinstance(value, dict)  # stored by conversations.messages, checked there
    return value


def _given_arguments(message: Mapping[str, object]) -> list[str | None]:
    """Per call, in ``trajectory.step``'s order (blocks, then ``tool_calls``), the JSON
    string the file wrote its arguments as, or None where it wrote an object."""
    out: list[str | None] = []
    content = message.get("content")
    if isinstance(content, list):
        out += [None for p in content if isinstance(p, dict) and p.get("type") == "tool_use"]
    calls = message.get("tool_calls")
    for item in calls if isinstance(calls, list) else ():  # (a list: ``step`` checked it)
        function = item.get("function")
        given = function.get("arguments") if isinstance(function, dict) else item.get("arguments")
        out.append(given if isinstance(given, str) else None)
    return out


def _left_content(message: Mapping[str, object]) -> object:
    """The content once tool_use and tool_result blocks are taken out: text as given, a
    list of text blocks as their text, other parts as a list, None for nothing."""
    content = message.get("content")
    if not isinstance(content, list):
        return content
    rest = [p for p in content if not (isinstance(p, dict) and p.get("type") in _TOOL_BLOCKS)]
    if len(rest) == len(content):
        return content
    if not rest:
        return None
    if all(isinstance(p, dict) and p.get("type") == "text" for p in rest):
        return "\n\n".join(str(p.get("text", "")) for p in rest)
    return rest


class _Linker:
    """Gives every call an id (its own, else a stable one) and every result the id and
    name of the call it answers."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.used = {c.id for s in steps for c in s.calls if c.id is not None}
        self.count = 0
        self.names: dict[str, str] = {}  # call id -> tool name
        self.open: dict[str, list[str]] = {}  # tool name -> ids of calls not yet answered
        self.made: set[str] = set()  # the ids made here

    def call_id(self, given: str | None, name: str) -> str:
        self.count += 1
        call_id = given
        if call_id is None:
            call_id, n = f"call_{self.count}", self.count
            while call_id in self.used:
                n += 1000
                call_id = f"call_{n}"
            self.used.add(call_id)
            self.made.add(call_id)
        self.names[call_id] = name
        self.open.setdefault(name, []).append(call_id)
        return call_id

    def result(self, given: str | None, name: str | None) -> tuple[str, str]:
        if given is not None:
            name = name or self.names.get(given, "")
            waiting = self.open.get(name, [])
            if given in waiting:
                waiting.remove(given)
            return given, name
        waiting = self.open.get(name or "", [])
        call_id = waiting.pop(0) if waiting else f"call_{name}"  # check_side refuses none
        return call_id, name or ""


def read_side(side: Sequence[Mapping[str, object]]) -> list[_Read]:
    """A side's messages (dicts, in any form) read with their calls and results linked."""
    steps = [step(m, f"message {n}") for n, m in enumerate(side, start=1)]
    link = _Linker(steps)
    out: list[_Read] = []
    for message, s in zip(side, steps, strict=True):
        texts = _given_arguments(message)
        texts += [None] * (len(s.calls) - len(texts))  # (a call its message gave no text for)
        calls = tuple(
            _Call(
                link.call_id(c.id, c.name),
                c.name,
                _arguments_as_written(c.arguments, text),
                text,
                c.id is not None,
            )
            for c, text in zip(s.calls, texts, strict=False)  # (texts may hold more)
        )
        results = []
        for k, r in enumerate(s.results):
            call_id, name = link.result(r.call_id, r.name)
            content: object = r.text
            if message.get("role") == "tool":
                given = message.get("content")
                content = given if isinstance(given, str | list) and given else r.text
            else:
                parts = message.get("content")  # (a list: its blocks gave the results)
                blocks = (
                    [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []
                )
                block = [p for p in blocks if p.get("type") == "tool_result"][k]
                given = block.get("content")
                content = given if isinstance(given, str | list) else r.text
            given_id = call_id not in link.made
            results.append(_Result(call_id, name, content, r.text, r.error, given_id))
        own_skip = _WRITTEN | (_RESULT_MEMBERS if message.get("role") == "tool" else frozenset())
        own = {k: v for k, v in message.items() if k not in own_skip}
        role = str(message.get("role"))
        left = None if message.get("role") == "tool" else _left_content(message)
        out.append(_Read(role, left, calls, tuple(results), own))
    return out


def _arguments_as_written(arguments: object, text: str | None) -> object:
    """A call's arguments with their numbers as the file wrote them: those OpenAI's form
    gave as JSON text read from it again (``step`` reads them as Python does, 1.50 as
    1.5), so TRL's dict and a CSV cell keep every digit."""
    return numerals.loads(text) if text is not None else arguments


def _openai_call(call: _Call) -> dict[str, object]:
    text = call.text if call.text is not None else numerals.to_json(call.arguments)
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": text}}


def _trl_call(call: _Call) -> dict[str, object]:
    """TRL's call: its id only where the file gave one (TRL's own form has none)."""
    function = {"name": call.name, "arguments": call.arguments}
    head: dict[str, object] = {"id": call.id} if call.given else {}
    return {**head, "type": "function", "function": function}


def _text_content(content: object, text: str) -> str:
    """A result's content for OpenAI and TRL: text as given; a list of text parts as its
    text (what a chat template reads); anything else as its text."""
    return content if isinstance(content, str) else text


def _all_text(content: object) -> bool:
    return isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") == "text" for p in content
    )


def _chat(side: Sequence[Mapping[str, object]], trl: bool) -> list[list[dict[str, object]]]:
    out: list[list[dict[str, object]]] = []
    for m in read_side(side):
        written: list[dict[str, object]] = []
        if m.role == "tool" or (m.results and not m.calls):
            for r in m.results:
                result: dict[str, object] = {"role": "tool"}
                if trl:
                    result["name"] = r.name
                if r.given or not trl:
                    result["tool_call_id"] = r.call_id
                result["content"] = _text_content(r.content, r.text)
                written.append(result)
            if m.role == "tool":
                written[-1].update(m.own)
            elif m.content not in (None, "", []):  # a user's words beside the results
                written.append({"role": m.role, "content": m.content, **m.own})
            out.append(written)
            continue
        message: dict[str, object] = {"role": m.role}
        if m.calls:
            message["content"] = m.content  # None where only tool blocks were there
            if trl and message["content"] is None:
                del message["content"]  # TRL's calling message has no content
            message["tool_calls"] = [_trl_call(c) if trl else _openai_call(c) for c in m.calls]
        else:
            message["content"] = "" if m.content is None and m.role != "assistant" else m.content
        content = message.get("content")
        if trl and isinstance(content, list) and _all_text(content):  # a template reads text
            message["content"] = "\n\n".join(str(p.get("text", "")) for p in content)
        message.update(m.own)
        out.append([message])
    return out


def to_openai(side: Sequence[Mapping[str, object]]) -> list[list[dict[str, object]]]:
    """Per message of ``side``, the OpenAI chat messages it becomes (one mostly; an
    Anthropic message of several results, one ``tool`` message per result)."""
    return _chat(side, trl=False)


def to_trl(side: Sequence[Mapping[str, object]]) -> list[list[dict[str, object]]]:
    """Per message of ``side``, the messages TRL's tool-calling form writes it as."""
    return _chat(side, trl=True)


def flat(per_message: Sequence[Sequence[dict[str, object]]]) -> list[dict[str, object]]:
    return [m for written in per_message for m in written]


def tools_as_openai(tools: Sequence[Mapping[str, object]]) -> list[dict[str, object]]:
    """Tool definitions in OpenAI's (and TRL's) form; one already so, as it is."""
    out: list[dict[str, object]] = []
    for tool in tools:
        if isinstance(tool.get("function"), dict) or not isinstance(tool.get("name"), str):
            out.append(dict(tool))  # OpenAI's already, or a server tool of its own kind
            continue
        function: dict[str, object] = {"name": tool["name"]}
        if "description" in tool:
            function["description"] = tool["description"]
        schema = tool.get("input_schema", tool.get("parameters"))
        if schema is not None:
            function["parameters"] = schema
        kept = ("name", "description", "input_schema", "parameters")
        function.update({k: v for k, v in tool.items() if k not in kept})
        out.append({"type": "function", "function": function})
    return out
