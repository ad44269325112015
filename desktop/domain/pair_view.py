"""One pair as every reader sees it: the rules over a ``PairRecord``, applied in this one
place. The judge's side comes from a policy (``judge_policy``: one judge over both orders,
or a jury); the human side is each reviewer's current verdict, their consensus and the
final verdict; the flags the list shows follow from both.

- An error is no answer: a pair is judged where some answer that counts is not an error;
  its status is the worst of its answers' (error, then parse failure, then ok).
- A withdrawn verdict no longer counts; a withdrawal still carries its reviewer's note.
- The human verdict is the reviewers' consensus (``dimension_view.human_consensus``); the
  final verdict is the human one where given, else the judge's.
- Inconsistent: on some dimension the judge's orders disagree. Disagree: on some dimension
  the reviewers' consensus differs from the judge's verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop.domain.dimension_view import (
    DimensionValues,
    DimensionView,
    JudgeVerdict,
    human_consensus,
)
from desktop.domain.judge_policy import NO_JUDGE, JudgePolicy, Ruling
from desktop.domain.pair_record import PairRecord, ReviewerVerdict
from desktop.domain.verdicts import Verdict, final_verdict


class PairView:
    """``reviewer`` is whose verdicts are "mine" (the window's reviewer); without a
    policy, no judge's verdicts are read."""

    __slots__ = ("_given", "record", "reviewer", "ruling")

    def __init__(
        self, record: PairRecord, policy: JudgePolicy | None = None, reviewer: str = ""
    ) -> None:
        policy = NO_JUDGE if policy is None else policy
        self.record = record
        self.ruling: Ruling = policy.rule(record)
        self.reviewer = reviewer
        self._given: dict[str, list[ReviewerVerdict]] | None = None

    @property
    def id(self) -> int:
        return self.record.id

    # ---- the judge ------------------------------------------------------------------------
    def judge(self, dimension: str) -> JudgeVerdict:
        return self.ruling.verdict(dimension)

    def preference(self, dimension: str) -> float | None:
        """The judge's preference on AlpacaEval's scale (see ``Ruling.preference``)."""
        return self.ruling.preference(dimension)

    @property
    def status(self) -> str:
        return self.ruling.status

    @property
    def judged(self) -> bool:
        return self.ruling.judged

    @property
    def inconsistent(self) -> bool:
        verdict = self.ruling.verdict
        return any(verdict(d).consistent is False for d in self.ruling.dimensions())

    # ---- the reviewers --------------------------------------------------------------------
    def reviews_of(self, dimension: str) -> list[ReviewerVerdict]:
        """Every reviewer's current verdict on ``dimension``, withdrawals left out, in the
        order they were given."""
        return self._by_dimension().get(dimension, [])

    def human(self, dimension: str) -> Verdict | None:
        """The reviewers' consensus, as the export's ``<dim>_human`` column."""
        if not self.record.reviews:
            return None
        given = self._by_dimension().get(dimension)
        return human_consensus([r.verdict for r in given]) if given else None

    def human_given(self, dimension: str) -> ReviewerVerdict | None:
        """The reviewer's verdict that ``human`` is: of the reviewers who gave the
        consensus, the one who gave it last (who, how and when, for the export)."""
        given = self._by_dimension().get(dimension) if self.record.reviews else None
        if not given:
            return None
        human = human_consensus([r.verdict for r in given])
        return next(r for r in reversed(given) if r.verdict == human)

    def notes(self) -> list[ReviewerVerdict]:
        """Every reviewer's current row that carries a note (a withdrawn verdict's too), in
        the order they were written."""
        return [r for r in self.record.reviews if r.note]

    @property
    def reviewed(self) -> bool:
        """Some reviewer's current verdict stands on some dimension."""
        return any(r.verdict is not None for r in self.record.reviews)

    @property
    def mine(self) -> bool:
        """This reviewer's own verdict stands on some dimension."""
        me = self.reviewer
        return any(r.verdict is not None and r.reviewer == me for r in self.record.reviews)

    def my_verdicts(self) -> dict[str, Verdict]:
        me = self.reviewer
        return {
            r.dimension: r.verdict
            for r in self.record.reviews
            if r.reviewer == me and r.verdict is not None
        }

    def my_notes(self) -> dict[str, str]:
        """This reviewer's notes by dimension, a withdrawn verdict's included."""
        me = self.reviewer
        return {r.dimension: r.note for r in self.record.reviews if r.reviewer == me and r.note}

    def others(self) -> dict[str, list[str]]:
        """The other reviewers with a verdict standing, by dimension."""
        out: dict[str, list[str]] = {}
        for r in self.record.reviews:
            if r.reviewer != self.reviewer and r.verdict is not None:
                out.setdefault(r.dimension, []).append(r.reviewer)
        return out

    @property
    def disagree(self) -> bool:
        for dimension, given in self._by_dimension().items():
            judge = self.ruling.verdict(dimension).verdict
            if judge is not None and judge != human_consensus([r.verdict for r in given]):
                return True
        return False

    # ---- both -----------------------------------------------------------------------------
    def dimension(self, dimension: str) -> DimensionView:
        """The judge's verdict, confidence and consistency, the human and the final
        verdict on one dimension."""
        return DimensionView(*self.dimension_values((dimension,))[0])

    def dimension_values(self, dimensions: Sequence[str]) -> list[DimensionValues]:
        """``dimension`` of each dimension as a plain tuple, in one call: export reads
        every pair of a project so."""
        judged = self.ruling.verdicts(dimensions)
        if not self.record.reviews:  # nobody reviewed it: final_verdict is the judge's
            return [
                (judge, confidence, consistent, None, judge)
                for judge, confidence, consistent in judged
            ]
        values = []
        for dimension, (judge, confidence, consistent) in zip(dimensions, judged, strict=True):
            human = self.human(dimension)
            values.append((judge, confidence, consistent, human, final_verdict(judge, human)))
        return values

    @property
    def flagged(self) -> bool:
        return self.status in ("parse-failure", "error") or self.inconsistent or self.disagree

    def _by_dimension(self) -> dict[str, list[ReviewerVerdict]]:
        given = self._given
        if given is None:
            given = self._given = {}
            for review in self.record.reviews:
                if review.verdict is not None:
                    given.setdefault(review.dimension, []).append(review)
        return given
