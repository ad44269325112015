"""The label of one dimension of one pair: what the reviewers' current verdicts make of it.

- An adjudicated verdict settles the dimension: the latest adjudicator's verdict is the
  label, whatever the reviewers said.
- Otherwise the verdict most reviewers gave is the label; where no verdict leads (one
  reviewer A and one B; A, B and tie) the dimension has a **dispute** and no label, until
  an adjudicator settles it. Before, the latest click won a split silently.
- "Both bad" counts as the tie it is; the label says "bothbad" where every reviewer it
  rests on said so.

The rows given are those that stand (a verdict, not a withdrawal, skip or broken mark), in
the order given. Which rows those are (an accept counted or not) is the caller's choice:
``pair_view``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple

from desktop.domain.pair_record import ReviewerVerdict
from desktop.domain.verdicts import ADJUDICATED, Mark, Verdict

REVIEWERS = "reviewers"  # a label's source: the reviewers' majority (or the one reviewer)


class Label(NamedTuple):
    verdict: Verdict | None  # as figures count it ("both bad" is a tie); None: no label
    answer: str | None  # as exported: "A", "B", "tie", "bothbad"
    source: str | None  # ADJUDICATED or REVIEWERS; None without a label
    disputed: bool  # reviewers split with no verdict leading, not adjudicated
    given: tuple[ReviewerVerdict, ...]  # the rows the label rests on, in the order given


NO_LABEL = Label(None, None, None, False, ())
DISPUTE = Label(None, None, None, True, ())


def label_of(reviews: Sequence[ReviewerVerdict]) -> Label:
    if not reviews:
        return NO_LABEL
    if len(reviews) == 1:  # the common case, first
        only = reviews[0]
        source = ADJUDICATED if only.mode == ADJUDICATED else REVIEWERS
        return Label(only.verdict, only.answer, source, False, (only,))
    adjudicated = [r for r in reviews if r.mode == ADJUDICATED]
    if adjudicated:
        last = adjudicated[-1]
        return Label(last.verdict, last.answer, ADJUDICATED, False, (last,))
    counts = Counter(r.verdict for r in reviews).most_common(2)
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return DISPUTE
    verdict = counts[0][0]
    given = tuple(r for r in reviews if r.verdict is verdict)
    both_bad = all(r.mark is Mark.BOTH_BAD for r in given)
    answer = Mark.BOTH_BAD.value if both_bad else None if verdict is None else verdict.value
    return Label(verdict, answer, REVIEWERS, False, given)
