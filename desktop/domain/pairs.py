"""A response pair: one instruction, two responses, optional reference and source text."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

# Fields a rubric may require beyond instruction and the two responses.
OPTIONAL_FIELDS = ("reference", "source")
TEXT_FIELDS = ("instruction", "response_a", "response_b", *OPTIONAL_FIELDS)
GENERATOR_FIELDS = ("model_a", "model_b")
# What makes a pair the pair it is: two generators that wrote the same text for the same
# instruction still make two pairs, each with its own verdicts.
IDENTITY_FIELDS = (*TEXT_FIELDS, *GENERATOR_FIELDS)
#: Every field of a pair but its row id and metadata, in the order a project stores them
#: and an export writes them: the one list the store, import, merge and export share.
FIELDS = ("external_id", *IDENTITY_FIELDS, "category")


def identity_clash(mine: Mapping[str, str | None], theirs: Mapping[str, str | None]) -> str | None:
    """The first field in which two records that claim the same external id differ: any
    text (absent and empty count as the same), or a generator that both of them name."""
    for name in TEXT_FIELDS:
        if (mine.get(name) or "") != (theirs.get(name) or ""):
            return name
    for name in GENERATOR_FIELDS:
        a, b = mine.get(name), theirs.get(name)
        if a and b and a != b:
            return name
    return None


@dataclass(frozen=True)
class Pair:
    instruction: str
    response_a: str
    response_b: str
    reference: str | None = None
    source: str | None = None
    id: int | None = None
    external_id: str | None = None
    model_a: str | None = None
    model_b: str | None = None
    category: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """How a message names this pair to a person: its external id, else its row id."""
        if self.external_id:
            return f"pair {self.external_id}"
        return f"pair #{self.id}" if self.id is not None else "pair"

    def swapped(self) -> Pair:
        """The same pair with A and B exchanged, for order-swap judging."""
        return replace(
            self,
            response_a=self.response_b,
            response_b=self.response_a,
            model_a=self.model_b,
            model_b=self.model_a,
        )
