"""Verdicts that arrive with a data file: AlpacaEval preferences and HREF annotations."""

from __future__ import annotations

import math
from typing import Any

from desktop.domain.numerals import as_numeral
from desktop.domain.verdicts import Verdict


class BadAnnotation(ValueError):
    """The value is present but means nothing we can store; the message says why."""


def preference_verdict(value: Any) -> tuple[Verdict, float | None] | None:
    """AlpacaEval ``preference``: 1 = output_1, 2 = output_2, 0 = tie, or fractional
    1 + P(output_2 better). Returns the verdict and, for fractional values, the
    probability of that verdict; None where the annotator gave none (null, NaN, "")."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
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


def preference_as_given(value: Any) -> Any:
    """A valid ``preference`` as the file wrote it: its text, every digit kept (a
    :class:`Numeral`, which JSON writes as that number); a number given as a number stays
    one."""
    return as_numeral(value) if isinstance(value, str) else value


def annotation_verdict(value: Any) -> Verdict | None:
    """One human annotation of an HREF-style row: a preference number or A/B/tie text."""
    if isinstance(value, str):
        token = value.strip()
        verdict = Verdict.from_token(token)
        if verdict is not None:
            return verdict
        if not token:
            return None
    got = preference_verdict(value)
    return got[0] if got else None


def annotation_items(value: Any) -> list[tuple[str | None, Any]]:
    """An ``annotations`` list as (annotator or None, value) items; dict items may name
    their annotator and carry ``preference``, ``choice`` or ``label``."""
    if not isinstance(value, list):
        raise BadAnnotation("annotations must be a list")
    items: list[tuple[str | None, Any]] = []
    for item in value:
        if isinstance(item, dict):
            who = item.get("annotator") or item.get("reviewer") or item.get("worker_id")
            for key in ("preference", "choice", "label", "verdict"):
                if key in item:
                    items.append((str(who) if who is not None else None, item[key]))
                    break
            else:
                raise BadAnnotation("an annotation object needs preference, choice or label")
        else:
            items.append((None, item))
    return items
