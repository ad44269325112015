"""Agreement between votes as FastChat counts it for MT-bench (``fastchat/llm_judge/
compute_agreement.py``, lm-sys/FastChat): the MT-bench paper's agreement tables.

Votes are grouped by comparison: the question, the two models in either order, and the
compared turn. A vote on B-vs-A is the same comparison as one on A-vs-B, its winner
flipped: each group holds its votes with the models in name order (FastChat keeps a vote
whose ``model_a`` sorts first and flips the others). Then:

- between reviewers: every two votes in a group is one comparison (so three votes are
  three), agreeing when both name the same model or both are ties (any kind of tie);
- between a judge and reviewers: each judge vote in a group against each reviewer's vote
  there;
- without ties: the same, leaving out every comparison where either vote is a tie.

Ratios are agree / total; a count with nothing to compare is 0 of 0.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations

from desktop.domain.verdicts import Verdict

_FLIP = {Verdict.A: Verdict.B, Verdict.B: Verdict.A, Verdict.TIE: Verdict.TIE}
# ``expert_3``, and ``expert_3 (vote 2)``: import keeps a second vote on one pair so.
_NUMBERED = re.compile(r"(.+?)_\d+(?: \(vote \d+\))?")


@dataclass(frozen=True)
class Agreement:
    """Comparisons between two votes, with ties and without."""

    agree: int = 0
    total: int = 0
    agree_without_ties: int = 0
    total_without_ties: int = 0

    @property
    def ratio(self) -> float | None:
        return self.agree / self.total if self.total else None

    @property
    def ratio_without_ties(self) -> float | None:
        t = self.total_without_ties
        return self.agree_without_ties / t if t else None

    def __add__(self, other: Agreement) -> Agreement:
        return Agreement(
            self.agree + other.agree,
            self.total + other.total,
            self.agree_without_ties + other.agree_without_ties,
            self.total_without_ties + other.total_without_ties,
        )


def comparison(
    question: Hashable, model_a: str | None, model_b: str | None, turn: int
) -> tuple[tuple[Hashable, str, str, int], bool]:
    """The group a vote belongs to, and whether its winner must be flipped to read it with
    the models in name order (a missing name sorts as "")."""
    a, b = model_a or "", model_b or ""
    if a < b:
        return (question, a, b, turn), False
    return (question, b, a, turn), True


def flipped(verdict: Verdict) -> Verdict:
    """The same vote with A and B exchanged."""
    return _FLIP[verdict]


def _compare(first: Verdict, second: Verdict) -> Agreement:
    same = int(first is second)
    if first is Verdict.TIE or second is Verdict.TIE:
        return Agreement(same, 1, 0, 0)
    return Agreement(same, 1, same, 1)


def among(votes: Sequence[Verdict]) -> Agreement:
    """Every two votes of one group compared."""
    out = Agreement()
    for first, second in combinations(votes, 2):
        out += _compare(first, second)
    return out


def against(judge_votes: Sequence[Verdict], votes: Sequence[Verdict]) -> Agreement:
    """Each judge vote of one group compared with each reviewer's vote there."""
    out = Agreement()
    for judge in judge_votes:
        for vote in votes:
            out += _compare(judge, vote)
    return out


def reviewer_kind(name: str) -> str | None:
    """What kind of reviewer a numbered name says: ``expert_3`` an expert, ``author_0`` an
    author (MT-bench's names, which FastChat counts apart), ``expert_3 (vote 2)`` (the same
    expert's second vote on one pair, as import keeps it) an expert too; None for any other
    name."""
    match = _NUMBERED.fullmatch(name)
    return match.group(1) if match else None
