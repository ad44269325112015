"""The pair a person names, for `tiebreak override` and scripts: its external id, or ``#N``
(or ``N``) for its row number."""

from __future__ import annotations

from desktop.adapters.store import pairs
from desktop.adapters.store.project import ProjectStore
from desktop.domain.pairs import Pair


def find_pair(store: ProjectStore, ref: str) -> Pair:
    """The pair ``ref`` names; a TiebreakError naming the project where none is."""
    return pairs.find_pair(store, ref)
