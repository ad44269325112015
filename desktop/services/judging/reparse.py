"""Parse stored raw completions again after a parser or rubric fix, without a model call."""

from __future__ import annotations

import json
from dataclasses import dataclass

from desktop.adapters.model_client import Completion
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import Reparsed, answers_to_parse, update_parsed
from desktop.domain.results import Status
from desktop.domain.rubric import Rubric
from desktop.services.judging.interpret import interpret


@dataclass(frozen=True)
class ReparseReport:
    examined: int
    now_ok: int
    still_failing: int


def reparse(store: ProjectStore, rubric: Rubric, *, everything: bool = False) -> ReparseReport:
    """Re-read parse failures (or, with ``everything``, every answer) of a rubric.

    Confidences and preferences from logprobs are kept as stored: only the text is parsed
    again.
    """
    rows = answers_to_parse(store, rubric.name, everything=everything)
    now_ok = 0
    updates = []
    for row in rows:
        completion = Completion(row.raw_completion, (), None, None, None, 1)
        status, verdicts, _, error, _ = interpret(rubric, row.order, completion)
        now_ok += status is Status.OK
        stored = json.dumps({d: v.value for d, v in verdicts.items()}) if verdicts else None
        updates.append(
            Reparsed(
                status=status,
                verdicts=stored,
                confidence=row.confidence if status is Status.OK else None,
                error=error,
                id=row.id,
            )
        )
    update_parsed(store, updates)
    return ReparseReport(len(rows), now_ok, len(rows) - now_ok)
