"""A pair as the project holds it for one rubric: the columns asked for, each requested
judge's latest answer in each order, and each reviewer's current verdict per dimension.

The store's one reader (``adapters/store/pair_reader.py``) returns these, decoded; the
rules that read them (both orders, consensus, final, flags) are ``pair_view``'s. Records
are values: nothing here is written back, and mappings may be shared between records.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple, Protocol

from desktop.domain.conversations import Conversation
from desktop.domain.verdicts import Mark, Verdict


class PairColumns(Protocol):
    """The columns a query may project of a pair (``pair_reader.PAIR_COLUMNS``), each
    typed as the project stores it. The reader makes one named tuple per projection, so
    the columns it holds are known only when the query runs: reading one the query did not
    project is an AttributeError naming it, which no type checker can see ahead. Every
    column is read-only (a named tuple's)."""

    id: int
    pair_key: str
    external_id: str | None
    category: str | None
    model_a: str | None  # the generators
    model_b: str | None
    instruction: str
    response_a: str
    response_b: str
    reference: str | None
    source: str | None
    # A conversation pair's sides as stored (JSON text), its compared turn and tools;
    # None for a single-turn pair.
    conversation_a: str | None
    conversation_b: str | None
    turn: int | None
    tools: str | None
    # The sides decoded; None for a single-turn pair.
    messages_a: Conversation | None
    messages_b: Conversation | None
    metadata: dict[str, object] | None  # decoded, numbers as Numerals
    metadata_text: str | None  # as stored
    len_a: int  # characters
    len_b: int
    # A trajectory's counts per side (None for a pair that is none).
    steps_a: int | None
    steps_b: int | None
    calls_a: int | None
    calls_b: int | None
    errors_a: int | None
    errors_b: int | None

    def __len__(self) -> int: ...  # how many columns were projected
    def _asdict(self) -> dict[str, object]: ...


class JudgeAnswer(NamedTuple):
    """One judge's latest answer in one order; verdicts already in the pair's own A/B terms
    (a BA answer is mapped back when it is parsed)."""

    judge: str
    order: str  # "AB" or "BA"
    status: str  # "ok", "parse-failure", "error"
    verdicts: Mapping[str, Verdict]
    confidence: Mapping[str, float]
    preference: Mapping[str, str]  # as a file wrote it (numerals.Numeral), where it gave one
    # Read only when the query asks for an answer's detail (the verdict panel does):
    raw_completion: str | None = None
    error: str | None = None
    latency_ms: float | None = None


class ReviewerVerdict(NamedTuple):
    """A reviewer's current row for one dimension: their verdict, or None where they
    withdrew it, skipped the pair or marked it broken (``mark``; the row may still carry
    their note). "Both bad" is the verdict tie with the mark ``Mark.BOTH_BAD``."""

    dimension: str
    reviewer: str
    verdict: Verdict | None
    mode: str | None  # verdicts.GUI, BLIND, CLI, API, IMPORTED, ACCEPTED, ADJUDICATED
    note: str | None
    created_at: str
    mark: Mark | None = None

    @property
    def answer(self) -> str | None:
        """The answer as given and exported: "A", "B", "tie", "bothbad", "skip", "broken";
        None for a withdrawal."""
        if self.mark is not None:
            return self.mark.value
        return None if self.verdict is None else self.verdict.value


class PairRecord(NamedTuple):
    """One pair: ``fields`` holds the columns the query projected (``fields.category``;
    see ``PairColumns``);
    ``answers`` every requested judge's latest answer per order; ``reviews`` the current
    rows in the order they were given."""

    fields: PairColumns
    answers: tuple[JudgeAnswer, ...] = ()
    reviews: tuple[ReviewerVerdict, ...] = ()

    def answer(self, judge: str, order: str) -> JudgeAnswer | None:
        for answer in self.answers:
            if answer.judge == judge and answer.order == order:
                return answer
        return None

    # The columns most readers use, by name.
    @property
    def id(self) -> int:
        return self.fields.id

    @property
    def external_id(self) -> str | None:
        return self.fields.external_id

    @property
    def category(self) -> str | None:
        return self.fields.category

    @property
    def model_a(self) -> str | None:
        return self.fields.model_a

    @property
    def model_b(self) -> str | None:
        return self.fields.model_b

    @property
    def len_a(self) -> int:
        """Response A's length in characters."""
        return self.fields.len_a

    @property
    def len_b(self) -> int:
        return self.fields.len_b
