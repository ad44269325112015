"""The review queue: pairs in the order a human look is worth most.

0. disputes: reviewers split with no majority on a dimension, not yet adjudicated (for
   anyone: an adjudicator settles them, whoever the reviewers were);
1. parse failures: the judge's answer could not be read at all;
2. order-swap inconsistencies: the judge changed its mind when A and B swapped places
   (more inconsistent dimensions first);
   a jury split: its jurors gave different verdicts (more split dimensions first, then
   the least agreement: an even split first);
3. low confidence: a verdict whose probability (from the answer token's logprobs) is under
   the threshold, least confident first;
4. disagreement with an earlier pass: a human verdict that differs from the judge's, worth
   a second reviewer's or a second look;
5. every other judged pair not yet reviewed, least confident first;
6. pairs the judge has no verdict for (not judged, or a transport error).

Signals 1–3 count only for dimensions the reviewer has not decided yet; a pair that is
fully reviewed and agrees with the judge leaves the queue, and so does a pair marked
broken.

With a sample drawn (``tiebreak sample``), the queue can walk it instead (``sample=True``;
the window's Q does while the latest sample has pairs left to review): its pairs in the
order drawn, those already reviewed left out, so the reviewed pairs stay a sample the
figures can weight.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TypedDict, Unpack

from desktop.adapters.store.pair_reader import PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.samples import latest_sample, sample_frame
from desktop.domain.errors import TiebreakError
from desktop.domain.judge_policy import policy_for
from desktop.domain.pair_view import PairView
from desktop.services.rubric_choice import Judge, dimensions_of, pick_judge

REASONS = (
    "sample",
    "dispute",
    "parse-failure",
    "inconsistent",
    "split",
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


class QueueOptions(TypedDict, total=False):
    """What ``queue_items`` takes beyond the rubric and judge."""

    reviewer: str | None
    low_confidence: float
    include_reviewed: bool


def review_queue(
    store: ProjectStore,
    rubric: str,
    judge_model: Judge = None,
    *,
    sample: bool | None = None,
    **options: Unpack[QueueOptions],
) -> list[int]:
    """Pair ids, the most worth a look first (see the module docstring); ``options`` as
    ``queue_items`` takes them. ``sample`` None: the latest sample's pairs left to review
    while it has some, else the queue."""
    items = []
    if sample is not False and latest_sample(store, rubric) is not None:
        items = sample_items(store, rubric, judge_model, reviewer=options.get("reviewer"))
    if not items and not sample:
        items = queue_items(store, rubric, judge_model, **options)
    return [item.pair_id for item in items]


def queue_items(
    store: ProjectStore,
    rubric: str,
    judge_model: Judge = None,
    *,
    reviewer: str | None = None,
    low_confidence: float = LOW_CONFIDENCE,
    include_reviewed: bool = False,
    sample: bool = False,
) -> list[QueueItem]:
    """The queue with the reason for each place. With ``reviewer``, "reviewed" means that
    reviewer's own verdicts, so a second reviewer is queued the pairs the first one found
    the judge wrong on before the rest; without, anyone's verdict counts. With ``sample``,
    the latest sample's pairs not yet reviewed, in the order drawn."""
    if sample:
        return sample_items(store, rubric, judge_model, reviewer=reviewer)
    policy = policy_for(pick_judge(store, rubric, judge_model))
    dims = dimensions_of(store, rubric)
    keyed = []
    for record in read_pairs(store, PairQuery(rubric, policy.judges, ("id",))):
        item = _classify(PairView(record, policy), dims, reviewer, low_confidence)
        if item.reason == "reviewed" and not include_reviewed:
            continue
        conf = item.confidence
        keyed.append(((item.rank, _secondary(item), conf is None, conf or 0.0, item.pair_id), item))
    keyed.sort(key=lambda k: k[0])
    return [item for _, item in keyed]


