"""Whose verdicts a pair shows: one judge's, read over both orders (``SingleJudge``), or
several judges' combined (a jury: ``jury.py``). A policy reads a record's answers into a
``Ruling`` per pair; every reader of judge verdicts (the window, export, figures, the
queue) goes through one, so a new way of combining judges is a policy, never a reader.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from desktop.domain.dimension_view import (
    NO_VERDICT,
    JudgeValues,
    JudgeVerdict,
    judge_view,
    worst_status,
)
from desktop.domain.head_to_head import as_preference, verdict_preference
from desktop.domain.pair_record import JudgeAnswer, PairRecord


class Ruling(Protocol):
    """What a policy made of one pair's answers."""

    @property
    def status(self) -> str:
        """The worst status of the answers that count; "" when none was asked for."""
        ...

    @property
    def judged(self) -> bool:
        """Some answer that counts is not an error (an error is no answer)."""
        ...

    def verdict(self, dimension: str) -> JudgeVerdict: ...

    def verdicts(self, dimensions: Sequence[str]) -> list[JudgeValues]:
        """``verdict`` of each dimension, in one call, as plain tuples (export reads every
        pair so)."""
        ...

    def preference(self, dimension: str) -> float | None:
        """On AlpacaEval's scale: 1 A better, 2 B better, 1.5 a draw."""
        ...

    def given_preferences(self) -> Mapping[str, str]:
        """Preferences exactly as a file gave them, by dimension (export writes them)."""
        ...

    def dimensions(self) -> Iterable[str]:
        """The dimensions the answers carry."""
        ...

    def split(self, dimension: str) -> bool:
        """Several judges that count gave different verdicts (a jury split); never for
        one judge, whose flip between orders is ``consistent``."""
        ...


class JudgePolicy(Protocol):
    @property
    def name(self) -> str:
        """How the window, the figures and an export name whose verdicts these are."""
        ...

    @property
    def judges(self) -> tuple[str, ...]:
        """The judges whose answers the reader must fetch."""
        ...

    def rule(self, record: PairRecord) -> Ruling: ...


_NO_ANSWER = JudgeAnswer("", "", "", {}, {}, {})


class OrdersRuling:
    """One judge's latest answers in both orders, as the review window shows them."""

    __slots__ = ("_seen", "ab", "ba")

    def __init__(self, ab: JudgeAnswer | None, ba: JudgeAnswer | None) -> None:
        self.ab, self.ba = ab, ba
        self._seen: dict[str, JudgeVerdict] | None = None

    @property
    def status(self) -> str:
        ab, ba = self.ab, self.ba
        if ba is None:
            return ab.status if ab is not None else ""
        return worst_status((ab.status if ab else None, ba.status))

    @property
    def judged(self) -> bool:
        return any(a is not None and a.status != "error" for a in (self.ab, self.ba))

    def verdict(self, dimension: str) -> JudgeVerdict:
        ab, ba = self.ab, self.ba
        if ba is None:  # the common case, read without the cache
            if ab is None:
                return NO_VERDICT
            return JudgeVerdict(ab.verdicts.get(dimension), ab.confidence.get(dimension), None)
        seen = self._seen
        if seen is None:
            seen = self._seen = {}
        elif dimension in seen:
            return seen[dimension]
        got = seen[dimension] = judge_view(
            ab.verdicts.get(dimension) if ab else None,
            ab.confidence.get(dimension) if ab else None,
            ba.verdicts.get(dimension),
            ba.confidence.get(dimension),
            True,
        )
        return got

    def verdicts(self, dimensions: Sequence[str]) -> list[JudgeValues]:
        ab, ba = self.ab, self.ba
        if ab is None:
            ab = _NO_ANSWER
            if ba is None:
                return [NO_VERDICT] * len(dimensions)
        verdict, confidence = ab.verdicts.get, ab.confidence.get
        if ba is None:
            return [(verdict(d), confidence(d), None) for d in dimensions]
        back, back_confidence = ba.verdicts.get, ba.confidence.get
        return [
            judge_view(verdict(d), confidence(d), back(d), back_confidence(d), True)
            for d in dimensions
        ]

    def preference(self, dimension: str) -> float | None:
        """As the file gave it where the judge answered in one order only, else from the
        verdict."""
        ab = self.ab
        if ab is not None and self.ba is None and dimension in ab.preference:
            return as_preference(ab.preference[dimension])
        verdict = self.verdict(dimension).verdict
        return None if verdict is None else verdict_preference(verdict)

    def given_preferences(self) -> Mapping[str, str]:
        return self.ab.preference if self.ab is not None else {}

    def dimensions(self) -> Iterable[str]:
        ab, ba = self.ab, self.ba
        if ba is None:
            return ab.verdicts.keys() if ab else ()
        return dict.fromkeys([*(ab.verdicts if ab else ()), *ba.verdicts]).keys()

    def split(self, dimension: str) -> bool:
        return False


def orders_of(record: PairRecord, judge: str) -> OrdersRuling:
    ab = ba = None
    for answer in record.answers:
        if answer.judge == judge:
            if answer.order == "AB":
                ab = answer
            else:
                ba = answer
    return OrdersRuling(ab, ba)


@dataclass(frozen=True)
class SingleJudge:
    """One judge's verdicts, as the window shows them: the policy every reader has today."""

    judge: str

    @property
    def name(self) -> str:
        return self.judge

    @property
    def judges(self) -> tuple[str, ...]:
        return (self.judge,)

    def rule(self, record: PairRecord) -> OrdersRuling:
        return orders_of(record, self.judge)


@dataclass(frozen=True)
class NoJudge:
    """No judge is asked: every pair unjudged (a rubric nobody has answered yet)."""

    name: str = ""

    @property
    def judges(self) -> tuple[str, ...]:
        return ()

    def rule(self, record: PairRecord) -> OrdersRuling:
        return _UNJUDGED


_UNJUDGED = OrdersRuling(None, None)
NO_JUDGE = NoJudge()


def policy_for(judge: str | JudgePolicy | None) -> JudgePolicy:
    """A judge's name as its single-judge policy; a policy as it is; None: no judge."""
    if judge is None or judge == "":
        return NO_JUDGE
    if isinstance(judge, str):
        return SingleJudge(judge)
    return judge
