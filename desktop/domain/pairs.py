"""A response pair: one instruction, two responses, optional reference and source text."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Fields a rubric may require beyond instruction and the two responses.
OPTIONAL_FIELDS = ("reference", "source")


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
        return Pair(
            instruction=self.instruction,
            response_a=self.response_b,
            response_b=self.response_a,
            reference=self.reference,
            source=self.source,
            id=self.id,
            external_id=self.external_id,
            model_a=self.model_b,
            model_b=self.model_a,
            category=self.category,
            metadata=self.metadata,
        )
