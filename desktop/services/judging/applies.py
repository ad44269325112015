"""Whether a rubric can apply to the pairs a job selects: a field it requires (a reference,
a source) missing from a pair would make that pair's request an error stored and asked
again by every later run, forever; so the job is refused before anything is asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from desktop.adapters.store.pairs import count_lacking
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import RubricError

if TYPE_CHECKING:
    from desktop.domain.rubric import Rubric
    from desktop.services.judging.job import JobOptions


class MissingField(RubricError):
    """The rubric needs a field some pairs to judge lack."""

    def __init__(self, rubric: str, field: str, lacking: int, selected: int) -> None:
        self.field, self.lacking, self.selected = field, lacking, selected
        if selected == 1:
            which = "the pair to judge has none"
        elif lacking == selected:
            which = f"none of the {selected:,} pairs to judge has one"
        else:
            which = f"{lacking:,} of the {selected:,} pairs to judge have none"
        super().__init__(f"rubric {rubric} needs a {field}, and {which}: nothing was asked")

    @property
    def where_hint(self) -> str:
        """How ``--where`` selects the pairs that have the field, where some do."""
        having = self.selected - self.lacking
        return f" (--where \"trim({self.field}) <> ''\" judges the {having:,} that have one)"


def refuse_missing_fields(store: ProjectStore, rubric: Rubric, options: JobOptions) -> None:
    """Refuse before any request (or server start) where a pair selected lacks a field the
    rubric requires; ``--where`` narrows the selection to the pairs that have it."""
    for field in rubric.requires:
        selected, lacking = count_lacking(store, field, options.where, options.pair_ids)
        if lacking:
            raise MissingField(rubric.name, field, lacking, selected)
