"""One judge job: many requests on one asyncio loop, each result committed as it arrives.

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
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from desktop.adapters.model_client import (
    DEFAULT_BACKOFF,
    Completion,
    ModelCallError,
    ModelClient,
)
from desktop.adapters.store.pairs import get_pair
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import save_result
from desktop.domain.chat_formats import format_prompt
from desktop.domain.errors import RubricError, TiebreakError
from desktop.domain.profiles import ModelProfile, settings_hash
from desktop.domain.render import RenderOverBudget, RenderStopped, render
from desktop.domain.requests import (
    ModelRequest,
    answer_grammar,
    asks_logprobs,
    response_format,
)
from desktop.domain.results import JudgeResult, Order, Status
from desktop.domain.rubric import Rubric
from desktop.services.judging.interpret import interpret
from desktop.services.judging.plan import ResultKey, pending_tasks
from desktop.services.project_rubrics import add_rubric

if TYPE_CHECKING:
    from desktop.adapters.local_server import LocalServer, ServerExit

# Failures in a row that say the server has gone away, with no answer between them.
UNREACHABLE_STREAK = 3
# Times a job starts the built-in server again after it died; the next death stops the job.
SERVER_RESTARTS = 1


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


@dataclass
class JobProgress:
    total: int = 0
    done: int = 0
    ok: int = 0
    parse_failures: int = 0
    errors: int = 0
    skipped: int = 0
    last_pair: int | None = None


@dataclass(frozen=True)
class JobSummary:
    progress: JobProgress
    cancelled: bool
    stopped: str | None  # why the job stopped early, if it did
    elapsed_s: float
    cpu_s: float
    judge_model: str
    settings_hash: str
    errors: tuple[str, ...] = field(default_factory=tuple)
    # How each server process that was started again had ended.
    restarts: tuple[ServerExit, ...] = field(default_factory=tuple)


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
    ) -> None:
        self.store, self.rubric, self.profile = store, rubric, profile
        self.base_url, self.api_key = base_url, api_key
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
        self.key = ResultKey(rubric.content_hash, profile.model, self.settings)
        self.orders = (Order.AB, Order.BA) if self.options.swap else (Order.AB,)

    def request_for(
        self, pair_id: int, order: Order, *, stop: Callable[[], bool] | None = None
    ) -> ModelRequest:
        """The exact request for one pair in one order (also used for batch files); its
        rendering ends at once when ``stop()`` turns true (RenderStopped)."""
        pair = get_pair(self.store, pair_id)
        if pair is None:
            raise TiebreakError(f"pair #{pair_id} is gone from the project")
        if order is Order.BA:
            pair = pair.swapped()
        messages = render(self.rubric, pair, fewshot=self.options.fewshot, stop=stop)
        common = {
            "model": self.profile.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "response_format": self.response_format,
            "logprobs": self.logprobs,
            "grammar": self.grammar,
        }
        if self.profile.api_mode == "chat":
            return ModelRequest(api_mode="chat", messages=tuple(messages), **common)
        return ModelRequest(
            api_mode="completions",
            prompt=format_prompt(messages, self.profile.chat_format),
            **common,
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
        started, cpu_started = time.perf_counter(), time.process_time()
        add_rubric(self.store, self.rubric)
        tasks, skipped = self.plan()
        state = JobProgress(total=len(tasks), skipped=skipped)
        cancel = cancel or threading.Event()
        run = _Run(self, state, progress, cancel)
        if tasks:
            await run.execute(tasks)
        return JobSummary(
            progress=state,
            cancelled=cancel.is_set() and run.stopped is None,
            stopped=run.stopped,
            elapsed_s=time.perf_counter() - started,
            cpu_s=time.process_time() - cpu_started,
            judge_model=self.profile.model,
            settings_hash=self.settings,
            errors=tuple(run.error_samples),
            restarts=tuple(run.restarts),
        )


class _Run:
    def __init__(
        self,
        job: JudgeJob,
        state: JobProgress,
        progress: Callable[[JobProgress], None] | None,
        cancel: threading.Event,
    ) -> None:
        self.job, self.state, self.progress, self.cancel = job, state, progress, cancel
        self.stopped: str | None = None
        self.error_samples: list[str] = []
        self.unreachable_streak = 0
        self.restarts: list[ServerExit] = []

    def _client(self, base_url: str) -> ModelClient:
        job = self.job
        return ModelClient(
            base_url,
            job.api_key,
            timeout=job.profile.timeout,
            max_retries=job.profile.max_retries,
            backoff=job.options.backoff,
            alive=job.server.alive if job.server is not None else None,
        )

    async def execute(self, tasks: list[tuple[int, Order]]) -> None:
        job = self.job
        base_url = job.base_url
        if job.server is not None:  # started (again) if it died, and able to give logprobs
            base_url = await asyncio.to_thread(job.server.ensure_started, logprobs=job.logprobs)
        self.client = self._client(base_url)  # replaced when the server is restarted
        self.restart_lock = asyncio.Lock()
        try:
            await self._cancellable([self._preflight(self.client)])
            if self.stopped or self.cancel.is_set():
                return
            queue: asyncio.Queue[tuple[int, Order]] = asyncio.Queue()
            for task in tasks:
                queue.put_nowait(task)
            width = min(job.options.concurrency or job.profile.concurrency, len(tasks))
            await self._cancellable([self._worker(queue) for _ in range(width)])
        finally:
            await self.client.close()

    async def _cancellable(self, coroutines: list[Coroutine[Any, Any, None]]) -> None:
        """Run to the end, a cancel or a stop. A crash in one (the project cannot be written,
        say) cancels the others and is raised, never swallowed."""
        tasks = [asyncio.create_task(c) for c in coroutines]
        watcher = asyncio.create_task(self._watch_cancel(tasks))
        try:
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        finally:
            watcher.cancel()
        for task in pending:
            task.cancel()
        await asyncio.wait(tasks)
        for task in done:
            error = None if task.cancelled() else task.exception()
            if error is not None:
                raise error

    async def _preflight(self, client: ModelClient) -> None:
        """One cheap call first, so a wrong URL or key fails in seconds with one message."""
        try:
            await client.list_models()
        except ModelCallError as exc:
            if exc.server_unusable:
                self.stopped = str(exc)

    async def _watch_cancel(self, workers: list[asyncio.Task[None]]) -> None:
        while not self.cancel.is_set() and self.stopped is None:
            await asyncio.sleep(0.05)
        for worker in workers:
            worker.cancel()

    async def _worker(self, queue: asyncio.Queue[tuple[int, Order]]) -> None:
        while not queue.empty() and self.stopped is None and not self.cancel.is_set():
            pair_id, order = queue.get_nowait()
            await self._one(pair_id, order)

    async def _one(self, pair_id: int, order: Order) -> None:
        job = self.job
        try:
            request = job.request_for(pair_id, order, stop=self.cancel.is_set)
        except RenderStopped:  # cancelled while rendering: nothing to keep for this pair
            return
        except RenderOverBudget as exc:  # as slow or as big for every pair: stop
            self.stopped = str(exc)
            return
        except (RubricError, TiebreakError) as exc:
            self._store(pair_id, order, Status.ERROR, error=str(exc))
            return
        completion = await self._ask(request)
        if completion is None:
            return  # the server died again: the job stopped
        if isinstance(completion, ModelCallError):
            exc = completion
            if exc.fatal:
                self.stopped = str(exc)
                return
            if exc.kind in ("unreachable", "timeout"):
                self.unreachable_streak += 1
                if self.unreachable_streak >= UNREACHABLE_STREAK:
                    self.stopped = str(exc)
            self._store(pair_id, order, Status.ERROR, error=str(exc), request_hash=request.hash())
            return
        self.unreachable_streak = 0
        status, verdicts, confidence, parse_error = interpret(
            job.rubric, order, completion, constrained=job.grammar is not None
        )
        self._store(
            pair_id,
            order,
            status,
            error=parse_error,
            verdicts=verdicts,
            confidence=confidence,
            raw_completion=completion.text,
            request_hash=request.hash(),
            latency_ms=completion.latency_ms,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
        )

    async def _ask(self, request: ModelRequest) -> Completion | ModelCallError | None:
        """The answer, or the error that ended the request. Where the server's process died,
        it is started once more and asked again; None when it died again and the job has
        stopped with what happened to it."""
        while True:
            client = self.client
            try:
                return await client.complete(request)
            except ModelCallError as exc:
                restarted = None if exc.fatal else await self._server_restarted(client)
                if restarted is None:
                    return exc
                if not restarted:
                    return None

    async def _server_restarted(self, client: ModelClient) -> bool | None:
        """After a failed request: None where the server's process still runs (an ordinary
        error), True where it had died and runs again now, False where the job stopped."""
        server = self.job.server
        report = server.exit_report() if server is not None else None
        if server is None or report is None:
            return None
        async with self.restart_lock:
            if self.client is not client:
                return True  # another request saw the death first and has restarted it
            if self.stopped is not None or len(self.restarts) >= SERVER_RESTARTS:
                self.stopped = self.stopped or str(report)
                return False
            self.restarts.append(report)
            try:
                base_url = await asyncio.to_thread(server.restart)
            except TiebreakError as exc:
                self.stopped = f"{report}; starting it again failed: {exc}"
                return False
            old, self.client = self.client, self._client(base_url)
            await old.close()
            return True

    def _store(self, pair_id: int, order: Order, status: Status, **fields: Any) -> None:
        job = self.job
        result = JudgeResult(
            pair_id=pair_id,
            rubric_hash=job.key.rubric_hash,
            rubric_name=job.rubric.name,
            judge_model=job.key.judge_model,
            settings_hash=job.key.settings_hash,
            order=order,
            status=status,
            **fields,
        )
        save_result(job.store, result)
        state = self.state
        state.done += 1
        state.last_pair = pair_id
        if status is Status.OK:
            state.ok += 1
        elif status is Status.PARSE_FAILURE:
            state.parse_failures += 1
        else:
            state.errors += 1
            if len(self.error_samples) < 5 and result.error:
                self.error_samples.append(f"pair #{pair_id}: {result.error}")
        if self.progress:
            self.progress(state)
