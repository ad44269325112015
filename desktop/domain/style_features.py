"""Chatbot Arena's style features of an answer and of a battle, as LMArena computes them
for style control (FastChat's ``add_markdown_info.py`` and ``rating_systems.py``): an
answer's tokens, markdown headers, list items and bold spans, the last three counted after
its fenced code blocks are removed (a heading inside code is code, not style).

A battle's feature is the difference between the two answers relative to their size,
(a - b) / (a + b + 1), so that 600 tokens against 500 weighs what 60 against 50 does; each
feature is then standardised over the battles (mean 0, population standard deviation 1), as
Arena and arena-rank's ``ContextualPairDataset`` do, so that the coefficients compare.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

#: The features in Arena's order (STYLE_CONTROL_ELEMENTS_V1).
FEATURES = ("tokens", "headers", "lists", "bold")

_CODE = re.compile("```([^`]*)```")
_HEADERS = [re.compile(rf"^#{{{n}}}\s", re.MULTILINE) for n in range(1, 7)]
_LISTS = [re.compile(r"^\s*\d+\.\s", re.MULTILINE), re.compile(r"^\s*[-*+]\s", re.MULTILINE)]
_BOLD = [re.compile(r"\*\*[^*\n]+\*\*"), re.compile(r"__[^_\n]+__")]


def without_code(answer: str) -> str:
    """The answer with every fenced code block taken out, as FastChat's ``remove_pattern``
    takes each matched block out wherever it occurs."""
    for block in _CODE.findall(answer):
        answer = answer.replace(block, "")
    return answer


def _count(patterns: Sequence[re.Pattern[str]], text: str) -> int:
    return sum(len(p.findall(text)) for p in patterns)


def answer_style(answer: str, tokens: Callable[[str], int]) -> tuple[int, int, int, int]:
    """(tokens, headers, list items, bold spans) of one answer; ``tokens`` counts the whole
    answer, code included, as Arena's ``num_tokens`` does."""
    prose = without_code(answer)
    return (tokens(answer), _count(_HEADERS, prose), _count(_LISTS, prose), _count(_BOLD, prose))


def battle_features(style_a: np.ndarray, style_b: np.ndarray) -> np.ndarray:
    """(N, 4) standardised features from each battle's (N, 4) counts for A and for B: the
    relative difference, then mean 0 and standard deviation 1 per feature (a feature that
    never varies stays 0, as arena-rank keeps it)."""
    a = np.asarray(style_a, dtype=float)
    b = np.asarray(style_b, dtype=float)
    ratio = (a - b) / (a + b + 1.0)
    spread = ratio.std(axis=0)
    spread = np.where(spread == 0.0, 1.0, spread)
    out: np.ndarray = (ratio - ratio.mean(axis=0)) / spread
    return out
