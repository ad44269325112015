"""TRL preference records: ``prompt``, ``chosen`` and ``rejected``, in either of TRL's
forms. Standard: three strings, a single-turn pair. Conversational: message lists, the
prompt's messages followed by each completion's. Implicit prompt: no ``prompt``,
``chosen`` and ``rejected`` each a whole conversation. Every form is compared at the
first answer where the two sides differ (answers they share before it are context), and a
record whose sides never differ is refused. Which side is A follows from the two sides'
content (``conversation_parts.with_oriented``); the preference becomes reviewer ``trl``'s
verdict on ``overall``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from desktop.domain.conversations import Conversation, Message
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import Columns, FileVerdict, Shape, ShapedRecord
from desktop.domain.import_shapes.conversation_parts import (
    BATCH,
    RUBRIC,
    beside_columns,
    beside_fields,
    compared_fields,
    parting_turn,
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

    def claims(self, fields: Mapping[str, Any]) -> bool:
        return "rejected" in fields

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        names = list(names)
        # The prompt, where there is one, under TRL's name or an instruction's.
        prompt = beside_columns(names, overrides, _SIDES, ("instruction",))
        by_field = beside_columns(names, overrides, (*_SIDES, *prompt.values()))
        by_field.update(prompt)
        return Columns(by_field, frozenset(by_field.values()) | frozenset(_SIDES))

    def read(self, where: str, fields: Mapping[str, Any], columns: Columns) -> ShapedRecord:
        asked = columns.by_field.get("instruction")
        prompt = fields.get(asked) if asked else None
        chosen, rejected = (fields.get(n) for n in _SIDES)
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
        # Completions that share their first answer(s) part later: compared there.
        turn = parting_turn(where, a_side, b_side, _SIDES)
        a, b, preferred = with_oriented(a_side, b_side)
        names = (
            {"conversation_a": "chosen", "conversation_b": "rejected"}
            if preferred == "A"
            else {"conversation_a": "rejected", "conversation_b": "chosen"}
        )
        plain = Columns.of({f: c for f, c in columns.by_field.items() if f != "instruction"})
        values: dict[str, Any] = beside_fields(where, fields, plain)
        values.update(compared_fields(where, a, b, turn, {**names, "turn": "chosen"}))
        metadata = kept(fields, columns.members)
        return ShapedRecord(values, metadata, reviews=(FileVerdict(self.name, preferred),))