def sample_items(
    store: ProjectStore, rubric: str, judge_model: Judge = None, *, reviewer: str | None = None
) -> list[QueueItem]:
    """The latest sample's drawn pairs with a dimension not yet reviewed (by ``reviewer``,
    if given), in the order drawn; refused in one line where no sample was drawn."""
    drawn = latest_sample(store, rubric)
    if drawn is None:
        raise TiebreakError(
            f"{store.path}: no sample drawn for rubric {rubric};"
            " 'tiebreak sample' (or the window's Draw a sample) draws one"
        )
    frame = sample_frame(store, drawn.id)
    order = sorted((p.position, pid) for pid, p in frame.items() if p.position is not None)
    policy = policy_for(_sample_judge(store, rubric, judge_model, drawn.judge_model))
    dims = dimensions_of(store, rubric)
    query = PairQuery(rubric, policy.judges, ("id",))
    ids = [pid for _, pid in order]
    views = {
        record.id: PairView(record, policy)
        for start in range(0, len(ids), 500)
        for record in read_pairs(store, query, ids=ids[start : start + 500])
    }
    items = []
    for _, pair_id in order:
        view = views.get(pair_id)
        if view is None:  # gone from the project since
            continue
        undecided = tuple(
            d
            for d in dims
            if not any(reviewer is None or r.reviewer == reviewer for r in view.reviews_of(d))
        )
        if undecided:
            confidences = [c for d in undecided if (c := view.judge(d).confidence) is not None]
            items.append(QueueItem(pair_id, "sample", undecided, min(confidences, default=None)))
    return items


def _sample_judge(store: ProjectStore, rubric: str, named: Judge, drawn_by: str | None) -> Judge:
    """The judge whose confidence a sample's pairs show: the one named, else the one the
    sample was drawn by while it still has answers, else the latest."""
    if named is None and drawn_by is not None:
        with contextlib.suppress(TiebreakError):
            return pick_judge(store, rubric, drawn_by)
    return pick_judge(store, rubric, named)


def _secondary(item: QueueItem) -> int:
    """More affected dimensions first, for the reasons that are counted per dimension."""
    counted = ("dispute", "inconsistent", "split", "disagree")
    return -len(item.dimensions) if item.reason in counted else 0


def _classify(view: PairView, dims: tuple[str, ...], reviewer: str | None, low: float) -> QueueItem:
    disputes = view.disputes()
    if disputes:
        return QueueItem(view.id, "dispute", tuple(d for d in dims if d in disputes), None)
    if view.broken:
        return QueueItem(view.id, "reviewed", (), None)
    undecided, inconsistent, split, unsure, disagree = [], [], [], [], []
    confidences = []
    ruling = view.ruling
    for dim in dims:
        judge, conf, consistent = view.judge(dim)
        reviews = view.reviews_of(dim)
        mine = [r for r in reviews if reviewer is None or r.reviewer == reviewer]
        human = view.human(dim)
        if human is not None and judge is not None and human != judge:
            disagree.append(dim)
        if mine:
            continue
        undecided.append(dim)
        if consistent is False:
            inconsistent.append(dim)
        if ruling.split(dim):
            split.append(dim)
        if conf is not None:
            confidences.append(conf)
            if conf < low:
                unsure.append(dim)
    lowest = min(confidences) if confidences else None
    status = view.status
    failed = any(a.status == "parse-failure" for a in view.record.answers)
    pair_id = view.id
    if undecided and failed:
        return QueueItem(pair_id, "parse-failure", tuple(undecided), lowest)
    for reason, which in (
        ("inconsistent", inconsistent),
        ("split", split),
        ("low-confidence", unsure),
        ("disagree", disagree),
    ):
        if which:
            return QueueItem(pair_id, reason, tuple(which), lowest)
    if not undecided:
        return QueueItem(pair_id, "reviewed", (), lowest)
    if status == "ok":
        return QueueItem(pair_id, "unreviewed", tuple(undecided), lowest)
    return QueueItem(pair_id, "unjudged", tuple(undecided), lowest)
