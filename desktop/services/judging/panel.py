"""Several judges in one job: each of several profiles (a jury's), or one profile sampled
N times at a temperature (self-consistency), or both. Each profile's answers are stored as
its model's, as a one-profile job stores them; each sample as a judge of its own,
``model#1`` ... ``model#N`` (a result's key holds its judge, so N samples are N answers,
never one reused), and the samples are kept as a jury, ``model xN``, whose verdict is their
majority and whose confidence is the share of samples behind it: a confidence where the
server gives no logprobs. ``--jury NAME`` keeps every judge asked as one jury.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from desktop.adapters.keys import key_named
from desktop.adapters.store import open_project
from desktop.adapters.store.juries import JuryRow
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError
from desktop.domain.limits import MAX_SAMPLES
from desktop.domain.profiles import ModelProfile
from desktop.domain.requests import asks_logprobs
from desktop.services.endpoints import Endpoint, endpoint_for
from desktop.services.judging.applies import refuse_missing_fields
from desktop.services.judging.job import JobOptions, JobProgress, JobSummary, JudgeJob, run_jobs
from desktop.services.judging.setup import judge_job
from desktop.services.jury_setup import check_jury, keep_jury
from desktop.services.project_rubrics import find_rubric

#: The temperature samples are drawn at when none is given (self-consistency wants answers
#: that can differ; Wang et al. 2023 sampled at 0.5 to 0.7).
SAMPLE_TEMPERATURE = 0.7


@dataclass(frozen=True)
class PanelRequest:
    """Whom one job asks: ``profiles``, each ``samples`` times at ``temperature`` (None: the
    profile's or rubric's own, or SAMPLE_TEMPERATURE for several samples), and the jury to
    keep them as, if named."""

    profiles: tuple[ModelProfile, ...]
    samples: int = 1
    temperature: float | None = None
    jury: str | None = None
    combine: str = "majority"


@dataclass(frozen=True)
class Panel:
    jobs: list[JudgeJob]
    juries: list[JuryRow]  # kept before the job starts

    def run(
        self,
        *,
        progress: Callable[[JobProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> JobSummary:
        import asyncio

        return asyncio.run(run_jobs(self.jobs, progress=progress, cancel=cancel))


def sample_judges(model: str, samples: int) -> list[str]:
    """The judges one profile's samples are stored as."""
    return [f"{model}#{i}" for i in range(1, samples + 1)]


def sample_jury(model: str, samples: int) -> str:
    return f"{model} x{samples}"


def check_request(request: PanelRequest) -> None:
    """Refuse, in one line, a request that would store two judges' answers as one's."""
    names = [p.name for p in request.profiles]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise TiebreakError(f"profile {twice} is named twice")
    models: dict[str, str] = {}
    for profile in request.profiles:
        other = models.setdefault(profile.model, profile.name)
        if other != profile.name:
            raise TiebreakError(
                f"profiles {other} and {profile.name} both ask model {profile.model!r}: their"
                " answers would be stored as one judge's; ask one of them"
            )
    if not 1 <= request.samples <= MAX_SAMPLES:
        raise TiebreakError(f"--samples must be from 1 to {MAX_SAMPLES}, got {request.samples:,}")
    if request.temperature is not None and request.temperature < 0:
        raise TiebreakError(f"--temperature must be 0 or more, got {request.temperature}")
    if request.samples > 1 and request.temperature == 0:
        raise TiebreakError("samples at temperature 0 would all be one answer; give one above 0")


@dataclass(frozen=True)
class _Asked:
    """Whom a panel asks, worked out before any server is started: each judge as its
    profile (its temperature set) and the name its answers are stored under (None: the
    profile's model), and the juries they make, checked but not yet kept."""

    judges: list[tuple[ModelProfile, str | None]]
    juries: list[JuryRow]


def _asked(
    store: ProjectStore, rubric_name: str, request: PanelRequest, options: JobOptions
) -> _Asked:
    # A key pasted as a model never names a judge, a sample or a jury's juror.
    request = replace(request, profiles=tuple(key_named(p) for p in request.profiles))
    check_request(request)
    rubric = find_rubric(store, rubric_name)
    refuse_missing_fields(store, rubric, options)  # before any server is started
    made: list[JuryRow] = []
    judges: dict[str, list[str | None]] = {}  # each profile's judges (None: its model)
    for profile in request.profiles:
        if request.samples == 1:
            judges[profile.name] = [None]
            continue
        names = sample_judges(profile.model, request.samples)
        judges[profile.name] = list(names)
        kept = sample_jury(profile.model, request.samples)
        made.append(JuryRow(rubric.name, kept, tuple(names), "majority"))
    if request.jury is not None:
        every = [n or p.model for p in request.profiles for n in judges[p.name]]
        made.append(JuryRow(rubric.name, request.jury, tuple(every), request.combine))
    for jury in made:  # refused before any server is started
        check_jury(store, jury.rubric, jury.name, jury.jurors, jury.combine)
    temperature = request.temperature
    if temperature is None and request.samples > 1:
        temperature = SAMPLE_TEMPERATURE
    asked: list[tuple[ModelProfile, str | None]] = []
    for profile in request.profiles:
        if temperature is not None:
            profile = profile.with_changes(temperature=temperature)
        asked += [(profile, name) for name in judges[profile.name]]
    return _Asked(asked, made)


def _job(
    store: ProjectStore,
    rubric_name: str,
    options: JobOptions,
    judge: tuple[ModelProfile, str | None],
    endpoint: Endpoint,
) -> JudgeJob:
    profile, name = judge
    return judge_job(
        store, rubric_name, profile, options,
        endpoint=endpoint, judge_name=name, fields_checked=True,
    )  # fmt: skip


def panel(
    store: ProjectStore, rubric_name: str, request: PanelRequest, options: JobOptions
) -> Panel:
    """The jobs of ``request`` and the juries they make, the juries kept already (so the
    window shows the jury while its jurors' answers arrive)."""
    asked = _asked(store, rubric_name, request, options)
    rubric = find_rubric(store, rubric_name)
    endpoints: dict[str, Endpoint] = {}
    jobs: list[JudgeJob] = []
    for judge in asked.judges:
        profile = judge[0]
        if profile.name not in endpoints:
            endpoints[profile.name] = endpoint_for(profile, logprobs=asks_logprobs(profile, rubric))
        jobs.append(_job(store, rubric_name, options, judge, endpoints[profile.name]))
    return Panel(jobs, [keep_jury(store, jury) for jury in asked.juries])


def planned_jobs(
    store: ProjectStore, rubric_name: str, request: PanelRequest, options: JobOptions
) -> list[JudgeJob]:
    """The jobs ``panel`` would run, as they would plan and render their requests, with
    no server asked or started and nothing kept: what a run would send, before it runs."""
    asked = _asked(store, rubric_name, request, options)
    nowhere = Endpoint(base_url="", api_key=None)
    return [_job(store, rubric_name, options, judge, nowhere) for judge in asked.judges]


def panel_work(
    path: Path, rubric_name: str, request: PanelRequest, options: JobOptions
) -> Callable[[Callable[[JobProgress], None], threading.Event], JobSummary]:
    """The window's background work for a panel: its own connection to the project, and
    a copy of each progress snapshot handed on (it crosses to the GUI thread)."""

    def work(progress: Callable[[JobProgress], None], cancel: threading.Event) -> JobSummary:
        with open_project(path) as store:
            made = panel(store, rubric_name, request, options)
            return made.run(progress=lambda state: progress(replace(state)), cancel=cancel)

    return work
