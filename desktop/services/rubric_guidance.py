"""The guidance of the rubric a reviewer reviews (C): a project's own rubric or a
built-in, or, for verdicts imported from elsewhere, what the project recorded of them."""

from __future__ import annotations

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import latest_rubric
from desktop.domain.errors import TiebreakError
from desktop.domain.rubric_guidance import Guidance, guidance
from desktop.services.project_rubrics import find_rubric


def rubric_guidance(store: ProjectStore, name: str) -> Guidance:
    stored = latest_rubric(store, name)
    if stored is not None and stored.kind != "rubric":
        return Guidance(
            name,
            stored.title,
            f"Verdicts imported with the data ({stored.text}); no prompt of Tiebreak's.",
            tuple((dim, None) for dim in stored.dimensions),
        )
    try:
        return guidance(find_rubric(store, name))
    except TiebreakError as exc:
        dims = stored.dimensions if stored else ()
        return Guidance(name, name, str(exc), tuple((dim, None) for dim in dims))
