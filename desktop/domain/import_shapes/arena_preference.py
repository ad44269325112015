"""Kaggle's Chatbot Arena preference rows (lmsys-chatbot-arena): ``prompt``,
``response_a`` and ``response_b``, each a JSON-encoded list of strings, one per turn;
``model_a``, ``model_b``; and the vote one-hot in ``winner_model_a``, ``winner_model_b``,
``winner_tie``. The turns interleave into two conversations compared at the last turn;
the vote becomes reviewer ``arena``'s verdict on ``overall``. A and B stay as the Arena
showed them (its sides are already random). ``id`` is the pair's id.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from desktop.domain.conversations import Message
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import Columns, FileVerdict, Shape, ShapedRecord
from desktop.domain.import_shapes.conversation_parts import (
    BATCH,
    RUBRIC,
    beside_columns,
    beside_fields,
    compared_fields,
)
from desktop.domain.import_shapes.plain_pairs import kept
from desktop.domain.verdicts import Verdict

_TEXTS = ("prompt", "response_a", "response_b")
_ONE_HOT = (
    ("winner_model_a", Verdict.A),
    ("winner_model_b", Verdict.B),
    ("winner_tie", Verdict.TIE),
)
_NAMES = {"conversation_a": "response_a", "conversation_b": "response_b", "turn": "prompt"}


class ArenaPreference(Shape):
    name = "arena-preference"
    title = "Kaggle's Chatbot Arena preferences (prompt, response_a/_b as JSON lists, winner_*)"
    marks = ("winner_model_a",)
    rubric = RUBRIC
    batch = BATCH

    def claims(self, fields: Mapping[str, object]) -> bool:
        return all(name in fields for name in (*_TEXTS, "winner_model_b", "winner_tie"))

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        taken = (*_TEXTS, *(name for name, _ in _ONE_HOT))
        by_field = beside_columns(names, overrides, taken)
        return Columns(by_field, frozenset(by_field.values()) | frozenset(taken))

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        prompts, a_turns, b_turns = (_strings(where, fields.get(n), n) for n in _TEXTS)
        for name, turns in (("response_a", a_turns), ("response_b", b_turns)):
            if len(turns) != len(prompts):
                raise ImportDataError(
                    f"{where}: field {name!r}: {len(turns)} turns for {len(prompts)} prompts"
                )
        a = _interleave(prompts, a_turns)
        b = _interleave(prompts, b_turns)
        values: dict[str, object] = beside_fields(where, fields, columns)
        values.update(compared_fields(where, a, b, None, _NAMES))
        votes = [verdict for name, verdict in _ONE_HOT if _flag(where, fields.get(name), name)]
        if len(votes) != 1:
            raise ImportDataError(
                f"{where}: field 'winner_model_a': winner_model_a, winner_model_b and"
                f" winner_tie must hold one 1 between them, got {len(votes)}"
            )
        metadata = kept(fields, columns.members)
        return ShapedRecord(values, metadata, reviews=(FileVerdict("arena", votes[0]),))


def _strings(where: str, value: object, name: str) -> list[str]:
    try:
        items = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError as exc:
        raise ImportDataError(
            f"{where}: field {name!r}: not a JSON list of strings ({exc.msg})"
        ) from None
    if not isinstance(items, list) or not items:
        raise ImportDataError(f"{where}: field {name!r}: must be a non-empty JSON list of strings")
    for n, item in enumerate(items, start=1):
        if type(item) is not str:
            got = "null" if item is None else type(item).__name__
            raise ImportDataError(f"{where}: field {name!r}: turn {n} must be text, got {got}")
    return items


def _interleave(prompts: list[str], answers: list[str]) -> tuple[Message, ...]:
    out: list[Message] = []
    for prompt, answer in zip(prompts, answers, strict=True):
        out += [Message("user", prompt), Message("assistant", answer)]
    return tuple(out)


def _flag(where: str, value: object, name: str) -> bool:
    text = str(value).strip() if value is not None else ""
    if text not in ("0", "1"):
        raise ImportDataError(f"{where}: field {name!r}: must be 0 or 1, got {value!r}")
    return text == "1"
