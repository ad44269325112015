"""A rubric's prompt for a pair, rendered where the operating system bounds its time and
memory (``render_worker``): the judge, ``rubric add``'s cost check and the window's
prompt all render here, so a template that spins or fills memory fails in one line.
A rubric shipped with the app (the same content as one of ours) is known code: it renders
in this process, as fast as the judge's loop needs (17 µs against a worker's 290)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable

from desktop.domain import render as known
from desktop.domain.errors import RubricError
from desktop.domain.pairs import PairContent
from desktop.domain.render import MAX_CHARS, RENDER_SECONDS, sample_pair, variables_for
from desktop.domain.rubric import Rubric
from desktop.services.render_worker import Messages, RenderWorkers
from desktop.services.rubric_catalog import shipped_hashes

_workers: RenderWorkers | None = None
_started = threading.Lock()


def workers() -> RenderWorkers:
    """The process's workers, made on first use (a command that renders nothing starts
    no process)."""
    global _workers
    with _started:
        if _workers is None:
            _workers = RenderWorkers()
        return _workers


def render(
    rubric: Rubric,
    pair: PairContent,
    *,
    fewshot: bool = True,
    max_chars: int = MAX_CHARS,
    stop: Callable[[], bool] | None = None,
    seconds: float = RENDER_SECONDS,
) -> Messages:
    """The judge request's messages for one pair, as ``{"role", "content"}`` dicts.

    Raises RenderTooSlow past ``seconds``, RenderTooBig past the worker's memory or text
    (both RenderOverBudget), RenderStopped as soon as ``stop()`` is true, and RubricError
    for anything else a template cannot do for this pair."""
    if shipped(rubric):
        return known.render(rubric, pair, fewshot=fewshot, max_chars=max_chars)
    variables = variables_for(rubric, pair, fewshot=fewshot)
    return workers().render(
        rubric, variables, pair.label, max_chars=max_chars, seconds=seconds, stop=stop
    )


@functools.lru_cache(maxsize=64)  # as the compiled templates are (domain/render.py)
def shipped(rubric: Rubric) -> bool:
    """The rubric is one shipped with the app, to the byte of what shapes its requests
    (a user's copy with one word changed is not)."""
    return rubric.content_hash in shipped_hashes()


def check_cost(rubric: Rubric) -> None:
    """Before a rubric is added: refuse one that cannot render a sample pair of ordinary
    size (``sample_pair``) within its budget (time, memory and text), in one line."""
    try:
        render(rubric, sample_pair(rubric))
    except RubricError as exc:
        raise RubricError(f"{exc}; rubric not added") from None
