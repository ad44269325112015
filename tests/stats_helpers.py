"""Builders for agreement, merge and queue tests: judge answers and reviewer verdicts written
through the real store and services, so every figure is read back from a real project."""

from __future__ import annotations

from desktop.adapters.store.pairs import find_pair
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import record_rubric
from desktop.domain.results import JudgeResult, Order, Status
from desktop.domain.verdicts import Verdict
from desktop.services.overrides import override
from tests.helpers import save_result


def add_rubric(store: ProjectStore, name: str, dims: tuple[str, ...]) -> None:
    with store.transaction():
        record_rubric(
            store,
            hash=f"hash-{name}",
            name=name,
            title=name,
            dimensions=dims,
            kind="rubric",
            text=f"rubric {name}",
        )


def judge(
    store: ProjectStore,
    pid: int,
    *,
    rubric: str = "r",
    model: str = "m",
    order: str = "AB",
    status: Status = Status.OK,
    conf: dict[str, float] | None = None,
    **verdicts: str,
) -> None:
    """Store one answer; verdicts are given in the pair's own A/B terms."""
    save_result(
        store,
        JudgeResult(
            pair_id=pid,
            rubric_hash=f"hash-{rubric}",
            rubric_name=rubric,
            judge_model=model,
            settings_hash="s",
            order=Order(order),
            status=status,
            verdicts={d: Verdict(v) for d, v in verdicts.items()},
            confidence=conf or {},
            raw_completion="raw",
        ),
    )


def review(
    store: ProjectStore,
    ref: str,
    dimension: str,
    verdict: str | None,
    *,
    rubric: str = "r",
    dims: tuple[str, ...] = ("precision", "overall"),
    reviewer: str = "ann",
    mode: str | None = "gui",
    note: str | None = None,
) -> None:
    override(
        store,
        find_pair(store, ref),
        rubric=rubric,
        dimensions=dims,
        dimension=dimension,
        verdict=Verdict(verdict) if verdict else None,
        reviewer=reviewer,
        note=note,
        mode=mode,
    )
