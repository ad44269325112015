"""What a judge wrote around its verdict, for the reviewer to read beside it.

Where a rubric asks for it in JSON, that member: just-eval's ``rationale``, the
text-grounded prompt's ``reason``, AlpacaEval's ``concise_explanation`` (its chain-of-
thought annotators keep their answer in an object), or any of the usual names. Where the
judge answered in prose (MT-bench's judgments, which end in ``[[A]]``), the prose itself.
Nothing where the answer is only a verdict ("A", "A, B, tie, A", "[[B]]", a logprobs
record): there is no reasoning to show.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from desktop.domain.parsing.json_answers import json_objects

REASON_KEYS = (
    "rationale",
    "reason",
    "reasoning",
    "explanation",
    "concise_explanation",
    "justification",
    "judgment",
    "judgement",
    "analysis",
)
_WORD = re.compile(r"[^\W\d_]{2,}")
PROSE_WORDS = 5  # fewer words than this is a verdict stated, not reasoning ("Final answer: A")
MAX_CHARS = 20_000  # shown of a reasoning longer than that (a judge that ran on)


def reasoning(raw: str | None) -> str | None:
    """The judge's reasoning in ``raw`` (its completion as stored), or None."""
    if not raw or not raw.strip():
        return None
    text = raw.replace("\r\n", "\n").strip()
    objects, _ = json_objects(text)
    for obj in objects:
        found = _in_object(obj, 0)
        if found:
            return _cut(found)
    if objects and text.startswith("{") and text.endswith("}"):
        return None  # JSON and nothing else, without a reason in it
    return _cut(text) if _is_prose(text) else None


def _in_object(obj: Mapping[str, object], depth: int) -> str | None:
    """A reason member of ``obj``; else the reasoning in the text of a chat reply kept
    whole (``message.content``, ``text``, ``choices[0]``)."""
    if depth > 3:
        return None
    lowered = {str(k).lower(): v for k, v in obj.items()}
    for key in REASON_KEYS:
        value = lowered.get(key)
        if isinstance(value, str) and value.strip():
            return value.replace("\r\n", "\n").strip()
    for key in ("message", "choices", "content", "text"):
        value = lowered.get(key)
        if isinstance(value, list) and value and isinstance(value[0], dict):
            value = value[0]
        if isinstance(value, dict):
            found = _in_object(value, depth + 1)
        elif isinstance(value, str) and value.strip():
            found = reasoning(value) if depth < 3 else None
        else:
            continue
        if found:
            return found
    return None


def _is_prose(text: str) -> bool:
    words = zip(range(PROSE_WORDS), _WORD.finditer(text), strict=False)  # stops at enough
    return sum(1 for _ in words) >= PROSE_WORDS


def _cut(text: str) -> str:
    if len(text) <= MAX_CHARS:
        return text
    return text[:MAX_CHARS] + f"\n… ({len(text) - MAX_CHARS:,} more characters: Raw completion)"
