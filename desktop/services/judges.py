"""Which judges a project holds answers from: annotators that came with a data file,
command-line runs, the window's profiles, batch results. Read for `tiebreak judges` and
for the window's judge picker; the picker's queries are index seeks (see ``results``)."""

from __future__ import annotations

from typing import NamedTuple

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import judge_models, judge_pair_counts, judge_summaries


class JudgeRow(NamedTuple):
    """One judge's answers for one rubric (each order of a pair counted)."""

    rubric: str
    judge: str
    pairs: int  # pairs with an answer of any kind
    answers: int
    ok: int
    parse_failures: int
    errors: int
    first_answer: str  # ISO 8601, UTC
    last_answer: str
    origins: list[str]  # "model", "batch", "import"


class JudgeChoice(NamedTuple):
    """An entry of the window's judge picker."""

    judge: str
    pairs: int | None  # None until counted


def judge_table(store: ProjectStore) -> list[JudgeRow]:
    """Every rubric × judge, rubrics by name, each rubric's judges most recent first."""
    return [
        JudgeRow(
            rubric=rubric,
            judge=judge,
            pairs=pairs,
            answers=answers,
            ok=ok,
            parse_failures=failures,
            errors=errors,
            first_answer=first,
            last_answer=last,
            origins=sorted(set((origins or "").split(","))),
        )
        for rubric, judge, pairs, answers, ok, failures, errors, first, last, origins in (
            judge_summaries(store)
        )
    ]


def judge_names(store: ProjectStore, rubric: str) -> list[JudgeChoice]:
    """The judges of a rubric, most recent answers first, not yet counted: fast enough to
    run while the window opens."""
    return [JudgeChoice(name, None) for name in judge_models(store, rubric)]


def judge_choices(store: ProjectStore, rubric: str) -> list[JudgeChoice]:
    """The judges of a rubric with the pairs each answered, most recent first."""
    return [JudgeChoice(name, pairs) for name, pairs in judge_pair_counts(store, rubric)]
