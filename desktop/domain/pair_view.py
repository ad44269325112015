"""One pair as every reader sees it: the rules over a ``PairRecord``, applied in this one
place. The judge's side comes from a policy (``judge_policy``: one judge over both orders,
or a jury); the human side is each reviewer's current verdict, their consensus and the
final verdict; the flags the list shows follow from both.

- An error is no answer: a pair is judged where some answer that counts is not an error;
  its status is the worst of its answers' (error, then parse failure, then ok).
- A withdrawn verdict no longer counts; a withdrawal still carries its reviewer's note. A
  skip is no verdict (the pair is not reviewed); a broken mark is no verdict either, and
  takes the pair out of every figure; "both bad" is a tie.
- The human verdict is the label (``labels.label_of``): an adjudicator's verdict, else the
  reviewers' majority; a split with no majority is a dispute, with no label. The final
  verdict is the label where there is one, else the judge's; a dispute has none.
- An accepted verdict (Enter on the judge's) is the reviewer's decision, so it counts in
  the label; a reader comparing people with the judge asks for a view without them
  (``accepted=False``): they agree with the judge by construction.
- Inconsistent: on some dimension the judge's orders disagree. Disagree: on some dimension
  the label differs from the judge's verdict. Flagged: either, a failed answer, or a
  dispute.
"""

from __future__ import annotations

from collections.abc import Sequence

from desktop.domain.dimension_view import DimensionValues, DimensionView, JudgeVerdict
from desktop.domain.judge_policy import NO_JUDGE, JudgePolicy, Ruling
from desktop.domain.labels import NO_LABEL, Label, label_of
from desktop.domain.pair_record import PairRecord, ReviewerVerdict
from desktop.domain.verdicts import ACCEPTED, Mark, Verdict


class PairView:
    """``reviewer`` is whose verdicts are "mine" (the window's reviewer); without a
    policy, no judge's verdicts are read. ``accepted``: whether accepted verdicts count in
    the labels (see the module's docstring)."""

    __slots__ = ("_given", "_labels", "accepted", "record", "reviewer", "ruling")

    def __init__(
        self,
        record: PairRecord,
        policy: JudgePolicy | None = None,
        reviewer: str = "",
        *,
        accepted: bool = True,
    ) -> None:
        policy = NO_JUDGE if policy is None else policy
        self.record = record
        self.ruling: Ruling = policy.rule(record)
        self.reviewer = reviewer
        self.accepted = accepted
        self._given: dict[str, list[ReviewerVerdict]] | None = None
        self._labels: dict[str, Label] = {}

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
        """Every reviewer's current verdict on ``dimension`` that counts (withdrawals,
        skips and broken marks left out; accepts too in a view without them), in the order
        they were given."""
        return _given(self).get(dimension, [])

    def label(self, dimension: str) -> Label:
        """The dimension's label: its verdict, source, the rows it rests on, or a dispute."""
        if not self.record.reviews:
            return NO_LABEL
        label = self._labels.get(dimension)
        if label is None:
            label = self._labels[dimension] = label_of(_given(self).get(dimension, ()))
        return label

    def human(self, dimension: str) -> Verdict | None:
        """The label's verdict (None: none, or a dispute), as the export's ``<dim>_human``."""
        return self.label(dimension).verdict if self.record.reviews else None

    def disputes(self) -> list[str]:
        """The dimensions whose reviewers split with no majority, not yet adjudicated."""
        if len(self.record.reviews) < 2:
            return []
        return [d for d in _given(self) if self.label(d).disputed]

    @property
    def broken(self) -> bool:
        """Some reviewer marked the pair broken: no figure counts it."""
        return any(r.mark is Mark.BROKEN for r in self.record.reviews)

    def left_out(self, dimension: str) -> int:
        """Accepted verdicts on ``dimension`` a view without them leaves out."""
        if self.accepted:
            return 0
        return sum(
            1
            for r in self.record.reviews
            if r.dimension == dimension and r.verdict is not None and r.mode == ACCEPTED
        )

    def notes(self) -> list[ReviewerVerdict]:
        """Every reviewer's current row that carries a note (a withdrawn verdict's too), in
        the order they were written."""
        return [r for r in self.record.reviews if r.note]

    @property
    def reviewed(self) -> bool:
        """Some reviewer's current verdict stands on some dimension, or they marked the
        pair broken (a skip is not a review: decide later)."""
        return any(r.verdict is not None or r.mark is Mark.BROKEN for r in self.record.reviews)

    @property
    def skipped(self) -> bool:
        """This reviewer skipped the pair (decide later) and gave no verdict on it since."""
        me = self.reviewer
        mine = [r for r in self.record.reviews if r.reviewer == me]
        return any(r.mark is Mark.SKIP for r in mine) and not any(
            r.verdict is not None for r in mine
        )

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

    def my_rows(self) -> dict[str, ReviewerVerdict]:
        """This reviewer's current row per dimension (a withdrawal, skip or mark included):
        what an undo restores."""
        me = self.reviewer
        return {r.dimension: r for r in self.record.reviews if r.reviewer == me}

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
        for dimension in _given(self):
            judge = self.ruling.verdict(dimension).verdict
            label = self.label(dimension)
            if judge is not None and label.verdict is not None and judge != label.verdict:
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
        if not self.record.reviews:  # nobody reviewed it: the final verdict is the judge's
            return [
                (judge, confidence, consistent, None, judge)
                for judge, confidence, consistent in judged
            ]
        values = []
        for dimension, (judge, confidence, consistent) in zip(dimensions, judged, strict=True):
            label = self.label(dimension)
            human = label.verdict
            final = None if label.disputed else judge if human is None else human
            values.append((judge, confidence, consistent, human, final))
        return values

    @property
    def flagged(self) -> bool:
        return (
            self.status in ("parse-failure", "error")
            or self.inconsistent
            or self.disagree
            or bool(self.disputes())
        )


def _given(view: PairView) -> dict[str, list[ReviewerVerdict]]:
    """The verdicts given per dimension (an accepted judge's verdict only where the view
    counts them), worked out once per view: every label and dispute reads them."""
    given = view._given
    if given is None:
        given = view._given = {}
        every = view.accepted
        for review in view.record.reviews:
            if review.verdict is not None and (every or review.mode != ACCEPTED):
                given.setdefault(review.dimension, []).append(review)
    return given
