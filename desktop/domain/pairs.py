"""A response pair: one instruction, two responses, optional reference and source text;
or two conversations compared at one assistant turn (``domain/conversations.py``), whose
instruction and responses are that turn's user message and two answers, so everything that
reads a single-turn pair reads a conversation pair the same way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Self

from desktop.domain.conversations import Conversation, implied

# Fields a rubric may require beyond instruction and the two responses.
OPTIONAL_FIELDS = ("reference", "source")
TEXT_FIELDS = ("instruction", "response_a", "response_b", *OPTIONAL_FIELDS)
GENERATOR_FIELDS = ("model_a", "model_b")
# What makes a pair the pair it is: two generators that wrote the same text for the same
# instruction still make two pairs, each with its own verdicts. (Migration m002 keyed every
# pair by these; a conversation pair's key also hashes its CONVERSATION_FIELDS.)
IDENTITY_FIELDS = (*TEXT_FIELDS, *GENERATOR_FIELDS)
#: Every field of a single-turn pair but its row id and metadata, in the order a project
#: stores them and an export writes them: the list the store, import, merge and export
#: share (an export's columns; unchanged by conversations, so a single-turn project exports
#: byte for byte as before).
FIELDS = ("external_id", *IDENTITY_FIELDS, "category")
#: A conversation pair's sides (JSON text of ``[{"role", "content"}, ...]``, every message
#: exactly as given) and its compared assistant turn (from 1); all None for a single-turn
#: pair, whose conversations are implied. Part of the pair's identity when present.
#: ``tools``: the tool definitions two trajectories were given (JSON text of a list, as
#: written), None where a file gave none.
CONVERSATION_FIELDS = ("conversation_a", "conversation_b", "turn", "tools")
#: What a project stores of a pair and an import gives: FIELDS and CONVERSATION_FIELDS.
STORED_FIELDS = (*FIELDS, *CONVERSATION_FIELDS)


def identity_clash(mine: Mapping[str, object], theirs: Mapping[str, object]) -> str | None:
    """The first field in which two records that claim the same external id differ: any
    text (absent and empty count as the same), a generator that both of them name, or the
    conversations and compared turn (where either record has a field, both must)."""
    for name in TEXT_FIELDS:
        if (mine.get(name) or "") != (theirs.get(name) or ""):
            return name
    for name in GENERATOR_FIELDS:
        a, b = mine.get(name), theirs.get(name)
        if a and b and a != b:
            return name
    for name in CONVERSATION_FIELDS:
        if mine.get(name) != theirs.get(name):
            return name
    return None


@dataclass(frozen=True)
class PairContent:
    """What a pair says: its texts, generators, conversations and metadata, without the
    row id a project gives it. A prompt is rendered from this (``render``), so a rubric can
    be tried on a sample pair, and tests build pairs to import, before any is stored; a
    stored pair is a ``Pair``, this and its id."""

    instruction: str
    response_a: str
    response_b: str
    reference: str | None = None
    source: str | None = None
    external_id: str | None = None
    model_a: str | None = None
    model_b: str | None = None
    category: str | None = None
    metadata: dict[str, object] = field(default_factory=dict)  # as the file gave it
    # A conversation pair's two whole sides and its compared assistant turn (from 1);
    # None for a single-turn pair (see ``conversations``).
    conversation_a: Conversation | None = None
    conversation_b: Conversation | None = None
    turn: int | None = None
    tools: str | None = None  # JSON text of the tool definitions (trajectories)

    @property
    def is_conversation(self) -> bool:
        return self.turn is not None

    def conversations(self) -> tuple[Conversation, Conversation]:
        """Both sides as messages: a single-turn pair's are the implied ones."""
        if self.conversation_a is not None and self.conversation_b is not None:
            return self.conversation_a, self.conversation_b
        return implied(self.instruction, self.response_a), implied(
            self.instruction, self.response_b
        )

    @property
    def compared_turn(self) -> int:
        """The assistant turn compared, from 1 (1 for a single-turn pair)."""
        return self.turn or 1

    @property
    def label(self) -> str:
        """How a message names this pair to a person: its external id, else "pair"."""
        return f"pair {self.external_id}" if self.external_id else "pair"

    def swapped(self) -> Self:
        """The same pair with A and B exchanged, for order-swap judging: a conversation
        pair's whole sides (earlier answers too) change places with its answers."""
        return replace(
            self,
            response_a=self.response_b,
            response_b=self.response_a,
            model_a=self.model_b,
            model_b=self.model_a,
            conversation_a=self.conversation_b,
            conversation_b=self.conversation_a,
        )


@dataclass(frozen=True, kw_only=True)
class Pair(PairContent):
    """A pair a project holds: its content and its row id."""

    id: int

    @property
    def label(self) -> str:
        """Its external id, else its row id."""
        return f"pair {self.external_id}" if self.external_id else f"pair #{self.id}"
