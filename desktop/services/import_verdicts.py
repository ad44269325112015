"""The verdicts that records carry, stored by an import inside its one transaction: a
model judge's answer as that judge's result, a person's verdict as that reviewer's
(mode ``imported``).

Only what is new or changed is written, and counted: an answer in the same slot (pair,
judge, order) with the same raw completion, verdicts and confidence is already there; a
reviewer whose latest verdict on the pair and dimension is the same gave it already. So
importing a file again adds nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop.adapters.store.human_verdicts import insert_verdict, latest_row
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import (
    imported_answer,
    imported_answers,
    insert_results,
    result_row,
)
from desktop.adapters.store.rubrics import now, record_rubric
from desktop.domain.import_shapes import FileAnswer, Shape, ShapedRecord
from desktop.domain.results import JudgeResult, Status


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
        for record, pid in zip(records, pair_ids, strict=True):
            for review in record.reviews:
                latest = latest_row(self.store, pid, self.rubric, review.dimension, review.reviewer)
                if latest is not None and latest.verdict == review.verdict.value:
                    self.counts.human_present += 1
                    continue
                insert_verdict(
                    self.store,
                    {
                        "pair_id": pid,
                        "rubric_name": self.rubric,
                        "dimension": review.dimension,
                        "verdict": review.verdict.value,
                        "reviewer": review.reviewer,
                        "note": None,
                        "mode": "imported",
                        "created_at": stamp,
                    },
                )
                self.counts.human_added += 1

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
            status=Status.OK,
            verdicts=dict(answer.verdicts),
            confidence=dict(answer.confidence),
            preference=dict(answer.preference),
            raw_completion=answer.raw_completion,
            origin="import",
        )

    def _changed(self, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
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
