"""One judge job: many requests on one asyncio loop, each result committed as it arrives.
Several judges can be asked in one job (``run_jobs``: a jury's profiles, or one profile's
samples): each profile's server gets its own lane of requests at its own concurrency, the
pairs interleaved, with one progress, one cancel and one summary.

Cancel stops within a fraction of a second and keeps every stored result; an error that
every request would hit (a refused key, an unknown model, no quota, an unreachable server)
stops the job with one message instead of a thousand failures. When the job was given the
server's process (the built-in offline judge) and that process dies, the job says so, starts
it again once and asks again; a second death stops the job.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop.adapters.model_client import DEFAULT_BACKOFF
from desktop.adapters.store.pairs import get_pair
from desktop.adapters.store.project import ProjectStore
from desktop.domain.chat_formats import format_prompt
from desktop.domain.errors import TiebreakError
from desktop.domain.pairs import Pair
from desktop.domain.profiles import ModelProfile, settings_hash
from desktop.domain.requests import (
    ModelRequest,
    answer_grammar,
    asks_logprobs,
    response_format,
)
from desktop.domain.results import Order
from desktop.domain.rubric import Rubric
from desktop.services.judging.lane import LaneRun, LaneTask
from desktop.services.judging.plan import ResultKey, pending_tasks
from desktop.services.judging.reports import JobProgress, JobSummary
from desktop.services.project_rubrics import add_rubric
from desktop.services.rendering import render, workers

if TYPE_CHECKING:
    from desktop.adapters.local_server import LocalServer

__all__ = ["JobOptions", "JobProgress", "JobSummary", "JudgeJob", "run_jobs"]

# Seconds between copies of the project's log into its file while the job commits answers.
JOB_SETTLES_EVERY_S = 1.0


@dataclass(frozen=True)
class JobOptions:
    swap: bool = False
    # One order even where the profile judges both by default (``ModelProfile.swap``).
    one_order: bool = False
    redo: bool = False
    limit: int | None = None
    where: str | None = None
    pair_ids: Sequence[int] | None = None
    fewshot: bool = True
    concurrency: int | None = None
    backoff: float = DEFAULT_BACKOFF  # seconds before the first retry (Retry-After wins)


class JudgeJob:
    def __init__(
        self,
        store: ProjectStore,
        rubric: Rubric,
        profile: ModelProfile,
        *,
        base_url: str,
        api_key: str | None,
        options: JobOptions | None = None,
        server: LocalServer | None = None,
        password: str | None = None,
        judge_name: str | None = None,
    ) -> None:
        """``password``: the base URL's, sent as basic auth (never part of ``base_url``);
        ``judge_name``: whose answers they are stored as (default the profile's model; one
        of several samples of it is ``model#N``)."""
        self.store, self.rubric, self.profile = store, rubric, profile
        self.judge_name = judge_name or profile.model
        self.base_url, self.api_key, self.password = base_url, api_key, password
        self.server = server  # the server's process, where the app started it
        self.options = options or JobOptions()
        self.temperature = (
            profile.temperature if profile.temperature is not None else rubric.decoding.temperature
        )
        self.max_tokens = profile.max_tokens or rubric.decoding.max_tokens
        self.structured = profile.structured_mode()
        self.response_format = response_format(rubric, self.structured)
        self.grammar = answer_grammar(rubric) if profile.sends_grammar() else None
        self.logprobs = asks_logprobs(profile, rubric)
        # What constrains the answer: a JSON mode, a grammar, or nothing ("off", as in the
        # key of every result judged before grammars, so those keep their key).
        shape = self.structured if self.response_format else "grammar" if self.grammar else "off"
        self.settings = settings_hash(
            profile,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            structured=shape,
            logprobs=self.logprobs,
            fewshot=self.options.fewshot,
        )
        self.key = ResultKey(rubric.content_hash, self.judge_name, self.settings)
        self.orders = (Order.AB, Order.BA) if self.options.swap else (Order.AB,)

    def request_for(
        self,
        pair_id: int,
        order: Order,
        *,
        stop: Callable[[], bool] | None = None,
        pair: Pair | None = None,
    ) -> ModelRequest:
        """The exact request for one pair in one order (also used for batch files); its
        rendering ends at once when ``stop()`` turns true (RenderStopped). ``pair``: the
        pair as just read with others (a lane reads a few at a time), else it is read."""
        return self.request_of(self.pair_for(pair_id, order, pair), stop=stop)

    def pair_for(self, pair_id: int, order: Order, pair: Pair | None = None) -> Pair:
        """The pair as the judge sees it in ``order``: ``pair`` where it is the one, else
        read from the project (on the thread that opened it)."""
        pair = pair if pair is not None and pair.id == pair_id else get_pair(self.store, pair_id)
        if pair is None:
            raise TiebreakError(f"pair #{pair_id} is gone from the project")
        return pair.swapped() if order is Order.BA else pair

    def request_of(self, pair: Pair, *, stop: Callable[[], bool] | None = None) -> ModelRequest:
        """The request for ``pair`` as ``pair_for`` gave it. It waits for a worker process
        to render the prompt and touches no connection, so a lane runs it off its loop."""
        messages = render(self.rubric, pair, fewshot=self.options.fewshot, stop=stop)
        chat = self.profile.api_mode == "chat"
        return ModelRequest(
            api_mode="chat" if chat else "completions",
            model=self.profile.model,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            messages=tuple(messages) if chat else (),
            prompt=None if chat else format_prompt(messages, self.profile.chat_format),
            response_format=self.response_format,
            logprobs=self.logprobs,
            grammar=self.grammar,
        )

    def plan(self) -> tuple[list[tuple[int, Order]], int]:
        o = self.options
        return pending_tasks(
            self.store,
            self.key,
            self.orders,
            redo=o.redo,
            limit=o.limit,
            where=o.where,
            pair_ids=o.pair_ids,
        )

    def run(
        self,
        *,
        progress: Callable[[JobProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> JobSummary:
        """Run to the end, a fatal error, or ``cancel``; blocking (run it off the GUI thread)."""
        return asyncio.run(self.run_async(progress=progress, cancel=cancel))

    async def run_async(
        self,
        *,
        progress: Callable[[JobProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> JobSummary:
        return await run_jobs([self], progress=progress, cancel=cancel)


async def run_jobs(
    jobs: Sequence[JudgeJob],
    *,
    progress: Callable[[JobProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> JobSummary:
    """Run several jobs on one project as one: a lane per server (jobs of one profile share
    its lane and its concurrency, their requests interleaved pair by pair), one progress,
    one cancel; an error that stops one lane stops them all."""
    started, cpu_started = time.perf_counter(), time.process_time()
    store = jobs[0].store
    for rubric in {job.rubric.content_hash: job.rubric for job in jobs}.values():
        add_rubric(store, rubric)
    lanes: dict[tuple[str, str], list[LaneTask]] = {}
    state = JobProgress()
    for index, job in enumerate(jobs):
        tasks, skipped = job.plan()
        state.total += len(tasks)
        state.skipped += skipped
        lane = lanes.setdefault((job.profile.name, job.base_url), [])
        lane += [
            LaneTask(pair_id, index, n, job, order) for n, (pair_id, order) in enumerate(tasks)
        ]
    cancel = cancel or threading.Event()
    run = LaneRun(state, progress, cancel, several=len(lanes) > 1)
    if state.total:
        store.settle_every(JOB_SETTLES_EVERY_S)  # every answer is committed
        workers().warm()  # the process that renders starts while the servers are asked
        try:
            await run.execute([sorted(tasks) for tasks in lanes.values() if tasks])
        finally:
            store.settle_every(0.0)
    names = list(dict.fromkeys(job.judge_name for job in jobs))
    settings = {job.settings for job in jobs}
    return JobSummary(
        progress=state,
        cancelled=cancel.is_set() and run.stopped is None,
        stopped=run.stopped,
        elapsed_s=time.perf_counter() - started,
        cpu_s=time.process_time() - cpu_started,
        judge_model=", ".join(names),
        settings_hash=settings.pop() if len(settings) == 1 else "",
        errors=tuple(run.error_samples),
        restarts=tuple(run.restarts),
    )
