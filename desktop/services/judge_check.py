"""A real judge run on two demo pairs, so "Test connection" says whether judging works on
this machine and how long a pair takes, not only whether the server lists its models.

The pairs are judged by a ``JudgeJob`` into a throw-away project, exactly as Ctrl+J judges
them (the same prompt, structured output, grammar, and a crashed server's restart), with
the one-verdict ``href-overall`` rubric, so the check takes seconds with the offline model.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.adapters.store import open_project
from desktop.adapters.store.results import outcomes
from desktop.domain.profiles import ModelProfile
from desktop.resources import resources_dir

if TYPE_CHECKING:
    from desktop.services.endpoints import Endpoint

CHECK_RUBRIC = "href-overall"
CHECK_PAIRS = 2


@dataclass(frozen=True)
class JudgeCheck:
    statuses: tuple[str, ...]  # per pair judged: "ok", "parse-failure" or "error"
    seconds: tuple[float, ...]  # per answered pair, in order
    problem: str | None  # why judging failed, if it did

    @property
    def works(self) -> bool:
        """Every pair got an answer (a parse failure is an answer: the model spoke)."""
        return self.problem is None and len(self.seconds) == CHECK_PAIRS

    def summary(self) -> str:
        if not self.works:
            return f"judging does NOT work: {self.problem or 'no answer'}"
        first, *rest = self.seconds
        text = f"judged {CHECK_PAIRS} demo pairs ({CHECK_RUBRIC}): first {first:.1f} s"
        if rest:  # later pairs reuse the rubric's prompt the server has already read
            text += f", then {sum(rest) / len(rest):.1f} s per pair"
        failures = self.statuses.count("parse-failure")
        if failures:
            text += f"; {failures} answer(s) could not be read"
        return text


async def check_judging(profile: ModelProfile, endpoint: Endpoint) -> JudgeCheck:
    """Judge the first demo pairs with ``profile``; a failed request is reported, not raised."""
    from desktop.services.importing import import_file
    from desktop.services.judging import JobOptions
    from desktop.services.judging.setup import judge_job

    with (
        tempfile.TemporaryDirectory(prefix="tiebreak-check-") as folder,
        open_project(Path(folder) / "check.tiebreak", create=True) as store,
    ):
        import_file(store, resources_dir() / "demo_pairs.jsonl")
        options = JobOptions(pair_ids=list(range(1, CHECK_PAIRS + 1)))
        job = judge_job(store, CHECK_RUBRIC, profile, options, endpoint=endpoint)
        summary = await job.run_async()
        rows = outcomes(store)
    statuses = tuple(r[0] for r in rows)
    seconds = tuple(r[1] / 1000 for r in rows if r[0] != "error" and r[1] is not None)
    problem = summary.stopped or next((r[2] for r in rows if r[0] == "error"), None)
    return JudgeCheck(statuses, seconds, problem)
