"""Plain pairs: an instruction and two responses in columns of common names
(``domain/columns.py``), and no verdicts; every other member is kept as metadata. Every
record is this kind when no other shape claims it.

The pair's id is a column that names the pair (``id``, ``pair_id``, ``uid``, ...). A
``question_id`` or ``prompt_id`` names the question, which several pairs share (MT-bench's
votes, Arena's battles, one prompt answered by many models), so it is kept as metadata and
the pair is its texts and generators; ``--map external_id=question_id`` makes it the id
where each question has one pair.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from desktop.domain.columns import REQUIRED
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import Columns, Shape, ShapedRecord

_JSON_CONSTANTS = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


class PlainPairs(Shape):
    name = "pairs"
    title = "instruction and two responses"

    def claims(self, fields: Mapping[str, object]) -> bool:
        return True

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        return ShapedRecord(pair_fields(where, fields, columns), kept(fields, columns.members))


def kept(fields: Mapping[str, object], used: frozenset[str]) -> dict[str, object]:
    """The members of a record that no pair field or verdict took: its metadata."""
    return {k: v for k, v in fields.items() if k not in used}


def pair_fields(where: str, fields: Mapping[str, object], columns: Columns) -> dict[str, object]:
    """The pair fields of one record, checked field by field: text or None (a dict of
    objects, as a shape adds its other fields to it)."""
    values: dict[str, object] = {}
    for name, column in columns.by_field.items():
        value = fields.get(column)
        # A response may be empty (a model can answer nothing); it may not be absent,
        # and an instruction must have text.
        if value is None or (value == "" and name == "instruction"):
            if name in REQUIRED:
                state = "missing" if value is None else "empty"
                raise ImportDataError(f"{where}: field {column!r} ({name}) is {state}")
            values[name] = None
        elif isinstance(value, str):
            values[name] = value
        elif isinstance(value, (dict, list, bool)) or (
            isinstance(value, float) and not math.isfinite(value)
        ):
            got = _JSON_CONSTANTS.get(str(value), type(value).__name__)
            raise ImportDataError(f"{where}: field {column!r} ({name}) must be text, got {got}")
        else:
            values[name] = str(value)
    return values
