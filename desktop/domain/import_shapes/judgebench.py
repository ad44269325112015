"""JudgeBench pairs and judges' outputs (github.com/ScalerLab/JudgeBench): ``question``,
``response_A``, ``response_B`` and a ``label`` (``A>B`` or ``B>A``), the pair's gold
answer, stored as reviewer ``judgebench``'s verdict, the way a chosen/rejected file's
preference is. An outputs file adds ``judge_name`` and ``judgments``: the judge's two
answers, first with A shown first, then with B shown first (its decision naming the
swapped sides, flipped back here), stored as one judge's two orders. ``source`` is the
category, so figures can be read per source as JudgeBench reports them.
"""

from __future__ import annotations

import ast
import json
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
from desktop.domain.import_shapes.plain_pairs import kept, pair_fields
from desktop.domain.numerals import to_json
from desktop.domain.results import Order, Status
from desktop.domain.verdicts import Verdict

# JudgeBench's decisions, as the judge was shown the sides.
DECISIONS = {"A>B": Verdict.A, "B>A": Verdict.B, "A=B": Verdict.TIE}
REVIEWER = "judgebench"  # who gives the gold label: the data set
_COLUMNS = {
    "external_id": "pair_id",
    "instruction": "question",
    "response_a": "response_A",
    "response_b": "response_B",
    "category": "source",
}
_VERDICT_MEMBERS = frozenset({"label", "judgments", "judge_name"})


class JudgeBench(Shape):
    name = "judgebench"
    title = "JudgeBench pairs and judges' outputs (response_A, response_B, label, judgments)"
    marks = ("response_A",)
    rubric = "judgebench"
    judge_rubric = JudgeRubric(
        title="JudgeBench judge decision",
        origin="verdicts imported from JudgeBench outputs files, both orders",
    )

    def claims(self, fields: Mapping[str, object]) -> bool:
        return "response_B" in fields and "label" in fields

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        by_field = {**_COLUMNS, **overrides}
        return Columns.of(by_field)

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        values = pair_fields(where, fields, columns)
        model = fields.get("response_model")
        if isinstance(model, str) and model:
            # Both responses are the one model's (JudgeBench samples it twice).
            values["model_a"] = values["model_b"] = model
        label = DECISIONS.get(str(fields.get("label")))
        if label is None or label is Verdict.TIE:
            raise ImportDataError(
                f"{where}: field 'label' must be 'A>B' or 'B>A', got {fields.get('label')!r}"
            )
        reviews = (FileVerdict(REVIEWER, label),)
        answers = tuple(_answers(where, fields))
        metadata = kept(fields, columns.members | _VERDICT_MEMBERS)
        return ShapedRecord(values, metadata, answers, reviews)


def _answers(where: str, fields: Mapping[str, object]) -> Iterable[FileAnswer]:
    """The judge's answers in both orders; none in a pairs (``data/``) file."""
    judgments = fields.get("judgments")
    if judgments is None:
        return
    if isinstance(judgments, str):
        judgments = _decoded(where, judgments)
    if not isinstance(judgments, list) or len(judgments) != 2:
        raise ImportDataError(f"{where}: field 'judgments' must list two judgments")
    judge = _judge_name(fields, judgments)
    for order, judgment in zip((Order.AB, Order.BA), judgments, strict=True):
        decision = judgment.get("decision") if isinstance(judgment, dict) else None
        raw = to_json(judgment)
        given = decision if isinstance(decision, str) else ""  # (only text is a decision)
        verdict = DECISIONS.get(given)
        if verdict is None:
            yield FileAnswer(judge, {}, raw, order=order, status=Status.PARSE_FAILURE)
            continue
        if order is Order.BA:
            verdict = verdict.swapped()
        yield FileAnswer(
            judge, {"overall": verdict}, raw, preference={"overall": given}, order=order
        )


def _decoded(where: str, text: str) -> object:
    """``judgments`` held as text (a CSV's cell): JSON, or the Python repr JudgeBench's
    scripts print."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ImportDataError(f"{where}: field 'judgments' is not a list") from None


def _judge_name(fields: Mapping[str, object], judgments: list[object]) -> str:
    """``judge_name/judge_model`` (``arena_hard/o1-mini-2024-09-12``), as the file names it."""
    name = str(fields.get("judge_name") or "judge")
    for judgment in judgments:
        inner = judgment.get("judgment") if isinstance(judgment, dict) else None
        if isinstance(inner, dict) and inner.get("judge_model"):
            return f"{name}/{inner['judge_model']}"
    return name
