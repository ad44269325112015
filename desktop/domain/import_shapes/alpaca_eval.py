"""AlpacaEval annotations: a plain pair (``output_1``, ``output_2``, ``generator_1`` ...) with
an annotator's ``preference``, which becomes that annotator's judge verdict on
``overall`` (rubric ``alpaca-eval``), its probability the confidence where it is
fractional, the preference itself kept as the file wrote it, and its ``raw_completion``
kept (as JSON where it is an object). A record without a preference keeps its
``annotator`` and ``raw_completion`` as metadata.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import (
    Columns,
    FileAnswer,
    JudgeRubric,
    Shape,
    ShapedRecord,
)
from desktop.domain.import_shapes.plain_pairs import kept, pair_fields
from desktop.domain.numerals import as_numeral, to_json
from desktop.domain.verdicts import Verdict

# The members that hold the annotator's verdict: with a preference, not metadata.
VERDICT_MEMBERS = frozenset({"preference", "annotator", "raw_completion"})


class BadAnnotation(ValueError):
    """The value is present but means nothing we can store; the message says why."""


class AlpacaEval(Shape):
    name = "alpaca-eval"
    title = "AlpacaEval annotations (preference)"
    marks = ("preference",)
    takes_over = True
    rubric = "alpaca-eval"
    judge_rubric = JudgeRubric(
        title="AlpacaEval annotator preference",
        origin="verdicts imported from AlpacaEval annotations",
    )

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        values = pair_fields(where, fields, columns)
        given = fields.get("preference")
        try:
            got = preference_verdict(given)
        except BadAnnotation as exc:
            raise ImportDataError(f"{where}: field 'preference': {exc}") from None
        if got is None:
            # No verdict to hold the annotator and raw completion: they stay with the pair.
            return ShapedRecord(values, kept(fields, columns.members))
        verdict, confidence = got
        assert isinstance(given, int | float | str)  # (preference_verdict read a number)
        answer = FileAnswer(
            judge=str(fields.get("annotator") or "annotator"),
            verdicts={"overall": verdict},
            raw_completion=_raw_completion(fields),
            confidence={"overall": confidence} if confidence is not None else {},
            preference={"overall": preference_as_given(given)},
        )
        return ShapedRecord(values, kept(fields, columns.members | VERDICT_MEMBERS), (answer,))


def preference_verdict(value: object) -> tuple[Verdict, float | None] | None:
    """AlpacaEval ``preference``: 1 = output_1, 2 = output_2, 0 = tie, or fractional
    1 + P(output_2 better). Returns the verdict and, for fractional values, the
    probability of that verdict; None where the annotator gave none (null, NaN, "")."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise BadAnnotation(f"preference must be a number from 0 to 2, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise BadAnnotation(f"preference must be a number from 0 to 2, got {value!r}") from None
    if math.isnan(number):
        return None
    if number == 0:
        return Verdict.TIE, None
    if not 1 <= number <= 2:
        raise BadAnnotation(f"preference must be 0 or between 1 and 2, got {value!r}")
    p_b = number - 1
    fractional = number not in (1.0, 2.0)
    if p_b > 0.5:
        verdict, p = Verdict.B, p_b
    elif p_b < 0.5:
        verdict, p = Verdict.A, 1 - p_b
    else:
        verdict, p = Verdict.TIE, 0.5
    return verdict, (round(p, 6) if fractional else None)


def preference_as_given(value: float | str) -> float | str:
    """A valid ``preference`` as the file wrote it: its text, every digit kept (a
    :class:`Numeral`, which JSON writes as that number); a number given as a number stays
    one."""
    return as_numeral(value) if isinstance(value, str) else value


def _raw_completion(fields: Mapping[str, object]) -> str:
    """The annotator's raw completion as stored: text as it is, an object (AlpacaEval's
    chain-of-thought annotators keep their reasoning in one, others their logprobs) as
    JSON; without one, the preference it gave."""
    raw = fields.get("raw_completion")
    if isinstance(raw, str):
        return raw
    if raw is not None:
        return to_json(raw)
    return to_json({"preference": fields.get("preference")})
