"""OpenAI's preference fine-tuning records: ``input.messages`` (the chat so far),
``preferred_output`` and ``non_preferred_output`` (each the assistant's message list).
Each side is the input's messages and one output, compared at the first answer where the
outputs differ (two that never differ are refused); ``input.tools`` are the pair's tools
(two agent runs, whose messages and outputs may call tools: compared whole, at the final
answers), the rest of ``input`` (``parallel_tool_calls``) is kept as metadata. Which side
is A follows from the two sides' content (``conversation_parts.with_oriented``); the
preference becomes reviewer ``openai-preference``'s verdict on ``overall``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

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

_SIDES = ("preferred_output", "non_preferred_output")


class OpenAiPreference(Shape):
    name = "openai-preference"
    title = "OpenAI preference fine-tuning (input.messages, preferred_output, non_preferred_output)"
    marks = ("preferred_output",)
    rubric = RUBRIC
    batch = BATCH

    def claims(self, fields: Mapping[str, object]) -> bool:
        return "input" in fields and "non_preferred_output" in fields

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        names = list(names)
        own = provenance_taken(names)
        taken = (*_SIDES, "input", *own)
        by_field = beside_columns(names, overrides, taken)
        return Columns(by_field, frozenset(by_field.values()) | frozenset(taken) - set(own))

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        given = fields.get("input")
        if not isinstance(given, dict) or "messages" not in given:
            raise ImportDataError(f"{where}: field 'input': must be an object with messages")
        start = side(where, given["messages"], "input.messages", encoded=False)
        preferred = start + side(where, fields.get(_SIDES[0]), _SIDES[0], encoded=False)
        other = start + side(where, fields.get(_SIDES[1]), _SIDES[1], encoded=False)
        a, b, verdict = with_oriented(preferred, other)
        names = (
            {"conversation_a": _SIDES[0], "conversation_b": _SIDES[1]}
            if verdict == "A"
            else {"conversation_a": _SIDES[1], "conversation_b": _SIDES[0]}
        )
        turn = compared_turn(where, preferred, other, _SIDES)
        values: dict[str, object] = beside_fields(where, fields, columns)
        tools = given_tools(given, "tools")
        named = {**names, "turn": _SIDES[0], "tools": "input.tools"}
        values.update(compared_fields(where, a, b, turn, named, tools))
        metadata = kept(fields, columns.members)
        taken = ("messages", "tools") if tools is not None else ("messages",)
        rest = {k: v for k, v in given.items() if k not in taken}
        if rest:
            metadata["input"] = rest
        if not persons_label(fields):  # the judge's label: kept, no one's verdict
            return ShapedRecord(values, metadata)
        return ShapedRecord(values, metadata, reviews=(FileVerdict(self.name, verdict),))
