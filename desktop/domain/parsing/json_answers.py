"""JSON answers: ``json-choice`` and ``json-choices``."""

from __future__ import annotations

import json
from collections.abc import Sequence

from desktop.domain.parsing.free_text import by_label, dimension_key
from desktop.domain.parsing.parse_outcome import ParseOutcome, fail
from desktop.domain.parsing.vocabulary import (
    BARE,
    JSON_BRACE,
    JSON_STRING,
    JSON_TOKEN,
    short,
    word_verdict,
)
from desktop.domain.rubric import AnswerFormat, AnswerKind
from desktop.domain.verdicts import Verdict

# --- JSON -----------------------------------------------------------------------------


def _json_objects(text: str) -> tuple[list[dict[str, object]], str | None]:
    """Decoded top-level ``{...}`` groups of the text, and why any group failed."""
    objects: list[dict[str, object]] = []
    error: str | None = None
    pos = 0
    # Once a string is never closed, no later quote closes one either: each is escaped in
    # that string's reading, so a string opened by it reads the same characters the same
    # way. From then on only braces count, so no quote is read to the end more than once.
    strings_close = True
    while len(objects) < 20:
        start = text.find("{", pos)
        if start < 0:
            break
        depth = 0
        p = start
        end = -1
        while True:
            m = (JSON_TOKEN if strings_close else JSON_BRACE).search(text, p)
            if m is None:
                break
            if m.group() == '"':
                string = JSON_STRING.match(text, m.start())
                if string is None:
                    strings_close = False
                p = m.end() if string is None else string.end()
                continue
            if m.group() == "{":
                depth += 1
            elif m.group() == "}":
                depth -= 1
                if depth == 0:
                    end = m.end()
                    break
            p = m.end()
        if end < 0:
            error = error or "JSON is cut off: an object is never closed"
            break
        try:
            value = json.loads(text[start:end])
        except (ValueError, RecursionError) as exc:
            error = error or f"JSON does not parse: {str(exc).splitlines()[0]}"
        else:
            if isinstance(value, dict):
                objects.append(value)
        pos = end
    return objects, error


json_objects = _json_objects  # the same reading, for the judge's reasoning (judge_reasoning.py)


def _get(obj: dict[str, object], key: str) -> tuple[bool, object]:
    """Case-insensitive key lookup: (found, value)."""
    if key in obj:
        return True, obj[key]
    want = dimension_key(key)
    for k, v in obj.items():
        if dimension_key(k) == want:
            return True, v
    return False, None


def _value_verdict(value: object) -> Verdict | None:
    if not isinstance(value, str):
        return None
    m = BARE.fullmatch(value)
    return None if m is None else word_verdict(m["v"])


def _text_of(obj: dict[str, object], keys: Sequence[str]) -> str | None:
    for key in keys:
        found, value = _get(obj, key)
        if found and isinstance(value, str):
            return value
    return None


_REASON_KEYS = ("rationale", "reason", "explanation")


def _choices_of(
    obj: dict[str, object], answer: AnswerFormat, dimensions: Sequence[str]
) -> tuple[dict[str, Verdict] | None, str | None]:
    """The verdicts one JSON object gives for json-choices, or why it gives none."""
    found, choices = _get(obj, answer.choices_key)
    if not found:
        dims = {dimension_key(d) for d in dimensions}
        if not any(dimension_key(k) in dims for k in obj):
            return None, f"JSON has no {short(answer.choices_key)} object"
        skip = {dimension_key(k) for k in (answer.reason_key, *_REASON_KEYS) if k}
        choices = {k: v for k, v in obj.items() if dimension_key(k) not in skip}
    if not isinstance(choices, dict):
        return None, f"JSON {short(answer.choices_key)} is not an object"
    dims = {dimension_key(d) for d in dimensions}
    pairs: list[tuple[str, Verdict]] = []
    for key, value in choices.items():
        if dimension_key(key) not in dims:
            return None, f"unknown aspect {short(key)}"
        verdict = _value_verdict(value)
        if verdict is None:
            return None, f"invalid verdict {short(value)} for aspect {short(key)}"
        pairs.append((key, verdict))
    return by_label(pairs, dimensions)


def _choice_of(
    obj: dict[str, object], answer: AnswerFormat, dimensions: Sequence[str]
) -> tuple[dict[str, Verdict] | None, str | None]:
    """The verdict one JSON object gives for json-choice, or why it gives none."""
    found, value = _get(obj, answer.choice_key)
    if not found:
        return None, f"JSON has no {short(answer.choice_key)} key"
    verdict = _value_verdict(value)
    if verdict is None:
        return None, f"invalid verdict {short(value)} (expected A, B or tie)"
    return {dimensions[0]: verdict}, None


def parse_json(text: str, answer: AnswerFormat, dimensions: Sequence[str]) -> ParseOutcome:
    one = answer.kind is AnswerKind.JSON_CHOICE
    if one and len(dimensions) != 1:
        return fail(f"a JSON choice gives one verdict, but {len(dimensions)} dimensions")
    objects, json_error = _json_objects(text)
    if not objects:
        return fail(json_error or "no JSON object found")
    reason_keys = (answer.reason_key, *_REASON_KEYS) if answer.reason_key else _REASON_KEYS
    results: list[tuple[dict[str, Verdict], str | None]] = []
    first_error: str | None = None
    first_rationale: str | None = None
    for obj in objects:
        rationale = _text_of(obj, reason_keys)
        first_rationale = first_rationale or rationale
        got, error = (_choice_of if one else _choices_of)(obj, answer, dimensions)
        if got is None:
            first_error = first_error or error
        else:
            results.append((got, rationale))
    if not results:
        if json_error and first_error and first_error.startswith("JSON has no"):
            first_error = json_error
        return fail(first_error or "no verdicts in the JSON", first_rationale)
    distinct = {tuple(sorted(r.items())) for r, _ in results}
    if len(distinct) > 1:
        return fail("ambiguous answer: several JSON answers disagree", first_rationale)
    verdicts, rationale = results[0]
    return ParseOutcome(verdicts, None, rationale)
