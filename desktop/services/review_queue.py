"""The review queue: pairs in the order a human look is worth most.

1. parse failures: the judge's answer could not be read at all;
2. order-swap inconsistencies: the judge changed its mind when A and B swapped places
   (more inconsistent dimensions first);
3. low confidence: a verdict whose probability (from the answer token's logprobs) is under
   the threshold, least confident first;
4. disagreement with an earlier pass: a human verdict that differs from the judge's, worth
   a second reviewer's or a second look;
5. every other judged pair not yet reviewed, least confident first;
6. pairs the judge has no verdict for (not judged, or a transport error).

Signals 1–3 count only for dimensions the reviewer has not decided yet; a pair that is
fully reviewed and agrees with the judge leaves the queue.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from desktop.adapters.store.pair_records import PairRecord, iter_pair_records
from desktop.adapters.store.project import ProjectStore
from desktop.domain.dimension_view import human_consensus
from desktop.services.exporting import dimensions_of
from desktop.services.stats import pick_judge

REASONS = (
    "parse-failure",
    "inconsistent",
    "low-confidence",
    "disagree",
    "unreviewed",
    "unjudged",
    "reviewed",
)
LOW_CONFIDENCE = 0.7


@dataclass(frozen=True)
class QueueItem:
    pair_id: int
    reason: str  # one of REASONS
    dimensions: tuple[str, ...]  # the dimensions the reason is about
    confidence: float | None  # the lowest judge confidence on an undecided dimension

    @property
    def rank(self) -> int:
        return REASONS.index(self.reason)


def review_queue(
    store: ProjectStore, rubric: str, judge_model: str | None = None, **options: Any
) -> list[int]:
    """Pair ids, the most worth a look first (see the module docstring); ``options`` as
    ``queue_items`` takes them."""
    return [item.pair_id for item in queue_items(store, rubric, judge_model, **options)]


def queue_items(
    store: ProjectStore,
    rubric: str,
    judge_model: str | None = None,
    *,
    reviewer: str | None = None,
    low_confidence: float = LOW_CONFIDENCE,
    include_reviewed: bool = False,
) -> list[QueueItem]:
    """The queue with the reason for each place. With ``reviewer``, "reviewed" means that
    reviewer's own verdicts, so a second reviewer is queued the pairs the first one found
    the judge wrong on before the rest; without, anyone's verdict counts."""
    model = pick_judge(store, rubric, judge_model)
    dims = dimensions_of(store, rubric)
    keyed = []
    for record in iter_pair_records(store, rubric, model):
        item = _classify(record, dims, reviewer, low_confidence)
        if item.reason == "reviewed" and not include_reviewed:
            continue
        conf = item.confidence
        keyed.append(((item.rank, _secondary(item), conf is None, conf or 0.0, item.pair_id), item))
    keyed.sort(key=lambda k: k[0])
    return [item for _, item in keyed]


def _secondary(item: QueueItem) -> int:
    """More affected dimensions first, for the reasons that are counted per dimension."""
    return -len(item.dimensions) if item.reason in ("inconsistent", "disagree") else 0


def _classify(
    record: PairRecord, dims: tuple[str, ...], reviewer: str | None, low: float
) -> QueueItem:
    undecided, inconsistent, unsure, disagree = [], [], [], []
    confidences = []
    for dim in dims:
        judge, conf, consistent = record.judge(dim)
        reviews = record.reviews_of(dim)
        mine = [r for r in reviews if reviewer is None or r.reviewer == reviewer]
        human = human_consensus([r.verdict for r in reviews])
        if human is not None and judge is not None and human != judge:
            disagree.append(dim)
        if mine:
            continue
        undecided.append(dim)
        if consistent is False:
            inconsistent.append(dim)
        if conf is not None:
            confidences.append(conf)
            if conf < low:
                unsure.append(dim)
    lowest = min(confidences) if confidences else None
    status = record.status
    failed = any(a is not None and a.status == "parse-failure" for a in (record.ab, record.ba))
    if undecided and failed:
        return QueueItem(record.id, "parse-failure", tuple(undecided), lowest)
    for reason, which in (
        ("inconsistent", inconsistent),
        ("low-confidence", unsure),
        ("disagree", disagree),
    ):
        if which:
            return QueueItem(record.id, reason, tuple(which), lowest)
    if not undecided:
        return QueueItem(record.id, "reviewed", (), lowest)
    if status == "ok":
        return QueueItem(record.id, "unreviewed", tuple(undecided), lowest)
    return QueueItem(record.id, "unjudged", tuple(undecided), lowest)
