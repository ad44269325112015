"""A reviewer's verdict on one dimension of one pair, appended to the history."""

from __future__ import annotations

import functools
import getpass
import os

from desktop.adapters.store import human_verdicts
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError
from desktop.domain.pairs import Pair
from desktop.domain.verdicts import Verdict


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


def override(
    store: ProjectStore,
    pair: Pair,
    *,
    rubric: str,
    dimensions: tuple[str, ...],
    dimension: str,
    verdict: Verdict | None,
    reviewer: str | None = None,
    note: str | None = None,
    mode: str | None = None,
) -> None:
    if dimension not in dimensions:
        raise TiebreakError(
            f"rubric {rubric} has no dimension {dimension!r} (it has {', '.join(dimensions)})"
        )
    assert pair.id is not None
    human_verdicts.add_verdict(
        store,
        pair_id=pair.id,
        rubric_name=rubric,
        dimension=dimension,
        verdict=verdict,
        reviewer=reviewer or default_reviewer(),
        note=note,
        mode=mode,
    )
