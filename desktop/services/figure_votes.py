"""Agreement between votes as FastChat counts it for MT-bench (``domain.vote_agreement``):
every two reviewers' votes on one question, model pair (in either order) and turn, and the
judge's vote against each of them, per turn, with ties and without. A question is the
pair's ``question_id`` as its file gave it (kept in the pair's metadata); a pair without
one is a question of its own. Reviewers named ``<kind>_<n>`` (MT-bench's ``expert_3``,
``author_0``) are also counted kind by kind, as FastChat counts experts apart from the
paper's authors, where more than one kind of reviewer voted.

Each reviewer's current verdict is one vote; a file's second vote by the same person on
the same pair is kept by import as reviewer ``NAME (vote 2)``, so every vote a file holds
counts, as FastChat counts them.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop.domain.verdicts import Verdict
from desktop.domain.vote_agreement import (
    Agreement,
    against,
    among,
    comparison,
    flipped,
    reviewer_kind,
)

if TYPE_CHECKING:
    from desktop.services.figure_sources import Finish, PairFacts

ALL = "all"
#: What the tally reads of a pair besides the figures' columns.
COLUMNS = ("turn", "metadata_text")

Key = tuple[Hashable, str, str, int]
_VERDICTS = (Verdict.A, Verdict.B, Verdict.TIE)
_CODE = {v: i for i, v in enumerate(_VERDICTS)}


@dataclass(frozen=True)
class VoteAgreementRow:
    turn: int
    reviewers: str  # "all", or one kind of reviewer ("expert")
    judge: bool  # False: every two reviewers' votes; True: the judge's against each
    agree: int
    total: int
    agree_without_ties: int
    total_without_ties: int
    ratio: float | None
    ratio_without_ties: float | None


def question(pair_id: int, metadata_text: str | None) -> Hashable:
    """The pair's question_id where its file gave one, else the pair itself."""
    given = given_question(metadata_text)
    return ("pair", pair_id) if given is None else given


def given_question(metadata_text: str | None) -> Hashable | None:
    if metadata_text and '"question_id"' in metadata_text:
        given = json.loads(metadata_text).get("question_id")
        if given is not None and not isinstance(given, (dict, list)):
            return ("question", given)
    return None


class VoteAgreement:
    """Votes grouped by comparison, then counted in ``finish``."""

    reviewed_only = False

    def __init__(self) -> None:
        self.votes: dict[Key, list[tuple[str, Verdict]]] = {}
        # The judge's verdicts, by (model_a, model_b, turn): pair ids and verdicts, 9 bytes
        # a pair, resolved to a comparison only where reviewers voted on it.
        self.judged: dict[tuple[str | None, str | None, int], tuple[array[int], bytearray]] = {}
        self.questions: dict[int, Hashable] = {}  # judged pairs whose file named a question

    def add(self, p: PairFacts) -> None:
        fields = p.view.record.fields
        turn = fields.turn or 1
        if p.judge is not None:
            models = (fields.model_a, fields.model_b, turn)
            kept = self.judged.get(models)
            if kept is None:
                kept = self.judged[models] = (array("q"), bytearray())
            kept[0].append(p.id)
            kept[1].append(_CODE[p.judge])
            given = given_question(fields.metadata_text)
            if given is not None:
                self.questions[p.id] = given
        if not p.reviews:
            return
        key, flip = comparison(
            question(p.id, fields.metadata_text), fields.model_a, fields.model_b, turn
        )
        group = self.votes.setdefault(key, [])
        for review in p.reviews:
            verdict = review.verdict
            assert verdict is not None  # withdrawals are left out of reviews
            group.append((review.reviewer, flipped(verdict) if flip else verdict))

    def finish(self, f: Finish) -> list[VoteAgreementRow] | None:
        if not any(len(group) > 1 for group in self.votes.values()):
            return None
        judged = self._judge_votes()
        scopes = _scopes({r for group in self.votes.values() for r, _ in group})
        rows = []
        for turn in sorted({key[3] for key in self.votes}):
            groups = [(k, g) for k, g in self.votes.items() if k[3] == turn]
            for scope in scopes:
                picked = [
                    (k, [v for r, v in g if scope in (ALL, reviewer_kind(r))]) for k, g in groups
                ]
                reviewers = sum((among(v) for _, v in picked), Agreement())
                judge = sum((against(judged.get(k, []), v) for k, v in picked), Agreement())
                rows += [_row(turn, scope, False, reviewers), _row(turn, scope, True, judge)]
        return [r for r in rows if r.total]

    def _judge_votes(self) -> dict[Key, list[Verdict]]:
        wanted = {key[1:] for key in self.votes}
        out: dict[Key, list[Verdict]] = {}
        for (model_a, model_b, turn), (ids, codes) in self.judged.items():
            a, b = sorted((model_a or "", model_b or ""))
            if (a, b, turn) not in wanted:
                continue
            for pid, code in zip(ids, codes, strict=True):
                asked = self.questions.get(pid, ("pair", pid))
                key, flip = comparison(asked, model_a, model_b, turn)
                if key in self.votes:
                    verdict = _VERDICTS[code]
                    out.setdefault(key, []).append(flipped(verdict) if flip else verdict)
        return out


def _scopes(reviewers: set[str]) -> list[str]:
    """All reviewers, then each kind where more than one kind voted."""
    kinds = {reviewer_kind(r) for r in reviewers}
    named = sorted(k for k in kinds if k is not None)
    return [ALL, *named] if named and len(kinds) > 1 else [ALL]


def _row(turn: int, scope: str, judge: bool, a: Agreement) -> VoteAgreementRow:
    return VoteAgreementRow(
        turn,
        scope,
        judge,
        a.agree,
        a.total,
        a.agree_without_ties,
        a.total_without_ties,
        a.ratio,
        a.ratio_without_ties,
    )
