"""The verdicts that records carry, stored by an import inside its one transaction: a
model judge's answer as that judge's result, a person's verdict as that reviewer's
(mode ``imported``).

Only what is new or changed is written, and counted: an answer in the same slot (pair,
judge, order) with the same raw completion, verdicts and confidence is already there; a
reviewer whose latest verdict on the pair and dimension is the same gave it already. So
importing a file again adds nothing.

A reviewer who votes twice on one pair in one import (the same person on the same
question, models and turn, in MT-bench's or Arena's votes) gave two votes, not a change
of mind: the second is kept as reviewer ``NAME (vote 2)``, the third ``NAME (vote 3)``, so
figures count every vote (as FastChat's ``compute_agreement.py`` does) and a re-import
names them the same way and adds nothing. A vote in a later import is that reviewer's
newer verdict, as any reviewer's is.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from desktop.adapters.store.human_verdicts import (
    VerdictRow,
    insert_verdicts,
    latest_of_pairs,
)
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import (
    ResultRow,
    imported_answer,
    imported_answers,
    insert_results,
    result_row,
)
from desktop.adapters.store.rubrics import now, record_rubric
from desktop.domain.import_shapes import FileAnswer, Shape, ShapedRecord
from desktop.domain.results import JudgeResult


@dataclass
class VerdictCounts:
    judge_added: int = 0
    judge_replaced: int = 0  # a newer file's answer in the same slot
    judge_present: int = 0
    human_added: int = 0
    human_present: int = 0


class VerdictWriter:
    """Writes one shape's verdicts on one rubric; ``use`` again at a change of file or
    shape."""

    def __init__(self, store: ProjectStore, counts: VerdictCounts) -> None:
        self.store, self.counts = store, counts
        self.rubric, self.rubric_hash = "", ""
        # (pair, rubric, dimension, reviewer) given a verdict by this import so far
        self.voted: set[tuple[int, str, str, str]] = set()

    def use(self, shape: Shape, rubric: str) -> None:
        """Verdicts from here on are ``shape``'s, on ``rubric``; a shape whose records
        carry judge answers records the rubric they answered (once; a project keeps it)."""
        self.rubric, self.rubric_hash = rubric, ""
        if shape.judge_rubric is not None:
            text = shape.judge_rubric.text(rubric)
            self.rubric_hash = hashlib.sha256(text.encode()).hexdigest()
            record_rubric(
                self.store,
                hash=self.rubric_hash,
                name=rubric,
                title=shape.judge_rubric.title,
                dimensions=shape.judge_rubric.dimensions,
                kind="imported",
                text=text,
            )

    def write(self, records: Sequence[ShapedRecord], pair_ids: Sequence[int]) -> None:
        """The verdicts of ``records``, each on the pair of the same place in ``pair_ids``."""
        rows = [
            result_row(self._result(pid, answer))
            for record, pid in zip(records, pair_ids, strict=True)
            for answer in record.answers
        ]
        if rows:
            insert_results(self.store.conn, self._changed(rows))
        stamp = now()
        reviewed = [pid for record, pid in zip(records, pair_ids, strict=True) if record.reviews]
        if not reviewed:
            return
        latest = latest_of_pairs(self.store, self.rubric, sorted(set(reviewed)))
        new_rows: list[VerdictRow] = []
        for record, pid in zip(records, pair_ids, strict=True):
            for review in record.reviews:
                reviewer = self._vote(pid, review.dimension, review.reviewer)
                slot = (pid, review.dimension, reviewer)
                if latest.get(slot, "") == review.verdict.value:
                    self.counts.human_present += 1
                    continue
                latest[slot] = review.verdict.value
                new_rows.append(
                    {
                        "pair_id": pid,
                        "rubric_name": self.rubric,
                        "dimension": review.dimension,
                        "verdict": review.verdict.value,
                        "reviewer": reviewer,
                        "note": review.note,
                        "mode": "imported",
                        "created_at": stamp,
                        "mark": review.mark.value if review.mark else None,
                    }
                )
        insert_verdicts(self.store, new_rows)
        self.counts.human_added += len(new_rows)

    def _vote(self, pair_id: int, dimension: str, reviewer: str) -> str:
        """The name a reviewer's vote is kept under: theirs, or ``NAME (vote N)`` for
        their N-th vote on the pair in this import."""
        name, n = reviewer, 1
        while (pair_id, self.rubric, dimension, name) in self.voted:
            n += 1
            name = f"{reviewer} (vote {n})"
        self.voted.add((pair_id, self.rubric, dimension, name))
        return name

    def _result(self, pair_id: int, answer: FileAnswer) -> JudgeResult:
        if not self.rubric_hash:
            raise TypeError("a shape whose records carry judge answers needs a judge_rubric")
        return JudgeResult(
            pair_id=pair_id,
            rubric_hash=self.rubric_hash,
            rubric_name=self.rubric,
            judge_model=answer.judge,
            settings_hash="imported",
            order=answer.order,
            status=answer.status,
            verdicts=dict(answer.verdicts),
            confidence=dict(answer.confidence),
            preference=dict(answer.preference),
            raw_completion=answer.raw_completion,
            origin="import",
        )

    def _changed(self, rows: list[ResultRow]) -> list[ResultRow]:
        """The result rows that are new or differ from what the project holds (counted)."""
        answers = [imported_answer(row) for row in rows]
        pair_ids = sorted({answer.pair_id for answer in answers})
        held = {a.slot: a for a in imported_answers(self.store, self.rubric_hash, pair_ids)}
        out = []
        for row, answer in zip(rows, answers, strict=True):
            before = held.get(answer.slot)
            if before == answer:
                self.counts.judge_present += 1
                continue
            if before is None:
                self.counts.judge_added += 1
            else:
                self.counts.judge_replaced += 1
            held[answer.slot] = answer
            out.append(row)
        return out
