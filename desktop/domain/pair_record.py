"""A pair as the project holds it for one rubric: the columns asked for, each requested
judge's latest answer in each order, and each reviewer's current verdict per dimension.

The store's one reader (``adapters/store/pair_reader.py``) returns these, decoded; the
rules that read them (both orders, consensus, final, flags) are ``pair_view``'s. Records
are values: nothing here is written back, and mappings may be shared between records.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from desktop.domain.verdicts import Mark, Verdict


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
    """One pair: ``fields`` holds the columns the query projected as a named tuple
    (``fields.category``; one that was not projected is an AttributeError naming it);
    ``answers`` every requested judge's latest answer per order; ``reviews`` the current
    rows in the order they were given."""

    fields: Any
    answers: tuple[JudgeAnswer, ...] = ()
    reviews: tuple[ReviewerVerdict, ...] = ()

    def answer(self, judge: str, order: str) -> JudgeAnswer | None:
        for answer in self.answers:
            if answer.judge == judge and answer.order == order:
                return answer
        return None

    # The columns most readers use, by name: each through a typed local, since ``fields``
    # is Any to a type checker and cast() would cost a call on every pair read.
    @property
    def id(self) -> int:
        value: int = self.fields.id
        return value

    @property
    def external_id(self) -> str | None:
        value: str | None = self.fields.external_id
        return value

    @property
    def category(self) -> str | None:
        value: str | None = self.fields.category
        return value

    @property
    def model_a(self) -> str | None:
        value: str | None = self.fields.model_a
        return value

    @property
    def model_b(self) -> str | None:
        value: str | None = self.fields.model_b
        return value

    @property
    def len_a(self) -> int:
        """Response A's length in characters."""
        value: int = self.fields.len_a
        return value

    @property
    def len_b(self) -> int:
        value: int = self.fields.len_b
        return value
