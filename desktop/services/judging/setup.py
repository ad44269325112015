"""A judge job set up for a project: the one place the command line, the window, batch
submission and the first-run check get their ``JudgeJob`` from."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from desktop.adapters.keys import key_named
from desktop.adapters.store.project import ProjectStore
from desktop.domain.profiles import ModelProfile
from desktop.domain.requests import asks_logprobs
from desktop.services import background
from desktop.services.endpoints import endpoint_for
from desktop.services.judging.applies import refuse_missing_fields
from desktop.services.judging.job import JobOptions, JobProgress, JobSummary, JudgeJob
from desktop.services.project_rubrics import find_rubric

if TYPE_CHECKING:
    from desktop.services.endpoints import Endpoint


def judge_job(
    store: ProjectStore,
    rubric_name: str,
    profile: ModelProfile,
    options: JobOptions,
    *,
    endpoint: Endpoint | None = None,
    judge_name: str | None = None,
    fields_checked: bool = False,
) -> JudgeJob:
    """A job that asks ``endpoint``, else the profile's own (the built-in server started
    where the profile is the local one, able to give logprobs where the rubric reads
    them), with the rubric of that name as the project finds it; in both orders where the
    profile judges both by default, unless ``options.one_order``."""
    profile = key_named(profile)  # a key pasted as the model never names the judge
    rubric = find_rubric(store, rubric_name)
    if not fields_checked:  # a job of several judges checks the pairs once, first
        refuse_missing_fields(store, rubric, options)
    if profile.swap and not options.one_order:  # its test found its verdicts flip
        options = replace(options, swap=True)
    if endpoint is None:
        endpoint = endpoint_for(profile, logprobs=asks_logprobs(profile, rubric))
    return JudgeJob(
        store,
        rubric,
        profile,
        base_url=endpoint.base_url,
        api_key=endpoint.api_key,
        options=options,
        server=endpoint.server,
        password=endpoint.password,
        judge_name=judge_name,
    )


def file_job(
    store: ProjectStore, rubric_name: str, profile: ModelProfile, options: JobOptions
) -> JudgeJob:
    """A job whose requests go into a batch file: no server is asked or started (the
    export refuses pairs the rubric cannot apply to, once its target is found good)."""
    rubric = find_rubric(store, rubric_name)
    return JudgeJob(store, rubric, key_named(profile), base_url="", api_key=None, options=options)


class Run(Protocol):
    """A job, or several run as one (``panel.Panel``)."""

    def run(
        self,
        *,
        progress: Callable[[JobProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> JobSummary: ...


def run_work(
    project: background.ProjectFile, make: Callable[[ProjectStore], Run]
) -> background.Work[JobSummary]:
    """A judge run as the window's background work: its own connection to the project, and
    a copy of each progress snapshot handed on (it crosses to the GUI thread)."""

    def write(
        store: ProjectStore, progress: background.Progress, cancel: threading.Event
    ) -> JobSummary:
        return make(store).run(progress=lambda state: progress(replace(state)), cancel=cancel)

    return background.writing(project, write)


def judge_work(
    project: background.ProjectFile, rubric_name: str, profile: ModelProfile, options: JobOptions
) -> background.Work[JobSummary]:
    """The window's judge run (Ctrl+J)."""
    return run_work(project, lambda store: judge_job(store, rubric_name, profile, options))
