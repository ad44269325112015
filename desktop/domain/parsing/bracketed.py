"""FastChat's pairwise answer (MT-bench's ``pair-v2`` and ``pair-math-v1`` judges): an
explanation, then ``[[A]]`` if assistant A is better, ``[[B]]`` if B, ``[[C]]`` for a tie.

FastChat itself takes the first of ``[[A]]``, ``[[B]]``, ``[[C]]`` that occurs anywhere, in
that order, so an answer that quotes the format ("[[A]] if A is better ...") and then
says ``[[B]]`` counts as A there. Here every marker counts and they must agree: two
different ones are ambiguous, a parse failure that keeps the raw text for a human, as any
other answer without exactly one verdict is. The letter may be either case.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from desktop.domain.parsing.parse_outcome import ParseOutcome, fail
from desktop.domain.verdicts import Verdict

MARKER = re.compile(r"\[\[([ABCabc])\]\]")
_VERDICTS = {"A": Verdict.A, "B": Verdict.B, "C": Verdict.TIE}


def parse_bracketed(text: str, dimensions: Sequence[str]) -> ParseOutcome:
    if len(dimensions) != 1:
        return fail(
            f"a [[A]]/[[B]]/[[C]] answer gives one verdict, but {len(dimensions)} dimensions"
        )
    given = list(dict.fromkeys(m.upper() for m in MARKER.findall(text)))
    if not given:
        return fail("no [[A]], [[B]] or [[C]] in the answer")
    if len(given) > 1:
        return fail(f"ambiguous: the answer gives {' and '.join(f'[[{g}]]' for g in given)}")
    return ParseOutcome({dimensions[0]: _VERDICTS[given[0]]}, None)
