"""Turn one model answer into a stored result: parse, map the swapped order back, and
read a confidence off the logprobs of a one-token answer."""

from __future__ import annotations

from collections.abc import Sequence

from desktop.adapters.model_client import Completion
from desktop.domain.parsing import parse_answer, verdict_token_probabilities
from desktop.domain.results import Order, Status
from desktop.domain.rubric import Rubric
from desktop.domain.verdicts import Verdict


def interpret(
    rubric: Rubric, order: Order, completion: Completion, *, constrained: bool = False
) -> tuple[Status, dict[str, Verdict], dict[str, float], str | None]:
    """(status, verdicts in the pair's own A/B terms, confidences, parse error).

    ``constrained``: a grammar allowed nothing but the answer, so the verdict is the first
    generated token. Its confidence is read there, among the verdict tokens of the model's
    own (unconstrained) top alternatives, whichever token the model would have liked best."""
    outcome = parse_answer(completion.text, rubric.answer, rubric.dimensions)
    if not outcome.ok or outcome.verdicts is None:
        return Status.PARSE_FAILURE, {}, {}, outcome.error
    verdicts = dict(outcome.verdicts)
    confidence: dict[str, float] = {}
    if rubric.answer.one_token and completion.top_logprobs:
        dim = rubric.dimensions[0]
        positions = completion.top_logprobs
        probs = (
            verdict_token_probabilities(list(positions[0]))
            if constrained
            else answer_probabilities(positions)
        )
        if probs is not None and verdicts[dim] in probs:
            confidence[dim] = round(probs[verdicts[dim]], 6)
    if order is Order.BA:
        verdicts = {d: v.swapped() for d, v in verdicts.items()}
    return Status.OK, verdicts, confidence, None


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
