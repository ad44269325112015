"""Draw a sample of pairs to review (``tiebreak sample``): every pair the judge has
verdicts on for the rubric is in the frame, each drawn with a known probability, uniform
or favouring uncertain verdicts (low confidence, a flip between the orders, a jury split:
``domain.review_sample``), seeded and repeatable; the draw and every probability are
stored (``adapters/store/samples.py``) so the figures can weight by them."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from desktop.adapters.store.pair_reader import PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.samples import FramePair, record_sample
from desktop.domain.errors import TiebreakError
from desktop.domain.judge_policy import policy_for
from desktop.domain.limits import SQLITE_MAX
from desktop.domain.pair_view import PairView
from desktop.domain.review_sample import DEFAULT_FLOOR, draw_sample, verdict_uncertainty
from desktop.services.rubric_choice import Judge, dimensions_of, pick_judge

METHODS = ("uniform", "uncertain")


@dataclass(frozen=True)
class DrawnSample:
    sample_id: int
    rubric: str
    judge_model: str | None
    method: str
    size: int
    seed: int
    frame: int  # judged pairs it was drawn from
    pairs: list[tuple[int, float]]  # (pair id, probability), in the order to review


def pair_uncertainty(view: PairView, dims: tuple[str, ...]) -> float:
    """How unsure the judge is of a pair: its least sure dimension."""
    worst = 0.0
    for dim in dims:
        verdict = view.judge(dim)
        if verdict.verdict is None:
            continue
        worst = max(
            worst,
            verdict_uncertainty(verdict.confidence, flipped=verdict.consistent is False),
        )
    return worst


def draw_review_sample(
    store: ProjectStore,
    rubric: str,
    size: int,
    *,
    judge_model: Judge = None,
    method: str = "uniform",
    seed: int = 0,
    floor: float = DEFAULT_FLOOR,
) -> DrawnSample:
    if method not in METHODS:
        raise TiebreakError(f"a sample is drawn {' or '.join(METHODS)}, not {method!r}")
    if not 0 <= seed <= SQLITE_MAX:  # the seed is kept with the sample, in SQLite
        raise TiebreakError(f"--seed must be from 0 to {SQLITE_MAX:,}, got {seed}")
    policy = policy_for(pick_judge(store, rubric, judge_model))
    dims = dimensions_of(store, rubric)
    ids: list[int] = []
    uncertainty: list[float] = []
    query = PairQuery(rubric, policy.judges, ("id",), reviews=False)
    for record in read_pairs(store, query):
        view = PairView(record, policy)
        if not any(view.judge(d).verdict is not None for d in dims):
            continue
        ids.append(record.id)
        uncertainty.append(pair_uncertainty(view, dims))
    if not 0 < size <= len(ids):
        raise TiebreakError(
            f"rubric {rubric!r}: a sample of 1 to {len(ids):,} judged pairs, not {size:,}"
        )
    if not 0.0 < floor <= 1.0:
        raise TiebreakError(f"--floor must be above 0 and at most 1, got {floor}")
    uncertain = method == "uncertain"
    drawn = draw_sample(
        ids, size, seed=seed, uncertainties=uncertainty if uncertain else None, floor=floor
    )
    from desktop.domain.review_sample import inclusion_probabilities

    probability = inclusion_probabilities(
        uncertainty if uncertain else [0.0] * len(ids), size, floor=floor if uncertain else 1.0
    )
    position = {d.pair: i for i, d in enumerate(drawn)}
    frame = [FramePair(pid, p, position.get(pid)) for pid, p in zip(ids, probability, strict=True)]
    sample_id = record_sample(
        store,
        rubric=rubric,
        judge_model=policy.name or None,
        method=method,
        size=size,
        seed=seed,
        floor=floor if uncertain else None,
        frame=frame,
    )
    return DrawnSample(
        sample_id,
        rubric,
        policy.name or None,
        method,
        size,
        seed,
        len(ids),
        [(d.pair, d.probability) for d in drawn],
    )


def sample_work(
    path: Path, rubric: str, judge_model: str | None, size: int, method: str, seed: int
) -> Callable[[Callable[[object], None], threading.Event], DrawnSample]:
    """The window's background work that draws a sample, on its own connection."""

    def work(progress: Callable[[object], None], cancel: threading.Event) -> DrawnSample:
        from desktop.adapters.store import open_project

        with open_project(path) as store:
            return draw_review_sample(
                store, rubric, size, judge_model=judge_model, method=method, seed=seed
            )

    return work
