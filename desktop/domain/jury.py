"""Several judges as one (a jury), per dimension, each juror first read as a single judge
(both orders; a flip is a tie). ``Majority``: the verdict most jurors gave, a tie when the
leaders are level. ``MeanScore``: the mean of the jurors' B scores (B 1, tie 0.5, A 0; a
juror's fractional preference where a file gave one), B above one half, A below, a tie at
it. A jury's confidence is the share of its voting jurors whose own verdict is the jury's
(so an even split ranks early in the queue); it is inconsistent where any juror flipped.
How far the jurors agree over many pairs is Fleiss' kappa (``jury_kappa``, equal to
statsmodels'). A jury a project keeps has a name of its own (``title``), which the window's
picker, the figures and an export show in place of the made-up one; ``COMBINES`` names each
rule as the command line and the project store it.

Kept apart from ``judge_policy`` (one judge), which the window loads at start.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from desktop.domain.agreement import counts_of, fleiss_kappa
from desktop.domain.dimension_view import NO_VERDICT, JudgeValues, JudgeVerdict, worst_status
from desktop.domain.head_to_head import verdict_preference
from desktop.domain.judge_policy import OrdersRuling, orders_of
from desktop.domain.pair_record import PairRecord
from desktop.domain.verdicts import Verdict


def jury_kappa(rows: Iterable[Sequence[Verdict | None]]) -> float | None:
    """Fleiss' kappa across jurors, one row of the jurors' verdicts per pair and dimension;
    rows with fewer than two verdicts are left out."""
    return fleiss_kappa(counts_of(v for v in row if v is not None) for row in rows)


class JuryRuling:
    """Several jurors' rulings on one pair, combined per dimension by ``combine``."""

    __slots__ = ("_mean", "jurors")

    def __init__(self, jurors: tuple[OrdersRuling, ...], mean: bool) -> None:
        self.jurors, self._mean = jurors, mean

    @property
    def status(self) -> str:
        return worst_status({r.status for r in self.jurors})

    @property
    def judged(self) -> bool:
        return any(r.judged for r in self.jurors)

    def verdict(self, dimension: str) -> JudgeVerdict:
        rulings = [r.verdict(dimension) for r in self.jurors]
        votes = [r.verdict for r in rulings if r.verdict is not None]
        if not votes:
            return NO_VERDICT
        verdict = self._by_mean(dimension) if self._mean else _majority(votes)
        checked = [r.consistent for r in rulings if r.consistent is not None]
        consistent = None if not checked else all(checked)
        return JudgeVerdict(verdict, votes.count(verdict) / len(votes), consistent)

    def _scores(self, dimension: str) -> list[float]:
        return [p - 1 for r in self.jurors if (p := r.preference(dimension)) is not None]

    def _by_mean(self, dimension: str) -> Verdict:
        scores = self._scores(dimension)
        if not scores:  # verdicts, but no preference on the scale (a file's odd value)
            return _majority([v for r in self.jurors if (v := r.verdict(dimension).verdict)])
        mean = sum(scores) / len(scores)
        return Verdict.B if mean > 0.5 else Verdict.A if mean < 0.5 else Verdict.TIE

    def preference(self, dimension: str) -> float | None:
        if self._mean:
            scores = self._scores(dimension)
            return 1 + sum(scores) / len(scores) if scores else None
        verdict = self.verdict(dimension).verdict
        return None if verdict is None else verdict_preference(verdict)

    def votes(self, dimension: str) -> list[Verdict | None]:
        """Each juror's own verdict (None where it gave none), for ``jury_kappa``."""
        return [r.verdict(dimension).verdict for r in self.jurors]

    def split(self, dimension: str) -> bool:
        """The jurors who voted did not all give the same verdict (the queue ranks such a
        pair early)."""
        return len({v for v in self.votes(dimension) if v is not None}) > 1

    def verdicts(self, dimensions: Sequence[str]) -> list[JudgeValues]:
        return [self.verdict(d) for d in dimensions]

    def given_preferences(self) -> Mapping[str, str]:
        return {}

    def dimensions(self) -> Iterable[str]:
        return dict.fromkeys(d for r in self.jurors for d in r.dimensions()).keys()


def _majority(votes: list[Verdict]) -> Verdict:
    ranked = Counter(votes).most_common(2)
    if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
        return Verdict.TIE
    return ranked[0][0]


@dataclass(frozen=True)
class Jury:
    """Several judges as one: ``Majority`` or ``MeanScore``."""

    jurors: tuple[str, ...]
    title: str = ""  # the name the project keeps it under; "" for a jury made on the spot
    label: ClassVar[str]
    by_mean: ClassVar[bool]

    @property
    def name(self) -> str:
        return self.title or f"{self.label} of {', '.join(self.jurors)}"

    @property
    def combine(self) -> str:
        """How it combines its jurors: a key of ``COMBINES``."""
        return self.label

    @property
    def judges(self) -> tuple[str, ...]:
        return self.jurors

    def rule(self, record: PairRecord) -> JuryRuling:
        return JuryRuling(tuple(orders_of(record, j) for j in self.jurors), mean=self.by_mean)


class Majority(Jury):
    """A jury: per dimension, the verdict most jurors gave; a tie when split evenly."""

    label, by_mean = "majority", False


class MeanScore(Jury):
    """A jury: per dimension, the mean of the jurors' B scores."""

    label, by_mean = "mean", True


#: Each way of combining jurors, by the name the command line and the project give it.
COMBINES: dict[str, type[Jury]] = {"majority": Majority, "mean": MeanScore}


def jury_of(combine: str, jurors: Sequence[str], title: str = "") -> Jury:
    """The jury that combines ``jurors`` by ``combine`` (a key of ``COMBINES``)."""
    return COMBINES[combine](tuple(jurors), title)
