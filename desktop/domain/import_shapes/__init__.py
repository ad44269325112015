"""The import shapes: every kind of record Tiebreak imports, in one table.

``SHAPES`` is the only list: ``tiebreak import --format`` takes its names, and a file's
kind is the first shape in it that claims the file's first record (plain pairs, last,
claims every record). A shape is one module beside this one (see ``base.Shape``); adding
one is that module, a line here, and a test (docs/ARCHITECTURE.md, "How to add an import
shape").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from desktop.domain.import_shapes.alpaca_eval import AlpacaEval
from desktop.domain.import_shapes.arena_preference import ArenaPreference
from desktop.domain.import_shapes.base import (
    Columns,
    FileAnswer,
    FileVerdict,
    JudgeRubric,
    Shape,
    ShapedRecord,
)
from desktop.domain.import_shapes.fastchat import FastChatJudgments, FastChatPairs
from desktop.domain.import_shapes.hh_rlhf import HhRlhf
from desktop.domain.import_shapes.href import Href
from desktop.domain.import_shapes.judgebench import JudgeBench
from desktop.domain.import_shapes.message_pairs import MessagePairs
from desktop.domain.import_shapes.openai_preference import OpenAiPreference
from desktop.domain.import_shapes.plain_pairs import PlainPairs
from desktop.domain.import_shapes.rewardbench import RewardBench
from desktop.domain.import_shapes.trl import Trl
from desktop.domain.import_shapes.votes import Votes

__all__ = [
    "FASTCHAT",
    "PLAIN",
    "SHAPES",
    "Columns",
    "FileAnswer",
    "FileVerdict",
    "JudgeRubric",
    "Shape",
    "ShapedRecord",
    "detect",
    "shape_named",
    "taken_over",
]

PLAIN = PlainPairs()
FASTCHAT = FastChatPairs()  # made of a FastChat folder by services/fastchat_source.py
# Most particular first: a record is the first shape's that claims it.
SHAPES: tuple[Shape, ...] = (
    AlpacaEval(),
    Href(),
    Votes(),
    JudgeBench(),
    FastChatJudgments(),
    FASTCHAT,
    ArenaPreference(),
    OpenAiPreference(),
    HhRlhf(),
    RewardBench(),
    Trl(),
    MessagePairs(),
    PLAIN,
)
_BY_NAME = {shape.name: shape for shape in SHAPES}
# The members that may turn a plain-pairs file into another kind at a later record.
_TAKEOVER_MARKS = tuple(m for s in SHAPES if s.takes_over for m in s.marks)


def shape_named(name: str) -> Shape:
    return _BY_NAME[name]


def detect(fields: Mapping[str, object]) -> Shape:
    """The kind of a record: the first shape that claims it."""
    for shape in SHAPES:
        marked = not shape.marks or any(mark in fields for mark in shape.marks)
        if marked and shape.claims(fields):
            return shape
    return PLAIN


def taken_over(records: Sequence[tuple[str, Mapping[str, object]]]) -> Shape | None:
    """The shape that takes over a plain-pairs file at the first of ``records`` that is
    its kind (see ``Shape.takes_over``), or None. Two lookups a record for a plain file."""
    for _, fields in records:
        for mark in _TAKEOVER_MARKS:
            if mark in fields:
                shape = detect(fields)
                if shape.takes_over:
                    return shape
    return None
