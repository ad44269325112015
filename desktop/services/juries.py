"""A judge's name as the policy whose verdicts it shows: a jury the project keeps under
that name (``adapters/store/juries.py``), else the one judge of that name. Every reader
that is handed a name (the window's list, verdict panel and counts, export, stats, the
queue, a sample) asks here, so a jury shows wherever a judge does.

``domain.jury`` is loaded only when a name is a jury's: the window reads judges' names
while it opens, before its first frame."""

from __future__ import annotations

from desktop.adapters.store.juries import JuryRow, find_jury, judged_by_any, juries
from desktop.adapters.store.project import ProjectStore
from desktop.domain.judge_policy import JudgePolicy, policy_for


def jury_policy(row: JuryRow) -> JudgePolicy:
    from desktop.domain.jury import jury_of

    return jury_of(row.combine, row.jurors, row.name)


def named_jury(store: ProjectStore, rubric: str | None, judge: object) -> JudgePolicy | None:
    """The jury the project keeps as ``judge`` on ``rubric``, if ``judge`` names one."""
    if not isinstance(judge, str) or not judge or rubric is None:
        return None
    row = find_jury(store, rubric, judge)
    return None if row is None else jury_policy(row)


def policy_named(
    store: ProjectStore, rubric: str | None, judge: str | JudgePolicy | None
) -> JudgePolicy:
    """The policy ``judge`` names on ``rubric``: a kept jury, one judge, the policy given,
    or no judge (None)."""
    jury = named_jury(store, rubric, judge)
    return jury if jury is not None else policy_for(judge)


def jury_names(store: ProjectStore, rubric: str) -> list[str]:
    """The rubric's juries, most recent first."""
    return [row.name for row in juries(store, rubric)]


def jury_pairs(store: ProjectStore, rubric: str, name: str) -> int:
    """Pairs a kept jury has a verdict on: some juror judged them."""
    row = find_jury(store, rubric, name)
    return 0 if row is None else judged_by_any(store, rubric, row.jurors)
