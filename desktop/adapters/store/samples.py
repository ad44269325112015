"""Samples of pairs to review (``samples``, ``sample_pairs``: migration m006): how each was
drawn, and every pair of its frame with its probability of being drawn and, where drawn,
its place in the order to review."""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import now


class Sample(NamedTuple):
    id: int
    rubric: str
    judge_model: str | None
    method: str  # "uniform" or "uncertain"
    size: int
    seed: int
    floor: float | None
    created_at: str


class FramePair(NamedTuple):
    pair_id: int
    probability: float
    position: int | None  # its place in the order to review; None: not drawn


def record_sample(
    store: ProjectStore,
    *,
    rubric: str,
    judge_model: str | None,
    method: str,
    size: int,
    seed: int,
    floor: float | None,
    frame: Iterable[FramePair],
) -> int:
    """Write a sample and its frame in one transaction; its id."""
    with store.transaction() as conn:
        cursor = conn.execute(
            "INSERT INTO samples (rubric_name, judge_model, method, size, seed, floor, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (rubric, judge_model, method, size, seed, floor, now()),
        )
        sample_id = int(cursor.lastrowid or 0)
        conn.executemany(
            "INSERT INTO sample_pairs (sample_id, pair_id, probability, position)"
            " VALUES (?, ?, ?, ?)",
            ((sample_id, p.pair_id, p.probability, p.position) for p in frame),
        )
    return sample_id


def latest_sample(store: ProjectStore, rubric: str) -> Sample | None:
    """The rubric's latest sample, or None (also in a file older than m006)."""
    # (Plain SQL: sqlite-utils takes 0.6 s to load, and ``stats`` needs nothing else of it.)
    if not store.conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'samples'"
    ).fetchone():
        return None
    row = store.conn.execute(
        "SELECT id, rubric_name, judge_model, method, size, seed, floor, created_at"
        " FROM samples WHERE rubric_name = ? ORDER BY id DESC LIMIT 1",
        (rubric,),
    ).fetchone()
    return None if row is None else Sample(*row)


def sample_frame(store: ProjectStore, sample_id: int) -> dict[int, FramePair]:
    """Every pair of a sample's frame, by pair id."""
    rows = store.conn.execute(
        "SELECT pair_id, probability, position FROM sample_pairs WHERE sample_id = ?",
        (sample_id,),
    )
    return {r[0]: FramePair(*r) for r in rows}
