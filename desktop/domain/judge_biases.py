"""A judge's own biases, measured as AlpacaEval 0.6.6 measures them (``src/alpaca_eval/analyze.py``,
``get_length_biases``, ``get_list_biases`` and "Proba. prefer 1" in
``get_metrics_evaluator``; ``utils.contains_list``; tatsu-lab/alpaca_eval): how often it
prefers the longer answer, the answer with a list, and output_1 (A).

Each pair is (output_1, output_2, preference) on AlpacaEval's scale: 1 prefers output_1,
2 output_2, fractional values between, 0 AlpacaEval's old draw, None no verdict. Its rules,
kept exactly so the figures equal its own on the same annotations:

- the preferred answer is output_1 where 1 <= preference < 1.5, else output_2; the other
  is output_1 where 1.5 < preference <= 2, else output_2. So a tie (1.5), a 0 draw or
  None leaves both "answers" output_2, which neither share counts;
- prefer longer: over pairs whose preferred and other answer differ by more than 30
  characters, the share where the preferred one is longer;
- prefer lists: over pairs where exactly one of the two has a list (``contains_list``:
  AlpacaEval 0.6.6's rule, a bullet, number or letter at a line's start; before 0.6.6 its
  patterns also matched a hyphenated word or "e.g. this" anywhere), the share where the
  preferred one has it;
- prefer 1: 2 - the mean preference, so 1 always prefers output_1, 0 never; a 0 draw
  counts as 0 in that mean, as AlpacaEval counts it (give a tie as 1.5 to keep it
  neutral). It is the judge's position bias (0.5 none) only where the judge was shown
  output_1 first in every answer counted (``order_seen`` "A first"). AlpacaEval's own
  annotator shuffles the two outputs before asking and maps the answer back, so on its
  annotations the figure is the baseline's loss rate, not the judge's bias; the caller,
  which knows how each answer was asked, says which.

AlpacaEval first drops repeated (instruction, output_1, output_2) rows; give each pair
once. A share with nothing to count is None.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

T = TypeVar("T")

SIGNIFICANT_DELTA_LENGTH = 30

# AlpacaEval 0.6.6's three patterns (``utils.contains_list``, line-anchored since August
# 2024): a bullet r"(?m)^\s*[\*\•\-]\s*[^\w]*\w+", a number r"(?m)^\s*\d+[\.\)]\s*[^\w]*\w+"
# and a letter r"(?m)^\s*[a-zA-Z][\.\)]\s+[^\w]*\w+". As a yes/no test they are one mark at a
# line's start (after spaces on that line: a \s* that crosses a newline reaches another
# line's start) followed anywhere later by a word character ([^\w]* runs up to the first).
# The earliest mark has the most text after it, so one search for it and one for a word
# character after it decide, in linear time; the patterns as written retry every run of
# whitespace and of punctuation from each line's start, quadratic on a file of blank lines.
# A line's start is the text's or a newline's (searching for the newline itself skips
# ahead, three times as fast on prose as a multiline ^ tried at every character).
_MARK = r"[^\S\n]*(?:[*•\-]|\d+[.)]|[a-zA-Z][.)]\s)"
_FIRST_LINE_MARK = re.compile(_MARK)
_LINE_MARK = re.compile("\n" + _MARK)
_WORD = re.compile(r"\w")


def contains_list(text: str) -> bool:
    """AlpacaEval's test for a list or bullet points in an answer."""
    mark = _FIRST_LINE_MARK.match(text) or _LINE_MARK.search(text)
    return mark is not None and _WORD.search(text, mark.end()) is not None


@dataclass(frozen=True)
class JudgeBiases:
    prefer_longer: float | None
    longer_pairs: int  # pairs whose answers differ by more than 30 characters
    prefer_lists: float | None
    list_pairs: int  # pairs where exactly one answer has a list
    prefer_output_1: float | None  # AlpacaEval's "Proba. prefer 1"
    preferences: int  # pairs with a preference
    # The order the judge was shown the outputs in: "A first" in every answer (so
    # prefer_output_1 is a position bias), "both" (asked in both orders), or "unknown".
    order_seen: str = "unknown"


class Answer(NamedTuple):
    """What the figures need of one answer: its length in characters and whether it has a
    list (``contains_list``), worked out once per answer however many dimensions use it."""

    length: int
    has_list: bool


def answer(text: str) -> Answer:
    return Answer(len(text), contains_list(text))


def _chosen(output_1: T, output_2: T, preference: float | None) -> tuple[T, T]:
    """(preferred, other) by AlpacaEval's rule (module docstring)."""
    if preference is None or math.isnan(preference):
        return output_2, output_2
    preferred = output_1 if 1 <= preference < 1.5 else output_2
    other = output_1 if 1.5 < preference <= 2 else output_2
    return preferred, other


def judge_biases(
    pairs: Iterable[tuple[str, str, float | None]],
    significant_delta_length: int = SIGNIFICANT_DELTA_LENGTH,
) -> JudgeBiases:
    """The three figures for one judge over its pairs (module docstring)."""
    return biases_of_answers(
        ((answer(o1), answer(o2), p) for o1, o2, p in pairs), significant_delta_length
    )


def biases_of_answers(
    pairs: Iterable[tuple[Answer, Answer, float | None]],
    significant_delta_length: int = SIGNIFICANT_DELTA_LENGTH,
) -> JudgeBiases:
    """``judge_biases`` over answers already measured."""
    longer = longer_n = lists = lists_n = 0
    given: list[float] = []
    for output_1, output_2, preference in pairs:
        if preference is not None and not math.isnan(preference):
            given.append(preference)
        preferred, other = _chosen(output_1, output_2, preference)
        if abs(preferred.length - other.length) > significant_delta_length:
            longer_n += 1
            longer += preferred.length > other.length
        if preferred.has_list != other.has_list:
            lists_n += 1
            lists += preferred.has_list
    return JudgeBiases(
        prefer_longer=longer / longer_n if longer_n else None,
        longer_pairs=longer_n,
        prefer_lists=lists / lists_n if lists_n else None,
        list_pairs=lists_n,
        prefer_output_1=2 - math.fsum(given) / len(given) if given else None,
        preferences=len(given),
    )
