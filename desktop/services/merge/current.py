"""What a project holds already for a pair: each reviewer's current row per dimension
(a withdrawal included), read as every reader reads a pair (``pair_reader``)."""

from __future__ import annotations

from desktop.adapters.store.pair_reader import PairQuery, read_pair
from desktop.adapters.store.project import ProjectStore
from desktop.domain.pair_record import ReviewerVerdict


def current_rows(
    store: ProjectStore, pair_id: int, rubric: str
) -> dict[tuple[str, str], ReviewerVerdict]:
    """By (dimension, reviewer)."""
    record = read_pair(store, PairQuery(rubric, columns=("id",)), pair_id)
    reviews = record.reviews if record is not None else ()
    return {(r.dimension, r.reviewer): r for r in reviews}
