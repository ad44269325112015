"""Two OpenAI-style message lists in columns (``messages_a`` and ``messages_b``, or
``conversation_a`` and ``conversation_b``), in JSONL as lists or in CSV as JSON text,
with an optional ``turn`` (the last where absent), ``tools`` (the tool definitions of two
agent trajectories, whose messages may call tools: ``domain/trajectory.py``) and the plain
pair's other columns (id, generators, category, reference, source); no verdicts.

The two runs may be written in any of the forms ``domain/trajectory.py`` reads: OpenAI
chat (``tool_calls`` with JSON-string arguments, ``tool`` messages), TRL's (dict
arguments, results by ``name``) or Anthropic Messages (``text``, ``tool_use`` and
``tool_result`` blocks). Anthropic's system prompt is no message but a top-level
``system`` (text, or a list of text blocks): a ``system`` column beside the sides is put
first on both as a system message, ``{"role": "system", "content": <the column>}``
(sides that begin with a system message of their own are refused: it would be two).

A row of Tiebreak's own JSONL export (its ``rubric``, ``judge_status`` and ``metadata``
columns) keeps its ``metadata`` column as the pair's metadata and leaves out the columns
the export wrote itself (verdicts, counts), so export -> import -> export gives the same
file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import suppress

from desktop.domain import numerals
from desktop.domain.conversations import Conversation
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import Columns, Shape, ShapedRecord
from desktop.domain.import_shapes.conversation_parts import (
    BATCH,
    RUBRIC,
    beside_columns,
    beside_fields,
    compared_fields,
    given_tools,
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

    def claims(self, fields: Mapping[str, object]) -> bool:
        return any(a in fields and b in fields for a, b in _PAIRS)

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        names = list(names)
        found = next(((a, b) for a, b in _PAIRS if a in names and b in names), None)
        if found is None:
            raise ImportDataError(
                f"{where}: no columns messages_a and messages_b (or conversation_a and"
                " conversation_b)"
            )
        taken = (*found, *(n for n in _OPTIONAL if n in names))
        by_field = beside_columns(names, overrides, taken)
        by_field.update(zip(("conversation_a", "conversation_b"), found, strict=True))
        by_field.update({n: n for n in _OPTIONAL if n in names})
        return Columns(by_field, frozenset(by_field.values()))

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        names = columns.by_field
        plain = Columns.of({f: c for f, c in names.items() if f not in _CONVERSATION})
        a = side(where, fields.get(names["conversation_a"]), names["conversation_a"])
        b = side(where, fields.get(names["conversation_b"]), names["conversation_b"])
        system = fields.get(names["system"]) if "system" in names else None
        if system not in (None, "", []):
            a, b = (
                _system_first(where, system, s, names[f])
                for s, f in ((a, "conversation_a"), (b, "conversation_b"))
            )
        turn = fields.get(names["turn"]) if "turn" in names else None
        if turn == "":
            turn = None
        tools = given_tools(fields, names.get("tools"))
        values: dict[str, object] = beside_fields(where, fields, plain)
        values.update(compared_fields(where, a, b, turn, names, tools))
        if fields.keys() >= _EXPORTED:  # Tiebreak's own export: its metadata column is it
            return ShapedRecord(values, _exported_metadata(fields.get("metadata")))
        return ShapedRecord(values, kept(fields, columns.members))


def _system_first(where: str, system: object, given: Conversation, column: str) -> Conversation:
    """Anthropic's top-level system prompt (text, or a list of text blocks: in a CSV, JSON
    text of one) as a side's first message."""
    if type(system) is str and system.lstrip().startswith("[{"):
        with suppress(ValueError):  # text that only looks like a list stays as written
            system = numerals.loads(system)
    if given and given[0].role == "system":
        raise ImportDataError(
            f"{where}: field 'system': field {column!r} begins with a system message of its"
            " own; give the system prompt once"
        )
    return side(where, [{"role": "system", "content": system}], "system", encoded=False) + given


def _exported_metadata(value: object) -> dict[str, object]:
    """An export's metadata cell (an object in JSONL; JSON text in a CSV) as metadata."""
    if isinstance(value, str) and value:
        try:
            value = numerals.loads(value)
        except ValueError:
            return {"metadata": value}
    return dict(value) if isinstance(value, dict) else {}


# An OpenAI request's tools beside its messages; Anthropic's system prompt beside them.
_OPTIONAL = ("turn", "tools", "system")
# The columns only Tiebreak's export writes (with its pair and conversation columns).
_EXPORTED = frozenset({"rubric", "judge_status", "metadata"})
_CONVERSATION = frozenset({"conversation_a", "conversation_b", *_OPTIONAL})
