"""Two OpenAI-style message lists in columns (``messages_a`` and ``messages_b``, or
``conversation_a`` and ``conversation_b``), in JSONL as lists or in CSV as JSON text,
with an optional ``turn`` (the last where absent) and the plain pair's other columns (id,
generators, category, reference, source); no verdicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import Columns, Shape, ShapedRecord
from desktop.domain.import_shapes.conversation_parts import (
    BATCH,
    RUBRIC,
    beside_columns,
    beside_fields,
    compared_fields,
    side,
)
from desktop.domain.import_shapes.plain_pairs import kept

_PAIRS = (("messages_a", "messages_b"), ("conversation_a", "conversation_b"))


class MessagePairs(Shape):
    name = "messages"
    title = "two message lists (messages_a/_b or conversation_a/_b, turn)"
    marks = ("messages_a", "conversation_a")
    rubric = RUBRIC
    batch = BATCH

    def claims(self, fields: Mapping[str, Any]) -> bool:
        return any(a in fields and b in fields for a, b in _PAIRS)

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        names = list(names)
        found = next(((a, b) for a, b in _PAIRS if a in names and b in names), None)
        if found is None:
            raise ImportDataError(
                f"{where}: no columns messages_a and messages_b (or conversation_a and"
                " conversation_b)"
            )
        taken = (*found, "turn") if "turn" in names else found
        by_field = beside_columns(names, overrides, taken)
        by_field.update(zip(("conversation_a", "conversation_b"), found, strict=True))
        if "turn" in taken:
            by_field["turn"] = "turn"
        return Columns(by_field, frozenset(by_field.values()))

    def read(self, where: str, fields: Mapping[str, Any], columns: Columns) -> ShapedRecord:
        names = columns.by_field
        plain = Columns.of({f: c for f, c in names.items() if f not in _CONVERSATION})
        a = side(where, fields.get(names["conversation_a"]), names["conversation_a"])
        b = side(where, fields.get(names["conversation_b"]), names["conversation_b"])
        turn = fields.get(names["turn"]) if "turn" in names else None
        if turn == "":
            turn = None
        values: dict[str, Any] = beside_fields(where, fields, plain)
        values.update(compared_fields(where, a, b, turn, names))
        return ShapedRecord(values, kept(fields, columns.members))


_CONVERSATION = frozenset({"conversation_a", "conversation_b", "turn"})
