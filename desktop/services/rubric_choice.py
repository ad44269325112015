"""Which rubric, dimensions and judge a command or figure reads, where the user may leave
them out: export, stats, the leaderboard, comparisons, the queue and `override` all choose
here, so each says the same thing when the project has no such rubric or judge."""

from __future__ import annotations

from desktop.adapters.store.human_verdicts import dimensions_with_verdicts
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import judge_models
from desktop.adapters.store.rubrics import latest_rubric, rubric_names
from desktop.domain.errors import TiebreakError
from desktop.domain.judge_policy import JudgePolicy, policy_for
from desktop.services.juries import jury_names, named_jury

#: A judge's name, a policy (a jury), or None for the latest judge.
Judge = str | JudgePolicy | None


def require_rubric(store: ProjectStore, rubric: str, names: list[str] | None = None) -> str:
    """The rubric named, if the project knows it; else one line naming the ones it has."""
    names = rubric_names(store) if names is None else names
    if rubric not in names and latest_rubric(store, rubric) is None:
        known = ", ".join(names) or "none yet"
        raise TiebreakError(
            f"{store.path}: no verdicts for rubric {rubric!r} (rubrics with verdicts: {known})"
        )
    return rubric


def chosen_rubrics(store: ProjectStore, rubric: str | None) -> list[str]:
    """The rubric named (the project must know it), else every rubric with verdicts, oldest
    first: `stats --by model` reads each."""
    return [require_rubric(store, rubric)] if rubric else rubric_names(store)


def choose_rubric(store: ProjectStore, rubric: str | None) -> str | None:
    """The rubric named, else the project's only one with verdicts, else none."""
    names = rubric_names(store)
    if rubric is not None:
        return require_rubric(store, rubric, names)
    if len(names) > 1:
        raise TiebreakError(
            f"{store.path}: verdicts for several rubrics ({', '.join(names)});"
            " choose one with --rubric"
        )
    return names[0] if names else None


def dimensions_of(store: ProjectStore, rubric: str) -> tuple[str, ...]:
    """A rubric's dimensions as the project recorded them, else those reviewers gave
    verdicts on (a rubric whose text the project never kept)."""
    stored = latest_rubric(store, rubric)
    if stored is not None:
        return stored.dimensions
    return dimensions_with_verdicts(store, rubric)


def pick_judge(store: ProjectStore, rubric: str, judge: Judge) -> Judge:
    """The judge named, or the jury given or kept under that name (its policy; each juror
    must have answers for the rubric), else the latest used."""
    models = judge_models(store, rubric)
    if judge is None:
        return models[0] if models else None
    judge = named_jury(store, rubric, judge) or judge
    missing = next((j for j in policy_for(judge).judges if j not in models), None)
    if missing is not None:
        known = ", ".join([*models, *jury_names(store, rubric)]) or "none"
        raise TiebreakError(
            f"{store.path}: judge {missing!r} has no answers for rubric {rubric}"
            f" (judges with answers: {known})"
        )
    return judge


def judge_name(store: ProjectStore, rubric: str, judge: str | None) -> str | None:
    """The judge or kept jury named (checked as ``pick_judge`` checks it), else the latest
    judge: by name, for a reader that reads it with ``juries.policy_named``."""
    picked = pick_judge(store, rubric, judge)
    return judge if judge is not None else picked if isinstance(picked, str) else None
