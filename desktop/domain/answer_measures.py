"""What the figures measure of one answer, worked out once per answer and kept
(``adapters.store.answer_measures``): its length and whether it has a list, as AlpacaEval
0.6.6 measures the judge's biases (``judge_biases``), and its tokens, headers, list items
and bold spans, as Chatbot Arena's style control counts them (``style_features``).

Kept in the project, the figures of a large project read a few integers a pair instead of
every answer's text again (tokenizing is 0.4 ms an answer: 80 s at a million pairs).
The token count depends on the tokenizer that counted it, so it is kept with its name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from desktop.domain.judge_biases import contains_list
from desktop.domain.style_features import answer_style

#: (tokens, headers, list items, bold spans): ``style_features.answer_style``.
Style = tuple[int, int, int, int]


class Measures(NamedTuple):
    """One answer's measures: the bias figures' (``judge_biases.Answer``) and the style
    counts."""

    length: int
    has_list: bool
    style: Style


def measure(text: str, tokens: Callable[[str], int]) -> Measures:
    """``text``'s measures, its tokens counted by ``tokens``."""
    return Measures(len(text), contains_list(text), answer_style(text, tokens))
