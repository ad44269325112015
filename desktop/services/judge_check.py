"""A real judge run on demo pairs, so "Test connection" says whether judging works on this
machine, how long a pair takes and how good the judge is, not only whether the server lists
its models.

The pairs are judged by a ``JudgeJob`` into a throw-away project, exactly as Ctrl+J judges
them (the same prompt, structured output, grammar, and a crashed server's restart), with
the one-verdict ``href-overall`` rubric. The full check asks about the demo pairs whose
better response is known (``resources/demo_known_better.toml``) in both orders, for the
quality figures; the quick one asks about two pairs in one order, which takes seconds.
"""

from __future__ import annotations

import tempfile
import threading
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.adapters.store import open_project
from desktop.adapters.store.pair_reader import LIST_COLUMNS, PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import outcomes
from desktop.domain.judge_quality import QualityFigures, quality_figures
from desktop.domain.profiles import ModelProfile
from desktop.domain.results import Status
from desktop.domain.verdicts import Verdict
from desktop.resources import resources_dir

if TYPE_CHECKING:
    from desktop.services.endpoints import Endpoint

CHECK_RUBRIC = "href-overall"
CHECK_PAIRS = 2  # the quick check's
KNOWN_BETTER = "demo_known_better.toml"

# (answers done, answers in all), as the check goes
Progress = Callable[[int, int], None]


def known_better() -> dict[str, Verdict]:
    """Demo pair id -> the response known to be better."""
    with open(resources_dir() / KNOWN_BETTER, "rb") as handle:
        data = tomllib.load(handle)
    return {pair: Verdict(entry["better"]) for pair, entry in data.items()}


@dataclass(frozen=True)
class JudgeCheck:
    statuses: tuple[Status, ...]  # per answer
    seconds: tuple[float, ...]  # per answer received, in order
    problem: str | None  # why judging failed, if it did
    pairs: int = CHECK_PAIRS
    both_orders: bool = False
    quality: QualityFigures | None = None  # the full check's figures

    @property
    def works(self) -> bool:
        """Every pair got an answer (a parse failure is an answer: the model spoke)."""
        asked = self.pairs * (2 if self.both_orders else 1)
        return self.problem is None and len(self.seconds) == asked

    def summary(self) -> str:
        if not self.works:
            return f"judging does NOT work: {self.problem or 'no answer'}"
        first, *rest = self.seconds
        orders = ", both orders" if self.both_orders else ""
        text = f"judged {self.pairs} demo pairs ({CHECK_RUBRIC}{orders}): first {first:.1f} s"
        if rest:  # later pairs reuse the rubric's prompt the server has already read
            unit = "answer" if self.both_orders else "pair"
            text += f", then {sum(rest) / len(rest):.1f} s per {unit}"
        failures = self.statuses.count(Status.PARSE_FAILURE)
        if failures:
            text += f"; {failures} answer(s) could not be read"
        if self.quality is not None:
            text += f"; {self.quality.summary()}"
        return text


async def check_judging(
    profile: ModelProfile,
    endpoint: Endpoint,
    *,
    quality: bool = False,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> JudgeCheck:
    """Judge demo pairs with ``profile``: the first two, or with ``quality`` those with a
    known better response in both orders. A failed request is reported, not raised."""
    from desktop.services.importing import import_file
    from desktop.services.judging import JobOptions
    from desktop.services.judging.setup import judge_job

    with (
        tempfile.TemporaryDirectory(prefix="tiebreak-check-") as folder,
        open_project(Path(folder) / "check.tiebreak", create=True) as store,
    ):
        import_file(store, resources_dir() / "demo_pairs.jsonl")
        known = known_better() if quality else {}
        ids = _pair_ids(store, known) if quality else list(range(1, CHECK_PAIRS + 1))
        options = JobOptions(pair_ids=ids, swap=quality, one_order=not quality)
        job = judge_job(store, CHECK_RUBRIC, profile, options, endpoint=endpoint)
        summary = await job.run_async(
            progress=(lambda state: progress(state.done, state.total)) if progress else None,
            cancel=cancel,
        )
        rows = outcomes(store)
        figures = quality_figures(known, _answers(store, profile.model)) if quality else None
    statuses = tuple(r.status for r in rows)
    seconds = tuple(
        r.latency_ms / 1000
        for r in rows
        if r.status is not Status.ERROR and r.latency_ms is not None
    )
    problem = summary.stopped or next((r.error for r in rows if r.status is Status.ERROR), None)
    if summary.cancelled:
        problem, figures = "cancelled", None
    return JudgeCheck(statuses, seconds, problem, len(ids), quality, figures)


def _pair_ids(store: ProjectStore, known: dict[str, Verdict]) -> list[int]:
    records = read_pairs(store, PairQuery(columns=LIST_COLUMNS))
    return [r.id for r in records if r.external_id in known]


def _answers(
    store: ProjectStore, judge: str
) -> Iterator[tuple[str, Verdict | None, Verdict | None]]:
    """Each pair's verdict on ``overall`` in each order, apart: the quality figures count
    what the judge said in each order, not the two combined."""
    query = PairQuery(CHECK_RUBRIC, (judge,), LIST_COLUMNS, reviews=False)
    for record in read_pairs(store, query):
        ab, ba = record.answer(judge, "AB"), record.answer(judge, "BA")
        yield (
            record.external_id or "",
            ab.verdicts.get("overall") if ab else None,
            ba.verdicts.get("overall") if ba else None,
        )
