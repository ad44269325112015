"""Read a judge's completion into one verdict per dimension, or fail with a one-line reason.

A wrong verdict is worse than no verdict: a parse failure keeps the raw text for a human,
a guess silently corrupts the labels. So the parser is tolerant about *form* and strict
about *meaning*.

Tolerated form: any case; whitespace; code fences; quotes, backticks, ``**bold**``,
``[A]``, ``(a)``, ``[[A]]``; trailing punctuation (``tie.``); chat tokens (the text is cut
at the first end-of-turn token such as ``<|eot_id|>``: what follows is a new turn, not the
answer); naming such as ``Response A``, ``Assistant B``, ``Output (a)``; prose around the
answer (``My answer: B``); JSON inside prose or a fence, followed by more text.

How a verdict is found in free text (kinds ``single`` and ``comma-list``), in two tiers:

1. *Explicit* answer statements: a line that is nothing but a verdict (``A``, ``**tie**``,
   ``Response B.``), ``[[X]]``, or a labelled answer (``Final answer: X``, ``The better
   response is X``, ``I choose X``, ``Verdict - X``). If there are any, they alone count and
   must all name the same verdict; an answer-shaped non-verdict stated the same way
   (``Answer: C``, ``[[C]]``, a line ``both``) is an invalid verdict. So a model that
   reasons in prose and then states its answer is read by the statement, one that repeats
   itself (``A`` three times) agrees with itself, and one that states two different answers
   (``A`` on one line, ``B`` on another, e.g. echoed few-shot examples) is ambiguous.
2. Otherwise every *mention* in the prose counts, and there must be exactly one distinct
   verdict among them: ``I think B is better`` is B; ``A or B``, ``A ... actually B`` and
   ``B is better than A`` are ambiguous (we will not guess which one was meant). A negation
   in a sentence that mentions a verdict (``not A``, ``B isn't better``, ``not a tie``)
   makes the answer ambiguous too: prose negation is too easy to misread.

``A`` is also an English article. A standalone ``a``/``A`` followed by an ordinary word
(``A good answer would be``, ``output a single letter``) is an article; one followed by
punctuation, the end of the line, or a verb or connective (``A is better``, ``A and``,
``A, because``) is a verdict; after ``Response``/``Assistant``/``Candidate``/``Option`` it is
always a verdict. ``a tie`` is tie. These rules never depend on letter case, so
``A GOOD ANSWER`` reads the same as ``a good answer``.

``comma-list``: the longest run of two or more comma-separated items on a line
(``A, tie, B, A``, optionally after ``label:`` or other prose, optionally followed by
prose, optionally each ``dimension: X``) is the answer; ``A, B, or tie`` is the options
being listed, not an answer. Several such lines must agree, and the count must equal the
number of dimensions. Lines of the form ``Precision: A``, one per dimension, are accepted
when there is no such list. One verdict for several dimensions is a wrong count.

JSON kinds: the top-level ``{...}`` groups in the text are decoded (trailing prose and
braces inside strings are fine). Aspect names match dimensions case-insensitively; an
unknown, missing or repeated aspect, a value other than A/B/tie, or JSON that does not
parse is a failure. An object with the aspects at the top level instead of under
``choices`` is accepted. Objects that give no complete answer (an echoed template) are
skipped when another one does; objects that give different answers are ambiguous.
``bracketed`` (FastChat's pairwise judges): see ``bracketed.py``; only ``[[A]]``,
``[[B]]`` and ``[[C]]`` (tie) count, and they must agree. ``identifier`` (``m`` or ``M``)
and ``ranking`` (a list of ``{'model': 'model_1', 'rank': 1}``), AlpacaEval's: see
``alpaca_answers.py``.

Near-JSON (single quotes, trailing commas, a missing closing brace) is not repaired, and a
bare ``A`` where JSON was asked for is a failure: the rubric asked for JSON.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from desktop.domain.parsing.alpaca_answers import parse_identifier, parse_ranking
from desktop.domain.parsing.bracketed import parse_bracketed
from desktop.domain.parsing.free_text import clean, parse_comma_list, parse_single
from desktop.domain.parsing.json_answers import parse_json
from desktop.domain.parsing.parse_outcome import ParseOutcome, fail
from desktop.domain.parsing.vocabulary import WORDS
from desktop.domain.results import LONE_SURROGATE
from desktop.domain.rubric import AnswerFormat, AnswerKind
from desktop.domain.verdicts import Verdict

__all__ = ["MAX_ANSWER_CHARS", "ParseOutcome", "parse_answer", "verdict_token_probabilities"]

#: The longest answer read, in characters (after chat tokens are cut). A judge's answer is
#: a few thousand; a longer one is a parse failure, its raw text kept, so reading any
#: answer takes bounded time and memory (every pattern below reads it in linear time).
MAX_ANSWER_CHARS = 1_000_000

# --- entry points ---------------------------------------------------------------------


def parse_answer(text: str, answer: AnswerFormat, dimensions: Sequence[str]) -> ParseOutcome:
    """Parse one completion into a verdict for every dimension, or say why it can't."""
    if not dimensions:
        return fail("the rubric has no dimensions")
    surrogate = LONE_SURROGATE.search(text)
    if surrogate is not None:  # not text at all: no reading of it can be trusted
        code, at = ord(surrogate.group()), surrogate.start() + 1
        return fail(
            f"the answer is not valid text: a lone surrogate U+{code:04X} at character {at:,}"
        )
    kind = answer.kind
    if kind is AnswerKind.SINGLE and len(dimensions) == 1:
        quick = WORDS.get(text.strip().lower())  # the common case: a bare "A"
        if quick is not None:
            return ParseOutcome({dimensions[0]: quick}, None)
    text = clean(text)
    if not text:
        return fail("empty answer")
    if len(text) > MAX_ANSWER_CHARS:
        return fail(
            f"answer too long to read: {len(text):,} characters (limit {MAX_ANSWER_CHARS:,})"
        )
    if kind is AnswerKind.SINGLE:
        return parse_single(text, dimensions)
    if kind is AnswerKind.COMMA_LIST:
        return parse_comma_list(text, dimensions)
    if kind is AnswerKind.BRACKETED:
        return parse_bracketed(text, dimensions)
    if kind is AnswerKind.IDENTIFIER:
        return parse_identifier(text, dimensions)
    if kind is AnswerKind.RANKING:
        return parse_ranking(text, dimensions)
    return parse_json(text, answer, dimensions)


def verdict_token_probabilities(
    top_logprobs: list[tuple[str, float]],
) -> dict[Verdict, float] | None:
    """Normalised A/B/tie probabilities from one generated position's top logprobs.

    Variants of one verdict (" A", "a", "Tie", "TIE") add up; "t" and "ti" count as the
    start of "tie", which some tokenizers split. Only verdicts among the alternatives get
    a key. None when no alternative is a verdict token, so no confidence is invented.
    """
    mass: dict[Verdict, list[float]] = {}
    for token, logprob in top_logprobs:
        word = token.strip().strip("\"'`*[]()").lower()
        verdict = WORDS.get(word) or (Verdict.TIE if word in ("t", "ti") else None)
        if verdict is None or not isinstance(logprob, int | float):
            continue
        if math.isfinite(logprob):  # -inf is zero mass; nan or +inf is no information
            mass.setdefault(verdict, []).append(float(logprob))
    if not mass:
        return None
    top = max(lp for lps in mass.values() for lp in lps)
    sums = {v: sum(math.exp(lp - top) for lp in lps) for v, lps in mass.items()}
    total = sum(sums.values())
    return {v: s / total for v, s in sums.items()}
