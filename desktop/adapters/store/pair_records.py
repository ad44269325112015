"""Every pair with its latest judge answers and reviewers' verdicts for one rubric, read
as three id-ordered cursors merged in step, so a project of any size streams through in
constant memory (statistics, the review queue and comparisons all read it this way)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from desktop.adapters.store.project import ProjectStore
from desktop.domain.dimension_view import human_consensus, judge_view, worst_status
from desktop.domain.head_to_head import as_preference, verdict_preference
from desktop.domain.verdicts import Verdict


@dataclass(frozen=True)
class JudgeAnswer:
    """One order's latest result; verdicts already in the pair's own A/B terms."""

    status: str  # "ok", "parse-failure", "error"
    verdicts: dict[str, Verdict]
    confidence: dict[str, float]
    preference: dict[str, float]  # as a file gave it, where it gave one


@dataclass(frozen=True)
class ReviewerVerdict:
    """A reviewer's latest verdict on one dimension (withdrawn verdicts are left out)."""

    dimension: str
    reviewer: str
    verdict: Verdict
    mode: str | None


@dataclass(frozen=True)
class PairRecord:
    id: int
    external_id: str | None
    category: str | None
    len_a: int  # characters
    len_b: int
    model_a: str | None
    model_b: str | None
    ab: JudgeAnswer | None
    ba: JudgeAnswer | None
    reviews: tuple[ReviewerVerdict, ...]  # in the order they were given

    def reviews_of(self, dimension: str) -> list[ReviewerVerdict]:
        return [r for r in self.reviews if r.dimension == dimension]

    def judge(self, dimension: str) -> tuple[Verdict | None, float | None, bool | None]:
        """(verdict, confidence, orders consistent) as the review window shows them."""
        ab, ba = self.ab, self.ba
        return judge_view(
            ab.verdicts.get(dimension) if ab else None,
            ab.confidence.get(dimension) if ab else None,
            ba.verdicts.get(dimension) if ba else None,
            ba.confidence.get(dimension) if ba else None,
            ba is not None,
        )

    def preference(self, dimension: str) -> float | None:
        """The judge's preference on AlpacaEval's scale (1 A better, 2 B better): as the
        file gave it where the judge answered in one order only, else from the verdict."""
        if self.ab is not None and self.ba is None and dimension in self.ab.preference:
            return as_preference(self.ab.preference[dimension])
        verdict = self.judge(dimension)[0]
        return None if verdict is None else verdict_preference(verdict)

    def human(self, dimension: str) -> Verdict | None:
        """The reviewers' consensus, as the export's ``<dim>_human`` column."""
        return human_consensus([r.verdict for r in self.reviews_of(dimension)])

    @property
    def status(self) -> str:
        """The worse of the two orders' statuses, or "" when not judged."""
        return worst_status({a.status for a in (self.ab, self.ba) if a is not None})


_PAIRS = (
    "SELECT id, external_id, category, length(response_a), length(response_b), model_a,"
    " model_b FROM pairs ORDER BY id"
)
_RESULTS = (
    "SELECT r.pair_id, r.ord, r.status, r.verdicts, r.confidence, r.preference"
    " FROM judge_results r"
    " WHERE r.rubric_name = :rubric AND r.judge_model = :model"
    " AND r.id = (SELECT max(id) FROM judge_results WHERE rubric_name = :rubric"
    "  AND judge_model = :model AND pair_id = r.pair_id AND ord = r.ord)"
    " ORDER BY r.pair_id, r.ord"
)
_REVIEWS = (
    "SELECT h.pair_id, h.dimension, h.reviewer, h.verdict, h.mode FROM human_verdicts h"
    " WHERE h.rubric_name = :rubric AND h.id IN (SELECT max(id) FROM human_verdicts"
    "  WHERE rubric_name = :rubric GROUP BY pair_id, dimension, reviewer)"
    " ORDER BY h.pair_id, h.id"
)


def iter_pair_records(
    store: ProjectStore, rubric: str, judge_model: str | None
) -> Iterator[PairRecord]:
    """Every pair in id order; pairs without verdicts come with empty answers."""
    params = {"rubric": rubric, "model": judge_model or ""}
    conn = store.conn
    results = conn.execute(_RESULTS, params) if judge_model else iter(())
    reviews = conn.execute(_REVIEWS, params)
    next_result = next(results, None)
    next_review = next(reviews, None)
    for pid, external_id, category, len_a, len_b, model_a, model_b in conn.execute(_PAIRS):
        answers: dict[str, JudgeAnswer] = {}
        while next_result is not None and next_result[0] <= pid:
            if next_result[0] == pid:
                answers[next_result[1]] = _answer(next_result)
            next_result = next(results, None)
        given: list[ReviewerVerdict] = []
        while next_review is not None and next_review[0] <= pid:
            _, dimension, reviewer, verdict, mode = next_review
            if next_review[0] == pid and verdict:
                given.append(ReviewerVerdict(dimension, reviewer, Verdict(verdict), mode))
            next_review = next(reviews, None)
        yield PairRecord(
            pid,
            external_id,
            category,
            len_a or 0,
            len_b or 0,
            model_a,
            model_b,
            answers.get("AB"),
            answers.get("BA"),
            tuple(given),
        )


def _answer(row: tuple) -> JudgeAnswer:
    _, _, status, verdicts, confidence, preference = row
    parsed = json.loads(verdicts) if verdicts else {}
    return JudgeAnswer(
        status,
        {d: Verdict(v) for d, v in parsed.items() if v in ("A", "B", "tie")},
        json.loads(confidence) if confidence else {},
        json.loads(preference) if preference else {},
    )
