"""TRL preference records: ``prompt``, ``chosen`` and ``rejected``, in either of TRL's
forms. Standard: three strings, a single-turn pair. Conversational: message lists, the
prompt's messages followed by each completion's. Implicit prompt: no ``prompt``,
``chosen`` and ``rejected`` each a whole conversation. Every form is compared at the
first answer where the two sides differ (answers they share before it are context), and a
record whose sides never differ is refused. Which side is A follows from the two sides'
content (``conversation_parts.with_oriented``); the preference becomes reviewer ``trl``'s
verdict on ``overall``. In a CSV, a cell of JSON text that is a list of messages is the
conversational form.

Tool calling (TRL's dataset formats, "Tool Calling"): the messages may call tools
(``tool_calls`` of ``{"type": "function", "function": {"name", "arguments": {...}}}``,
arguments a dict, no id) and carry results (``tool`` messages naming the tool), with the
tool definitions in a ``tools`` column (a list of JSON schemas, or JSON text of one). Two
such runs (prompt and each completion, or each whole) are compared whole, at their final
answers, and keep their tools.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from desktop.domain import numerals
from desktop.domain.conversations import Conversation, Message
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import Columns, FileVerdict, Shape, ShapedRecord
from desktop.domain.import_shapes.conversation_parts import (
    BATCH,
    RUBRIC,
    beside_columns,
    beside_fields,
    compared_fields,
    compared_turn,
    given_tools,
    persons_label,
    provenance_taken,
    side,
    with_oriented,
)
from desktop.domain.import_shapes.plain_pairs import kept

_SIDES = ("chosen", "rejected")


class Trl(Shape):
    name = "trl"
    title = "TRL preferences (prompt, chosen, rejected: text or message lists)"
    marks = ("chosen",)
    rubric = RUBRIC
    batch = BATCH

    def claims(self, fields: Mapping[str, object]) -> bool:
        return "rejected" in fields

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        names = list(names)
        # The prompt, where there is one, under TRL's name or an instruction's.
        prompt = beside_columns(names, overrides, _SIDES, ("instruction",))
        own = provenance_taken(names)
        taken = (*_SIDES, *prompt.values(), *(t for t in _TOOLS if t in names), *own)
        by_field = beside_columns(names, overrides, taken)
        by_field.update(prompt)
        by_field.update({t: t for t in _TOOLS if t in names})
        return Columns(by_field, frozenset(by_field.values()) | frozenset(_SIDES))

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        asked = columns.by_field.get("instruction")
        prompt = fields.get(asked) if asked else None
        prompt = _listed(prompt)
        chosen, rejected = (_listed(fields.get(n)) for n in _SIDES)
        if chosen is None or rejected is None:
            missing = "chosen" if chosen is None else "rejected"
            raise ImportDataError(f"{where}: field {missing!r} is missing")
        if type(chosen) is str and type(rejected) is str:
            if type(prompt) is not str:
                raise ImportDataError(
                    f"{where}: field {asked or 'prompt'!r}: with chosen and rejected as text,"
                    " a prompt must be text too (TRL's implicit prompt needs message lists)"
                )
            a_side: Conversation = (Message("user", prompt), Message("assistant", chosen))
            b_side: Conversation = (Message("user", prompt), Message("assistant", rejected))
        else:
            start: Conversation = ()
            if prompt is not None:
                start = side(where, prompt, asked or "prompt", encoded=False)
            a_side = start + side(where, chosen, "chosen", encoded=False)
            b_side = start + side(where, rejected, "rejected", encoded=False)
        # Completions that share their first answer(s) part later: compared there (two
        # runs of an agent: whole, at their final answers).
        turn = compared_turn(where, a_side, b_side, _SIDES)
        a, b, preferred = with_oriented(a_side, b_side)
        names = (
            {"conversation_a": "chosen", "conversation_b": "rejected"}
            if preferred == "A"
            else {"conversation_a": "rejected", "conversation_b": "chosen"}
        )
        plain = Columns.of(
            {f: c for f, c in columns.by_field.items() if f not in ("instruction", *_TOOLS)}
        )
        values: dict[str, object] = beside_fields(where, fields, plain)
        tools = given_tools(fields, columns.by_field.get("tools"))
        named = {**names, "turn": "chosen", "tools": "tools"}
        values.update(compared_fields(where, a, b, turn, named, tools))
        metadata = kept(fields, columns.members)
        if not persons_label(fields):  # the judge's label: kept, no one's verdict
            return ShapedRecord(values, metadata)
        return ShapedRecord(values, metadata, reviews=(FileVerdict(self.name, preferred),))


_TOOLS = ("tools",)  # the tool definitions, beside the messages (TRL's column)


def _listed(value: object) -> object:
    """A CSV cell (text) that is a JSON list of messages, as that list: TRL's
    conversational form written out as text; any other value as it is. A completion in
    TRL's standard form is text that is no such list."""
    if type(value) is not str or not value.lstrip().startswith("[{"):
        return value
    try:
        listed = numerals.loads(value)
    except ValueError:
        return value
    if isinstance(listed, list) and all(isinstance(m, dict) and "role" in m for m in listed):
        return listed
    return value
