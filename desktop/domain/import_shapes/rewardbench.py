"""RewardBench's pairs (allenai/reward-bench's ``filtered`` split and files of its kind):
TRL's ``prompt``, ``chosen`` and ``rejected`` with ``chosen_model``, ``rejected_model``
and a ``subset``. Read as TRL's are, with the generators following their sides to A and
B, the subset as category (RewardBench scores per subset) and the preference stored as
reviewer ``rewardbench``'s verdict: the gold label that came with the data, as a
chosen/rejected file's is, not a judge's.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from desktop.domain.import_shapes.base import Columns, FileVerdict, ShapedRecord
from desktop.domain.import_shapes.trl import Trl
from desktop.domain.verdicts import Verdict

_MODELS = ("chosen_model", "rejected_model")


class RewardBench(Trl):
    name = "rewardbench"
    title = "RewardBench pairs (prompt, chosen, rejected, chosen_model, rejected_model, subset)"
    marks = ("subset",)

    def claims(self, fields: Mapping[str, object]) -> bool:
        return "chosen" in fields and "rejected" in fields

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        found = super().columns(names, overrides, where)
        return Columns(found.by_field, found.members | frozenset(_MODELS))

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        record = super().read(where, fields, columns)
        preferred = record.reviews[0].verdict
        chosen, rejected = (_model(fields.get(n)) for n in _MODELS)
        values = dict(record.fields)
        if chosen is not None or rejected is not None:
            a, b = (chosen, rejected) if preferred is Verdict.A else (rejected, chosen)
            values["model_a"], values["model_b"] = a, b
        return record._replace(fields=values, reviews=(FileVerdict(self.name, preferred),))


def _model(value: object) -> str | None:
    return str(value) if value not in (None, "") else None
