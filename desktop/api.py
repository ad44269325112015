"""Tiebreak from Python: open a project, import pairs, judge them, override, read the
figures and export, through the same services the command line and the window use.

These names are the ones a script may rely on; everything else under ``desktop`` may move
between releases. Errors are ``TiebreakError`` (its one line says what and where), as the
command line prints them. A store is a context manager: leaving it lets go of the file.

    from desktop import api

    with api.open_project("reviews.tiebreak", create=True) as store:
        api.import_file(store, "pairs.jsonl")
        api.import_runs(store, "run-a.eval", "run-b.eval")  # two Inspect AI logs of one task
        summary = api.judge(store, "just-eval", api.profile("local"))
        api.override(store, "demo-3", rubric="just-eval", dimension="depth", verdict="B")
        for stats in api.compute_stats(store, "just-eval"):
            print(stats.rubric, stats.overall.judged)
        for ratings in api.rate_generators(store, "just-eval"):
            print(ratings.dimension, [(m.model, m.rating) for m in ratings.models])
        api.export_project(store, "labelled.csv", rubric="just-eval")
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import ModelProfile
from desktop.domain.verdicts import Verdict
from desktop.services.endpoints import ad_hoc_profile
from desktop.services.exporting import ExportReport, export_project
from desktop.services.importing import ImportReport, import_file
from desktop.services.inspect_import import RunsReport, import_runs
from desktop.services.judging.job import JobOptions, JobProgress, JobSummary
from desktop.services.judging.setup import judge_job
from desktop.services.overrides import override as _override
from desktop.services.overrides import parse_verdict
from desktop.services.pair_lookup import find_pair
from desktop.services.profiles import get_profile
from desktop.services.projects import ProjectStore, open_project
from desktop.services.ratings import GeneratorRatings, rate_generators
from desktop.services.stats import Stats, compute_stats

__all__ = [
    "ExportReport",
    "GeneratorRatings",
    "ImportReport",
    "JobOptions",
    "JobProgress",
    "JobSummary",
    "ModelProfile",
    "ProjectStore",
    "RunsReport",
    "Stats",
    "TiebreakError",
    "Verdict",
    "compute_stats",
    "export_project",
    "import_file",
    "import_runs",
    "judge",
    "open_project",
    "override",
    "profile",
    "rate_generators",
]


def profile(
    name: str | None = None, *, base_url: str | None = None, model: str = ""
) -> ModelProfile:
    """A saved profile by name (``local`` is the offline model), or, with ``base_url``
    and ``model``, any OpenAI-compatible server (its key from OPENAI_API_KEY)."""
    if base_url is not None:
        if not model:
            raise TiebreakError("a base URL needs a model name")
        return ad_hoc_profile(base_url, model)
    return get_profile(name or "local")


def judge(
    store: ProjectStore,
    rubric: str,
    judge_profile: ModelProfile,
    options: JobOptions | None = None,
    *,
    progress: Callable[[JobProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> JobSummary:
    """Judge the project's pairs with ``rubric`` as ``tiebreak judge`` does: every answer
    committed as it arrives, pairs already judged skipped, the local server started and
    stopped where the profile is the offline one. ``cancel`` set ends the job within a
    fraction of a second, keeping what arrived."""
    job = judge_job(store, rubric, judge_profile, options or JobOptions())
    return job.run(progress=progress, cancel=cancel)


def override(
    store: ProjectStore,
    pair: str,
    *,
    rubric: str,
    dimension: str,
    verdict: str | Verdict | None,
    reviewer: str | None = None,
    note: str | None = None,
) -> None:
    """A reviewer's verdict (``A``, ``B``, ``tie``; None withdraws it) on one dimension of
    the pair named by its id or row number, as ``tiebreak override`` records it."""
    given = verdict if verdict is None or isinstance(verdict, Verdict) else parse_verdict(verdict)
    _override(
        store,
        find_pair(store, pair),
        rubric=rubric,
        dimension=dimension,
        verdict=given,
        reviewer=reviewer,
        note=note,
        mode="api",
    )
