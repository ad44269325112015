"""Juries a project keeps: named, made of judges already in it (``tiebreak jury add``), or of
the judges one job asks (``judge --jury``, and ``judge --samples``, whose samples are
combined by majority). Once kept, a jury's name is one more judge wherever a judge is
chosen (``services/juries.py``)."""

from __future__ import annotations

from collections.abc import Sequence

from desktop.adapters.store.juries import JuryRow, find_jury, juries, remove_jury, save_jury
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import judge_models
from desktop.domain.errors import TiebreakError
from desktop.services.rubric_choice import require_rubric

COMBINE_NAMES = ("majority", "mean")  # domain.jury.COMBINES, without loading it


def check_jury(
    store: ProjectStore, rubric: str, name: str, jurors: Sequence[str], combine: str
) -> None:
    """Refuse, in one line, a jury that could not be told from a judge or has too few
    distinct jurors; the jurors' answers are not asked for (``add_jury`` asks)."""
    if not name.strip():
        raise TiebreakError("a jury needs a name")
    if combine not in COMBINE_NAMES:
        raise TiebreakError(f"a jury combines by {' or '.join(COMBINE_NAMES)}, not {combine!r}")
    if len(set(jurors)) != len(jurors):
        twice = next(j for j in jurors if list(jurors).count(j) > 1)
        raise TiebreakError(f"jury {name!r}: judge {twice!r} is named twice")
    if len(jurors) < 2:
        raise TiebreakError(f"jury {name!r}: a jury needs at least two judges")
    if name in judge_models(store, rubric) or name in jurors:
        raise TiebreakError(
            f"jury {name!r}: a judge of rubric {rubric} has that name; choose another"
        )
    sitting = next((j for j in jurors if find_jury(store, rubric, j) is not None), None)
    if sitting is not None:
        raise TiebreakError(f"jury {name!r}: {sitting!r} is a jury; name its judges instead")


def add_jury(
    store: ProjectStore,
    rubric: str,
    name: str,
    jurors: Sequence[str],
    combine: str = "majority",
    *,
    replace: bool = False,
) -> JuryRow:
    """Keep a jury of judges with answers for the rubric."""
    require_rubric(store, rubric)
    check_jury(store, rubric, name, jurors, combine)
    models = judge_models(store, rubric)
    missing = next((j for j in jurors if j not in models), None)
    if missing is not None:
        raise TiebreakError(
            f"{store.path}: judge {missing!r} has no answers for rubric {rubric}"
            f" (judges with answers: {', '.join(models) or 'none'})"
        )
    if not replace and find_jury(store, rubric, name) is not None:
        raise TiebreakError(f"jury {name!r} of rubric {rubric} already exists; remove it first")
    return keep_jury(store, JuryRow(rubric, name, tuple(jurors), combine))


def keep_jury(store: ProjectStore, jury: JuryRow) -> JuryRow:
    """Keep (or replace) a jury as it is: for a job about to ask its jurors."""
    save_jury(store, jury)
    kept = find_jury(store, jury.rubric, jury.name)
    assert kept is not None
    return kept


def drop_jury(store: ProjectStore, rubric: str, name: str) -> None:
    if not remove_jury(store, rubric, name):
        known = ", ".join(j.name for j in juries(store, rubric)) or "none"
        raise TiebreakError(f"rubric {rubric} has no jury {name!r} (juries: {known})")


def jury_table(store: ProjectStore, rubric: str | None = None) -> list[JuryRow]:
    """Every jury kept (of one rubric, if named), by rubric, most recent first."""
    if rubric is not None:
        require_rubric(store, rubric)
    return juries(store, rubric)
