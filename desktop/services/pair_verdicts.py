"""One pair's verdicts per dimension as the review window shows them: the judge's over
both orders, the reviewers' consensus, the final one, and the current reviewer's own
verdicts and notes apart."""

from __future__ import annotations

import json
from typing import NamedTuple

from desktop.adapters.store import human_verdicts, review_rows
from desktop.adapters.store.project import ProjectStore
from desktop.domain.dimension_view import DimensionView, dimension_view, human_consensus, judge_view
from desktop.domain.verdicts import BY_VALUE, Verdict


class JudgeDetail(NamedTuple):
    status: str
    raw_completion: str | None
    error: str | None
    order: str
    latency_ms: float | None


class PairVerdicts(NamedTuple):
    dimensions: dict[str, DimensionView]  # human: every reviewer's consensus
    judge: list[JudgeDetail]  # AB first, then BA where judged in both orders
    notes: dict[str, str]  # the current reviewer's notes, by dimension
    mine: dict[str, Verdict]  # the current reviewer's own current verdicts
    others: dict[str, list[str]]  # other reviewers with a current verdict, by dimension


def pair_verdicts(
    store: ProjectStore,
    pair_id: int,
    rubric: str,
    judge_model: str | None,
    dimensions: tuple[str, ...],
    reviewer: str = "",
) -> PairVerdicts:
    """One pair's verdicts per dimension; ``reviewer``'s own verdicts and notes apart."""
    latest = {}
    for order in ("AB", "BA"):
        row = review_rows.latest_answer(store, pair_id, rubric, judge_model, order)
        if row:
            latest[order] = row
    current = human_verdicts.current_verdicts(store, pair_id, rubric)
    by_dim: dict[str, list[Verdict | None]] = {}
    for h in current:
        by_dim.setdefault(h.dimension, []).append(h.verdict)
    mine = {h.dimension: h.verdict for h in current if h.reviewer == reviewer and h.verdict}
    notes = {h.dimension: h.note for h in current if h.reviewer == reviewer and h.note}
    others: dict[str, list[str]] = {}
    for h in current:
        if h.reviewer != reviewer and h.verdict is not None:
            others.setdefault(h.dimension, []).append(h.reviewer)
    views: dict[str, DimensionView] = {}
    ab, ba = latest.get("AB"), latest.get("BA")
    fv = json.loads(ab[1]) if ab and ab[1] else {}
    fc = json.loads(ab[2]) if ab and ab[2] else {}
    bv = json.loads(ba[1]) if ba and ba[1] else {}
    bc = json.loads(ba[2]) if ba and ba[2] else {}
    for dim in dimensions:
        judge, conf, consistent = judge_view(
            BY_VALUE.get(fv.get(dim)),
            fc.get(dim),
            BY_VALUE.get(bv.get(dim)),
            bc.get(dim),
            ba is not None,
        )
        consensus = human_consensus(by_dim.get(dim, []))
        views[dim] = dimension_view(judge, conf, consistent, consensus)
    details = [JudgeDetail(r[0], r[3], r[4], order, r[5]) for order, r in latest.items()]
    return PairVerdicts(views, details, notes, mine, others)
