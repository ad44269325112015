"""HREF-style rows: a plain pair with several people's ``annotations``, each of which
becomes that annotator's verdict on ``overall`` (rubric ``href-overall``, mode
``imported``); an annotation without a name is ``annotator-N``, N its place in the list.
"""

from __future__ import annotations

from collections.abc import Mapping

from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.alpaca_eval import BadAnnotation, preference_verdict
from desktop.domain.import_shapes.base import Columns, FileVerdict, Shape, ShapedRecord
from desktop.domain.import_shapes.plain_pairs import kept, pair_fields
from desktop.domain.verdicts import Verdict

_MEMBERS = frozenset({"annotations"})  # read into verdicts, not kept as metadata


class Href(Shape):
    name = "href"
    title = "HREF rows (human annotations)"
    marks = ("annotations",)
    takes_over = True
    rubric = "href-overall"

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        values = pair_fields(where, fields, columns)
        reviews = []
        try:
            items = annotation_items(fields.get("annotations", []))
            for n, (who, value) in enumerate(items, start=1):
                verdict = annotation_verdict(value)
                if verdict is not None:
                    reviews.append(FileVerdict(who or f"annotator-{n}", verdict))
        except BadAnnotation as exc:
            raise ImportDataError(f"{where}: field 'annotations': {exc}") from None
        metadata = kept(fields, columns.members | _MEMBERS)
        return ShapedRecord(values, metadata, (), tuple(reviews))


def annotation_verdict(value: object) -> Verdict | None:
    """One human annotation of an HREF-style row: a preference number or A/B/tie text."""
    if isinstance(value, str):
        token = value.strip()
        verdict = Verdict.from_token(token)
        if verdict is not None:
            return verdict
        if not token:
            return None
    got = preference_verdict(value)
    return got[0] if got else None


def annotation_items(value: object) -> list[tuple[str | None, object]]:
    """An ``annotations`` list as (annotator or None, value) items; dict items may name
    their annotator and carry ``preference``, ``choice`` or ``label``."""
    if not isinstance(value, list):
        raise BadAnnotation("annotations must be a list")
    items: list[tuple[str | None, object]] = []
    for item in value:
        if isinstance(item, dict):
            who = item.get("annotator") or item.get("reviewer") or item.get("worker_id")
            for key in ("preference", "choice", "label", "verdict"):
                if key in item:
                    items.append((str(who) if who is not None else None, item[key]))
                    break
            else:
                raise BadAnnotation("an annotation object needs preference, choice or label")
        else:
            items.append((None, item))
    return items
