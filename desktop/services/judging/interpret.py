"""Turn one model answer into a stored result: parse, map the swapped order back, and
read a confidence off the logprobs of a one-token answer (and, for AlpacaEval's m/M
answer, its soft preference)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from desktop.adapters.model_client import Completion
from desktop.domain.parsing import parse_answer, verdict_token_probabilities
from desktop.domain.parsing.alpaca_answers import IDENTIFIERS, identifier_probabilities
from desktop.domain.results import Order, Status
from desktop.domain.rubric import AnswerKind, Rubric
from desktop.domain.verdicts import Verdict


class Interpreted(NamedTuple):
    status: Status
    verdicts: dict[str, Verdict]  # in the pair's own A/B terms
    confidence: dict[str, float]
    error: str | None  # why it could not be read
    # AlpacaEval's 1 + P(B is better), in the pair's terms, where the answer gives one.
    preference: dict[str, float | str]


def interpret(
    rubric: Rubric, order: Order, completion: Completion, *, constrained: bool = False
) -> Interpreted:
    """The answer read: status, verdicts, confidences, parse error and preference.

    ``constrained``: a grammar allowed nothing but the answer, so the verdict is the first
    generated token. Its confidence is read there, among the verdict tokens of the model's
    own (unconstrained) top alternatives, whichever token the model would have liked best."""
    outcome = parse_answer(completion.text, rubric.answer, rubric.dimensions)
    if not outcome.ok or outcome.verdicts is None:
        return Interpreted(Status.PARSE_FAILURE, {}, {}, outcome.error, {})
    verdicts = dict(outcome.verdicts)
    confidence: dict[str, float] = {}
    preference: dict[str, float | str] = {}
    dim = rubric.dimensions[0]
    if rubric.answer.kind is AnswerKind.IDENTIFIER and completion.top_logprobs:
        probs = identifier_probabilities(completion.top_logprobs, constrained=constrained)
        if probs is not None:
            p_m, p_big_m = probs
            # The verdict is the letter the judge gave; its probability is its confidence.
            said = "m" if verdicts[dim] is IDENTIFIERS["m"] else "M"
            confidence[dim] = round(p_m if said == "m" else p_big_m, 6)
            preference[dim] = 1.0 + p_big_m
    elif rubric.answer.one_token and completion.top_logprobs:
        positions = completion.top_logprobs
        probs_v = (
            verdict_token_probabilities(list(positions[0]))
            if constrained
            else answer_probabilities(positions)
        )
        if probs_v is not None and verdicts[dim] in probs_v:
            confidence[dim] = round(probs_v[verdicts[dim]], 6)
    if order is Order.BA:
        verdicts = {d: v.swapped() for d, v in verdicts.items()}
        preference = {d: 3.0 - float(p) for d, p in preference.items()}
    return Interpreted(Status.OK, verdicts, confidence, None, preference)


def answer_probabilities(
    positions: Sequence[Sequence[tuple[str, float]]],
) -> dict[Verdict, float] | None:
    """A/B/tie probabilities at the first position whose likeliest token is a verdict, so
    an answer that opens with a bracket or a space still gets its confidence."""
    for alternatives in positions[:8]:
        if not alternatives:
            continue
        best = max(alternatives, key=lambda item: item[1])[0]
        if Verdict.from_token(best) is not None or best.strip().lower() in ("ti", "t"):
            return verdict_token_probabilities(list(alternatives))
    return None
