"""Export labelled preference data for training, from the final verdicts on one dimension:
TRL's conversational preference records (``prompt``, ``chosen``, ``rejected``) or OpenAI's
preference fine-tuning JSONL (``input.messages``, ``preferred_output``,
``non_preferred_output``). A tie says nothing about which to prefer and a pair without a
final verdict has none to give: both are left out and counted, as is, for OpenAI's format,
a pair whose sides are not one shared history (two conversations whose earlier answers
differ have no single input).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.adapters.formats.atomic import atomic_text_file, check_target
from desktop.adapters.store.pair_reader import CONVERSATION_COLUMNS, PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.domain import conversation_export as talk
from desktop.domain.errors import TiebreakError
from desktop.domain.judge_policy import policy_for
from desktop.domain.pair_view import PairView
from desktop.domain.verdicts import Verdict
from desktop.services.rubric_choice import Judge, choose_rubric, dimensions_of, pick_judge

PREFERENCE_FORMATS = ("trl", "openai-preference")
_COLUMNS = ("id", "instruction", "response_a", "response_b", *CONVERSATION_COLUMNS)


@dataclass(frozen=True)
class PreferenceReport:
    rows: int
    rubric: str
    dimension: str
    judge_model: str | None
    fmt: str
    ties: int = 0
    undecided: int = 0  # no final verdict
    not_shared: int = 0  # openai-preference: the sides are not one shared history

    def summary(self) -> str:
        left = [f"{self.ties:,} ties", f"{self.undecided:,} without a final verdict"]
        if self.fmt == "openai-preference":
            left.append(f"{self.not_shared:,} not one shared history")
        return (
            f"{self.rows:,} {self.fmt} records (rubric {self.rubric}, dimension"
            f" {self.dimension}, judge {self.judge_model or 'none'}); left out: {', '.join(left)}"
        )


def export_preferences(
    store: ProjectStore,
    out: str | Path,
    *,
    fmt: str,
    rubric: str | None = None,
    dimension: str | None = None,
    judge_model: Judge = None,
    progress: Callable[[int], None] | None = None,
) -> PreferenceReport:
    """Write one record per pair whose final verdict on ``dimension`` is A or B, the
    preferred side as chosen, to ``out`` (never over the project; see ``check_target``)."""
    if fmt not in PREFERENCE_FORMATS:
        raise TiebreakError(f"unknown preference format {fmt!r}")
    out = Path(out)
    check_target(out, keep=store.path)
    name = choose_rubric(store, rubric)
    if name is None:
        raise TiebreakError(f"{store.path}: no verdicts yet, so no preferences to export")
    dim = _dimension(store, name, dimension)
    judge = pick_judge(store, name, judge_model)
    policy = policy_for(judge)
    query = PairQuery(name, policy.judges, _COLUMNS)
    counts = {"rows": 0, "ties": 0, "undecided": 0, "not_shared": 0}
    records = read_pairs(store, query)
    # closed while the project is open, also when a write fails (see exporting)
    with closing(records), atomic_text_file(out, keep=store.path) as fh:
        for record in records:
            final = PairView(record, policy).dimension_values((dim,))[0][4]
            if final is None or final is Verdict.TIE:
                counts["undecided" if final is None else "ties"] += 1
                continue
            line = _record(record.fields, final, fmt)
            if line is None:
                counts["not_shared"] += 1
                continue
            fh.write(json.dumps(line, ensure_ascii=False))
            fh.write("\n")
            counts["rows"] += 1
            if progress and counts["rows"] % 5000 == 0:
                progress(counts["rows"])
        store.ensure_read_whole()  # records of two files are no export: nothing is written
    if progress:
        progress(counts["rows"])
    return PreferenceReport(
        rubric=name, dimension=dim, judge_model=policy.name or None, fmt=fmt, **counts
    )


def _record(fields: Any, final: Verdict, fmt: str) -> dict[str, Any] | None:
    f = fields  # the projection of _COLUMNS (pair_reader's named tuple)
    a, b = talk.sides(f.instruction, f.response_a, f.response_b, f.messages_a, f.messages_b)
    prompt, on_a, on_b = talk.preference_parts(a, b, f.turn or 1)
    chosen, rejected = (on_a, on_b) if final is Verdict.A else (on_b, on_a)
    if fmt == "trl":
        return talk.trl_record(prompt, chosen, rejected)
    return talk.openai_record(prompt, chosen, rejected)


def _dimension(store: ProjectStore, rubric: str, dimension: str | None) -> str:
    """The dimension named, else ``overall``, else the rubric's only one."""
    dims = dimensions_of(store, rubric)
    if dimension is not None:
        if dimension not in dims:
            raise TiebreakError(
                f"rubric {rubric} has no dimension {dimension!r} (its dimensions:"
                f" {', '.join(dims) or 'none'})"
            )
        return dimension
    if "overall" in dims:
        return "overall"
    if len(dims) == 1:
        return dims[0]
    raise TiebreakError(
        f"rubric {rubric} has several dimensions ({', '.join(dims)}); choose one with --dimension"
    )
