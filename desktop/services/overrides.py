"""A reviewer's verdict on one dimension of one pair, appended to the history: the one
path the command line (`tiebreak override`) and the window's verdict keys share."""

from __future__ import annotations

import functools
import getpass
import os

from desktop.adapters.store import human_verdicts
from desktop.adapters.store.human_verdicts import KEEP as KEEP  # override's note: as it was
from desktop.adapters.store.human_verdicts import Keep
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import latest_rubric
from desktop.domain.errors import TiebreakError
from desktop.domain.pairs import Pair
from desktop.domain.verdicts import Mark, Verdict, answer_from_token
from desktop.services.project_rubrics import add_rubric, dimensions_for, find_rubric


def default_reviewer() -> str:
    """Who is reviewing: $TIEBREAK_REVIEWER, else the login name."""
    return os.environ.get("TIEBREAK_REVIEWER", "").strip() or _login_name()


@functools.cache
def _login_name() -> str:
    """Looked up once: the window asks on every list refresh, a job's many times a second."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "reviewer"


def parse_verdict(text: str) -> Verdict:
    verdict = Verdict.from_token(text)
    if verdict is None:
        raise TiebreakError(f"verdict {text!r}: expected A, B or tie")
    return verdict


def parse_answer(text: str) -> Verdict | Mark:
    """A reviewer's answer as typed: a verdict, or "bothbad", "skip", "broken"."""
    answer = answer_from_token(text)
    if answer is None:
        raise TiebreakError(f"verdict {text!r}: expected A, B, tie, bothbad, skip or broken")
    return answer


def split_answer(answer: Verdict | Mark | None) -> tuple[Verdict | None, Mark | None]:
    """An answer as it is stored: its verdict ("both bad" is a tie) and its mark."""
    if isinstance(answer, Mark):
        return answer.verdict, answer
    return answer, None


def override(
    store: ProjectStore,
    pair: Pair,
    *,
    rubric: str,
    dimension: str,
    verdict: Verdict | None,
    dimensions: tuple[str, ...] | None = None,
    reviewer: str | None = None,
    note: str | Keep | None = KEEP,
    mode: str | None = None,
    mark: Mark | None = None,
) -> None:
    """A reviewer's verdict (None withdraws it; with ``mark``, a skip or a broken mark; a
    tie with ``Mark.BOTH_BAD``, "both bad") on one dimension of a pair, appended to the
    history, from the command line and the window alike. ``note``: KEEP leaves the
    reviewer's note on the dimension as it is (a verdict given after the reason was written
    keeps it); None or "" clears it. The rubric's text is recorded first where the project
    lacks it, in the same transaction, so every verdict traces to the prompt it was given
    against. ``dimensions``: the rubric's, where the caller has them (the window does),
    else looked up."""
    dims = dimensions_for(store, rubric) if dimensions is None else dimensions
    if dimension not in dims:
        raise TiebreakError(
            f"rubric {rubric} has no dimension {dimension!r} (it has {', '.join(dims)})"
        )
    with store.transaction():
        if latest_rubric(store, rubric) is None:
            add_rubric(store, find_rubric(store, rubric))
        human_verdicts.add_verdict(
            store,
            pair_id=pair.id,
            rubric_name=rubric,
            dimension=dimension,
            verdict=verdict,
            reviewer=reviewer or default_reviewer(),
            note=note,
            mode=mode,
            mark=mark,
        )
