"""MT-bench's judgments and Chatbot Arena's votes: two whole conversations
(``conversation_a``, ``conversation_b``, OpenAI-style message lists), the compared
``turn`` (the last where absent), the two models, and one vote: ``winner`` (``model_a``,
``model_b``, ``tie``, ``tie (bothbad)``, GPT-4's ``tie (inconsistent)``) by ``judge``.

A person (``expert_3``, ``author_0``, an Arena user's id; ``arena`` where the record names
none) gives that reviewer's verdict on ``overall``, with the winner as the file wrote it as
the note where it is a tie of a kind (``tie (bothbad)``). A model judge, a list such as
``["gpt-4", "pair-v2"]``, gives that model's judge answer (named by the model, as FastChat's
``compute_agreement.py`` pools its prompts; the list and winner are its raw completion).
The format of lmsys/mt_bench_human_judgments and lmsys/chatbot_arena_conversations, as
FastChat's ``compute_agreement.py`` reads it. Every other member (``question_id``,
``anony``, ``language``, ``tstamp``, ...) is kept as metadata. Several votes on one pair
are several reviewers, never one replacing another.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import (
    Columns,
    FileAnswer,
    FileVerdict,
    JudgeRubric,
    Shape,
    ShapedRecord,
)
from desktop.domain.import_shapes.conversation_parts import (
    BATCH,
    RUBRIC,
    beside_columns,
    beside_fields,
    compared_fields,
    side,
)
from desktop.domain.import_shapes.plain_pairs import kept
from desktop.domain.numerals import to_json
from desktop.domain.verdicts import Mark, Verdict

WINNERS = {
    "model_a": Verdict.A,
    "model_b": Verdict.B,
    "tie": Verdict.TIE,
    "tie (bothbad)": Verdict.TIE,
    "tie (inconsistent)": Verdict.TIE,
}
_READ = ("conversation_a", "conversation_b", "turn", "winner", "judge")
_NAMES = {"conversation_a": "conversation_a", "conversation_b": "conversation_b", "turn": "turn"}


class Votes(Shape):
    name = "votes"
    title = "MT-bench judgments and Chatbot Arena votes (winner, judge, conversation_a/_b)"
    marks = ("winner",)
    rubric = RUBRIC
    batch = BATCH
    judge_rubric = JudgeRubric(
        title="MT-bench / Chatbot Arena pairwise vote",
        origin="votes imported from MT-bench judgments or Chatbot Arena battles",
    )

    def claims(self, fields: Mapping[str, object]) -> bool:
        return "conversation_a" in fields and "conversation_b" in fields

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        names = list(names)
        missing = [n for n in ("conversation_a", "conversation_b", "winner") if n not in names]
        if missing:
            raise ImportDataError(f"{where}: no column {missing[0]!r} for a vote")
        by_field = beside_columns(names, overrides, _READ, ("model_a", "model_b", "category"))
        return Columns(by_field, frozenset(by_field.values()) | frozenset(_READ))

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        a = side(where, fields.get("conversation_a"), "conversation_a")
        b = side(where, fields.get("conversation_b"), "conversation_b")
        values: dict[str, object] = beside_fields(where, fields, columns)
        values.update(compared_fields(where, a, b, fields.get("turn"), _NAMES))
        winner = fields.get("winner")
        verdict = WINNERS.get(winner) if isinstance(winner, str) else None
        if verdict is None:
            raise ImportDataError(
                f"{where}: field 'winner': {winner!r} is not one of {', '.join(WINNERS)}"
            )
        judge = fields.get("judge")
        metadata = kept(fields, columns.members)
        if isinstance(judge, list) and judge and all(isinstance(j, str) for j in judge):
            answer = FileAnswer(
                judge=judge[0],
                verdicts={"overall": verdict},
                raw_completion=to_json({"judge": judge, "winner": winner}),
            )
            return ShapedRecord(values, metadata, answers=(answer,))
        if judge is not None and not isinstance(judge, str):
            raise ImportDataError(
                f"{where}: field 'judge': {judge!r} is neither a person's name nor a judge"
                ' such as ["gpt-4", "pair-v2"]'
            )
        plain = ("model_a", "model_b", "tie")
        note = winner if isinstance(winner, str) and winner not in plain else None
        mark = Mark.BOTH_BAD if winner == "tie (bothbad)" else None
        review = FileVerdict(str(judge or "arena"), verdict, note=note, mark=mark)
        return ShapedRecord(values, metadata, reviews=(review,))
