"""Which judges a project holds answers from: annotators that came with a data file,
command-line runs, the window's profiles, batch results; and the juries it keeps, which the
window's judge picker offers after them. Read for `tiebreak judges` and for the picker;
the picker's queries are index seeks (see ``results``)."""

from __future__ import annotations

from typing import NamedTuple

from desktop.adapters.store.juries import judged_by_any, juries
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import (
    JudgeSummary,
    judge_models,
    judge_pair_counts,
    judge_summaries,
)

JudgeRow = JudgeSummary  # one judge's answers for one rubric, as `tiebreak judges` lists


class JudgeChoice(NamedTuple):
    """An entry of the window's judge picker."""

    judge: str
    pairs: int | None  # None until counted
    jurors: tuple[str, ...] = ()  # a kept jury's; () for one judge


def judge_table(store: ProjectStore) -> list[JudgeRow]:
    """Every rubric × judge, rubrics by name, each rubric's judges most recent first."""
    return judge_summaries(store)


def judge_names(store: ProjectStore, rubric: str) -> list[JudgeChoice]:
    """The judges of a rubric, most recent answers first, not yet counted: fast enough to
    run while the window opens."""
    kept = [JudgeChoice(j.name, None, j.jurors) for j in juries(store, rubric)]
    return [JudgeChoice(name, None) for name in judge_models(store, rubric)] + kept


def judge_choices(store: ProjectStore, rubric: str) -> list[JudgeChoice]:
    """The judges of a rubric with the pairs each answered, most recent first."""
    kept = [
        JudgeChoice(j.name, judged_by_any(store, rubric, j.jurors), j.jurors)
        for j in juries(store, rubric)
    ]
    return [JudgeChoice(name, pairs) for name, pairs in judge_pair_counts(store, rubric)] + kept
