"""Anthropic's HH-RLHF: ``chosen`` and ``rejected``, each one transcript string of
``\\n\\nHuman: `` and ``\\n\\nAssistant: `` turns, usually the same chat up to the last
answer. Each is split into messages at those markers and nothing else, so joining them
back gives the transcript byte for byte (``transcript``); the compared turn is the first
answer at which the two differ (two that never differ are refused). Which side is A
follows from the two sides' content (``conversation_parts.with_oriented``); the
preference becomes reviewer ``hh-rlhf``'s verdict on ``overall``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

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
    with_oriented,
)
from desktop.domain.import_shapes.plain_pairs import kept

MARKS = {"user": "\n\nHuman: ", "assistant": "\n\nAssistant: "}
_ROLE = {mark: role for role, mark in MARKS.items()}
_SPLIT = re.compile("(\n\nHuman: |\n\nAssistant: )")
_SIDES = ("chosen", "rejected")


def split_transcript(text: str) -> Conversation:
    """A transcript as messages; ValueError where it does not start with a turn marker
    (the text before it would be lost)."""
    parts = _SPLIT.split(text)
    if parts[0]:
        raise ValueError("does not start with '\\n\\nHuman: '")
    return tuple(
        Message(_ROLE[mark], content)
        for mark, content in zip(parts[1::2], parts[2::2], strict=True)
    )


def transcript(conversation: Conversation) -> str:
    """The transcript string a split conversation came from."""
    return "".join(MARKS[m.role] + m.content for m in conversation)


class HhRlhf(Shape):
    name = "hh-rlhf"
    title = "Anthropic HH-RLHF (chosen, rejected: Human/Assistant transcripts)"
    marks = ("chosen",)
    rubric = RUBRIC
    batch = BATCH

    def claims(self, fields: Mapping[str, object]) -> bool:
        chosen = fields.get("chosen")
        return (
            "prompt" not in fields
            and isinstance(chosen, str)
            and chosen.startswith(MARKS["user"])
            and "rejected" in fields
        )

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        by_field = beside_columns(names, overrides, _SIDES)
        return Columns(by_field, frozenset(by_field.values()) | frozenset(_SIDES))

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        chosen, rejected = (_side(where, fields.get(name), name) for name in _SIDES)
        turn = parting_turn(where, chosen, rejected, _SIDES)
        a, b, preferred = with_oriented(chosen, rejected)
        names = (
            {"conversation_a": "chosen", "conversation_b": "rejected"}
            if preferred == "A"
            else {"conversation_a": "rejected", "conversation_b": "chosen"}
        )
        values: dict[str, object] = beside_fields(where, fields, columns)
        values.update(compared_fields(where, a, b, turn, {**names, "turn": "chosen"}))
        metadata = kept(fields, columns.members)
        return ShapedRecord(values, metadata, reviews=(FileVerdict(self.name, preferred),))


def _side(where: str, value: object, name: str) -> Conversation:
    if type(value) is not str:
        raise ImportDataError(f"{where}: field {name!r}: must be a transcript (text)")
    try:
        return split_transcript(value)
    except ValueError as exc:
        raise ImportDataError(f"{where}: field {name!r}: {exc}") from None
