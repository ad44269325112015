"""AlpacaEval's own answer formats (``tatsu-lab/alpaca_eval``, ``completion_parsers.py``).

``identifier`` (AlpacaEval 2's ``alpaca_eval_clf_gpt4_turbo`` and the weighted annotators
on its template): the judge names the better output by its identifier, ``m`` for
output_1 (A) and ``M`` for output_2 (B), case and all. The answer (its last line, for the
chain-of-thought variant that explains first) must be that one letter, quotes or a full
stop around it forgiven. AlpacaEval's ``logprob_parser`` reads the judge's preference
off the token probabilities: P(m) and P(M) among the top logprobs of the answer token,
normalised over the two (a missing one is zero), give the soft preference
``2 - P(m) / (P(m) + P(M))``; :func:`identifier_probabilities` gives the same two numbers.

``ranking`` (``alpaca_eval_gpt4``, ``claude_ranking`` and the other ``ranking_parser``
annotators): a Python list of ``{'model': 'model_1', 'rank': 1}`` dicts (the template asks
for Python, so single quotes; JSON reads the same), read as a literal, never evaluated,
wherever it stands in the answer (AlpacaEval reads the whole answer as the literal, so
prose or a code fence around it is NaN there). model_1's rank 1 is A, rank 2 is B.
AlpacaEval reads model_1's rank alone; here a model_2 given the same rank, a rank other
than 1 or 2, a model named twice, or two rankings that disagree is a parse failure, which
keeps the raw text for a human: a wrong verdict is worse than none.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Sequence

from desktop.domain.parsing.parse_outcome import ParseOutcome, fail
from desktop.domain.parsing.vocabulary import short
from desktop.domain.verdicts import Verdict

IDENTIFIERS = {"m": Verdict.A, "M": Verdict.B}
_AROUND = " \t\"'`*.“”‘’"
# The answer token is looked for this far from the end (the chain-of-thought variant ends
# with it; the plain one is nothing else).
_LAST_POSITIONS = 8


def parse_identifier(text: str, dimensions: Sequence[str]) -> ParseOutcome:
    """``m`` (A) or ``M`` (B): the answer's last non-empty line."""
    if len(dimensions) != 1:
        return fail(f"an m/M answer gives one verdict, but {len(dimensions)} dimensions")
    lines = [line for line in text.splitlines() if line.strip()]
    last = lines[-1].strip(_AROUND) if lines else ""
    verdict = IDENTIFIERS.get(last)
    if verdict is None:
        return fail(f"the answer ends with {short(last)}, not the identifier m or M")
    return ParseOutcome({dimensions[0]: verdict}, None)


def identifier_probabilities(
    positions: Sequence[Sequence[tuple[str, float]]], *, constrained: bool = False
) -> tuple[float, float] | None:
    """(P(m), P(M)) normalised over the two, read where the answer token was generated:
    the last position whose likeliest alternative is ``m`` or ``M`` (the last position,
    whatever the model liked best there, where a grammar made it the letter:
    ``constrained``). Variants with spaces around add up. None where that position offers
    neither, so no preference is invented."""
    if constrained:
        chosen = positions[-1:]
    else:
        chosen = [
            alternatives
            for alternatives in positions[-_LAST_POSITIONS:]
            if alternatives and max(alternatives, key=lambda a: a[1])[0].strip() in IDENTIFIERS
        ][-1:]
    if not chosen:
        return None
    mass: dict[str, list[float]] = {}
    for token, logprob in chosen[0]:
        word = token.strip()
        if word in IDENTIFIERS and isinstance(logprob, int | float) and math.isfinite(logprob):
            mass.setdefault(word, []).append(float(logprob))
    if not mass:
        return None
    top = max(lp for lps in mass.values() for lp in lps)
    sums = {w: sum(math.exp(lp - top) for lp in mass.get(w, [])) for w in IDENTIFIERS}
    total = sums["m"] + sums["M"]
    return sums["m"] / total, sums["M"] / total


def parse_ranking(text: str, dimensions: Sequence[str]) -> ParseOutcome:
    """model_1's rank among a list of ``{'model': ..., 'rank': ...}``: 1 is A, 2 is B. Each
    bracketed list of dicts in the answer is read (prose or a code fence around it is
    fine; an echoed ``<model-name>`` is no literal and is skipped); lists that give
    different verdicts are ambiguous."""
    if len(dimensions) != 1:
        return fail(f"a ranking answer gives one verdict, but {len(dimensions)} dimensions")
    verdicts: list[Verdict] = []
    first_error = None
    for value in _lists(text):
        verdict, error = _ranked(value)
        if verdict is not None:
            verdicts.append(verdict)
        elif first_error is None:
            first_error = error
    given = list(dict.fromkeys(verdicts))
    if len(given) > 1:
        return fail("ambiguous: the answer gives rankings that disagree")
    if given:
        return ParseOutcome({dimensions[0]: given[0]}, None)
    return fail(first_error or "the answer is not a list of {'model': ..., 'rank': ...}")


def _ranked(value: list[object]) -> tuple[Verdict | None, str | None]:
    """The verdict one ranking gives, or why it gives none."""
    ranks: dict[str, int] = {}
    for item in value:
        if not isinstance(item, dict) or "model" not in item or "rank" not in item:
            return None, f"ranking item {_shown(item)} has no 'model' and 'rank'"
        model, rank = item["model"], item["rank"]
        if model not in ("model_1", "model_2"):
            return None, f"the ranking names {_shown(model)}, not model_1 or model_2"
        if model in ranks:
            return None, f"the ranking names {model} twice"
        if isinstance(rank, bool) or rank not in (1, 2):
            return None, f"{model} has rank {_shown(rank)}, not 1 or 2"
        ranks[model] = rank
    if "model_1" not in ranks:
        return None, "the ranking does not rank model_1"
    if ranks.get("model_2") == ranks["model_1"]:
        return None, f"the ranking gives model_1 and model_2 both rank {ranks['model_1']}"
    return (Verdict.A if ranks["model_1"] == 1 else Verdict.B), None


def _shown(value: object) -> str:
    """A value of the answer as Python writes it, cut for a one-line error."""
    text = repr(value)
    return text if len(text) <= 30 else text[:27] + "..."


# A list of dicts with no brackets inside, at most this long: a ranking of two models is
# under 200 characters, and a literal this size reads in well under a millisecond.
_MAX_LIST = 2_000
_LIST = re.compile(rf"\[\s*\{{[^\[\]]{{0,{_MAX_LIST}}}\]")


def _lists(text: str) -> list[list[object]]:
    """Every bracketed list of dicts in the answer that is a Python (or JSON) literal; read
    as a literal, never evaluated. Each candidate is at most ``_MAX_LIST`` characters and
    the search reads the answer once, so a long answer costs time in proportion."""
    out = []
    for match in _LIST.finditer(text):
        try:
            value = ast.literal_eval(match.group())
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(value, list):
            out.append(value)
    return out
