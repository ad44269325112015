"""Asking one server for a judge job's requests (a lane), and what the lanes of one job
share (``LaneRun``: progress, cancel, why it stopped, the answers stored). ``job.run_jobs``
makes a lane per profile; jobs of one profile (its samples) share its lane and its
concurrency. A lane knows a job only as a ``LaneJob``.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections import deque
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypedDict, Unpack

from desktop.adapters.model_client import Completion, ModelCallError, ModelClient
from desktop.adapters.store.pairs import get_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import ResultRow, insert_results, result_row
from desktop.domain.errors import RubricError, TiebreakError
from desktop.domain.pairs import Pair
from desktop.domain.profiles import ModelProfile
from desktop.domain.render import RenderOverBudget, RenderStopped
from desktop.domain.requests import ModelRequest
from desktop.domain.results import JudgeResult, Order, Status
from desktop.domain.rubric import Rubric
from desktop.domain.verdicts import Verdict
from desktop.services.judging.interpret import interpret
from desktop.services.judging.plan import ResultKey
from desktop.services.judging.reports import JobProgress

if TYPE_CHECKING:
    from desktop.adapters.local_server import LocalServer, ServerExit

# Failures in a row that say the server has gone away, with no answer between them.
UNREACHABLE_STREAK = 3
# Times a job starts the built-in server again after it died; the next death stops the job.
SERVER_RESTARTS = 1
# Pairs a lane reads in one query, just before it asks about the first of them.
READ_AHEAD = 32


class _Options(Protocol):
    @property
    def concurrency(self) -> int | None: ...
    @property
    def backoff(self) -> float: ...


class LaneJob(Protocol):
    """What a lane reads of a job (``job.JudgeJob``)."""

    store: ProjectStore
    rubric: Rubric
    profile: ModelProfile
    base_url: str
    api_key: str | None
    password: str | None
    server: LocalServer | None
    logprobs: bool
    grammar: str | None
    key: ResultKey

    @property
    def options(self) -> _Options: ...

    def pair_for(self, pair_id: int, order: Order, pair: Pair | None = None) -> Pair: ...

    def request_of(self, pair: Pair, *, stop: Callable[[], bool] | None = None) -> ModelRequest: ...


class LaneTask(NamedTuple):
    """One request of a job; sorted, a lane's tasks interleave its jobs pair by pair."""

    pair_id: int
    job_index: int  # the job's place among the jobs run together
    step: int  # its place in the job's own plan
    job: LaneJob
    order: Order


class LaneRun:
    """What the lanes of one run share: progress, cancel, the reason it stopped."""

    def __init__(
        self,
        state: JobProgress,
        progress: Callable[[JobProgress], None] | None,
        cancel: threading.Event,
        several: bool,
    ) -> None:
        self.state, self.progress, self.cancel = state, progress, cancel
        self.several = several  # several judges: a stop names whose lane it was
        self.stopped: str | None = None
        self.error_samples: list[str] = []
        self.restarts: list[ServerExit] = []
        self._waiting: list[_Waiting] = []  # answers not yet committed: see store()

    async def execute(self, lanes: list[list[LaneTask]]) -> None:
        try:
            await self.cancellable([_Lane(self, t[0].job).execute(t) for t in lanes])
        except BaseException:
            self._commit_waiting()  # what came in as the workers were stopped, if it can
            raise
        error = self._commit_waiting()  # answers of workers cancelled while they waited
        if error is not None:
            raise error

    def stop(self, job: LaneJob, reason: str) -> None:
        if self.stopped is None:
            self.stopped = f"{job.profile.name}: {reason}" if self.several else reason

    async def cancellable(self, coroutines: list[Coroutine[Any, Any, None]]) -> None:
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

    async def _watch_cancel(self, workers: list[asyncio.Task[None]]) -> None:
        while not self.cancel.is_set() and self.stopped is None:
            await asyncio.sleep(0.05)
        for worker in workers:
            worker.cancel()

    async def store(
        self, job: LaneJob, pair_id: int, order: Order, status: Status, **fields: Unpack[Answer]
    ) -> None:
        """Keep one answer: back once it is committed (and counted), as every answer is.
        Answers that arrive in the same turn of the loop share one transaction (a group
        commit): the look at the held file, BEGIN and COMMIT are paid once for all of them
        instead of once each, and none is counted or reported before its commit."""
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
        loop = asyncio.get_running_loop()
        committed = loop.create_future()
        self._waiting.append(_Waiting(job.store, result_row(result), result, committed))
        if len(self._waiting) == 1:
            loop.call_soon(self._commit_waiting)  # after the turn's other answers
        # A worker cancelled here leaves its answer to the commit, which counts it.
        await committed

    def _commit_waiting(self) -> Exception | None:
        """Commit every answer waiting (in the order they came), then count and report
        each; a failed commit is raised in every worker whose answer it held (and
        returned, for ``execute`` to raise where no worker waits any more)."""
        waiting, self._waiting = self._waiting, []
        if not waiting:
            return None
        for store in dict.fromkeys(w.store for w in waiting):  # one store, in a job
            mine = [w for w in waiting if w.store is store]
            try:
                with store.transaction():
                    insert_results(store.conn, [w.row for w in mine])
            except Exception as exc:
                for w in waiting:
                    if not w.committed.done():
                        w.committed.set_exception(exc)
                return exc
            for w in mine:
                self._count(w.result)
                if not w.committed.done():
                    w.committed.set_result(None)
        return None

    def _count(self, result: JudgeResult) -> None:
        state = self.state
        state.done += 1
        state.last_pair = result.pair_id
        status = result.status
        if status is Status.OK:
            state.ok += 1
        elif status is Status.PARSE_FAILURE:
            state.parse_failures += 1
        else:
            state.errors += 1
            if len(self.error_samples) < 5 and result.error:
                self.error_samples.append(f"pair #{result.pair_id}: {result.error}")
        if self.progress:
            self.progress(state)


class Answer(TypedDict, total=False):
    """What a lane keeps of an answer beyond its key and status: ``JudgeResult``'s fields."""

    error: str | None
    verdicts: dict[str, Verdict]
    confidence: dict[str, float]
    preference: dict[str, float | str]
    raw_completion: str | None
    request_hash: str | None
    latency_ms: float | None
    prompt_tokens: int | None
    completion_tokens: int | None


class _Waiting(NamedTuple):
    """An answer waiting for the transaction that commits it."""

    store: ProjectStore
    row: ResultRow
    result: JudgeResult
    committed: asyncio.Future[None]


class _Lane:
    """One profile's server, asked for its jobs' tasks at its concurrency through one
    client (replaced when the built-in server is started again)."""

    def __init__(self, run: LaneRun, job: LaneJob) -> None:
        self.run, self.job = run, job  # ``job``: any of the lane's (they share a profile)
        self.unreachable_streak = 0
        self._ahead: dict[int, Pair] = {}  # the pairs next in line, read together
        self._ahead_store: ProjectStore | None = None  # where they were read

    def _client(self, base_url: str) -> ModelClient:
        job = self.job
        return ModelClient(
            base_url,
            job.api_key,
            timeout=job.profile.timeout,
            max_retries=job.profile.max_retries,
            backoff=job.options.backoff,
            alive=job.server.alive if job.server is not None else None,
            password=job.password,
        )

    async def execute(self, tasks: list[LaneTask]) -> None:
        job, run = self.job, self.run
        base_url = job.base_url
        if job.server is not None:  # started (again) if it died, and able to give logprobs
            base_url = await asyncio.to_thread(job.server.ensure_started, logprobs=job.logprobs)
        self.client = self._client(base_url)  # replaced when the server is restarted
        self.restart_lock = asyncio.Lock()
        try:
            await run.cancellable([self._preflight(self.client)])
            if run.stopped or run.cancel.is_set():
                return
            queue: deque[LaneTask] = deque(tasks)
            width = min(job.options.concurrency or job.profile.concurrency, len(tasks))
            await run.cancellable([self._worker(queue) for _ in range(width)])
        finally:
            await self.client.close()

    async def _preflight(self, client: ModelClient) -> None:
        """One cheap call first, so a wrong URL or key fails in seconds with one message."""
        try:
            await client.list_models()
        except ModelCallError as exc:
            if exc.server_unusable:
                self.run.stop(self.job, str(exc))

    async def _worker(self, queue: deque[LaneTask]) -> None:
        run = self.run
        while queue and run.stopped is None and not run.cancel.is_set():
            task = queue.popleft()
            await self._one(task, queue)

    def _pair(self, task: LaneTask, queue: deque[LaneTask]) -> Pair | None:
        """The task's pair, from the few read in one query with those next in line (read
        then, just before the first of them is asked about); None where it is not among
        them (the job reads it itself, and says so where it is gone)."""
        store = task.job.store
        pair = self._ahead.get(task.pair_id) if store is self._ahead_store else None
        if pair is None:
            after = itertools.islice(queue, READ_AHEAD - 1)
            ids = [task.pair_id, *(t.pair_id for t in after if t.job.store is store)]
            self._ahead, self._ahead_store = get_pairs(store, ids), store
            pair = self._ahead.get(task.pair_id)
        return pair

    async def _one(self, task: LaneTask, queue: deque[LaneTask]) -> None:
        run, job, pair_id, order = self.run, task.job, task.pair_id, task.order
        try:
            pair = job.pair_for(pair_id, order, self._pair(task, queue))
            # Rendering waits on a worker process: the loop goes on with other requests.
            request = await asyncio.to_thread(job.request_of, pair, stop=run.cancel.is_set)
        except RenderStopped:  # cancelled while rendering: nothing to keep for this pair
            return
        except RenderOverBudget as exc:  # as slow or as big for every pair: stop
            run.stop(job, str(exc))
            return
        except (RubricError, TiebreakError) as exc:
            await run.store(job, pair_id, order, Status.ERROR, error=str(exc))
            return
        completion = await self._ask(request)
        if completion is None:
            return  # the server died again: the job stopped
        if isinstance(completion, ModelCallError):
            failure = completion
            if failure.fatal:
                run.stop(job, str(failure))
                return
            if failure.kind in ("unreachable", "timeout"):
                self.unreachable_streak += 1
                if self.unreachable_streak >= UNREACHABLE_STREAK:
                    run.stop(job, str(failure))
            await run.store(
                job, pair_id, order, Status.ERROR, error=str(failure), request_hash=request.hash()
            )
            return
        self.unreachable_streak = 0
        read = interpret(job.rubric, order, completion, constrained=job.grammar is not None)
        await run.store(
            job,
            pair_id,
            order,
            read.status,
            error=read.error,
            verdicts=read.verdicts,
            confidence=read.confidence,
            preference=read.preference,
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
        server, run = self.job.server, self.run
        report = server.exit_report() if server is not None else None
        if server is None or report is None:
            return None
        async with self.restart_lock:
            if self.client is not client:
                return True  # another request saw the death first and has restarted it
            if run.stopped is not None or len(run.restarts) >= SERVER_RESTARTS:
                run.stop(self.job, str(report))
                return False
            run.restarts.append(report)
            try:
                base_url = await asyncio.to_thread(server.restart)
            except TiebreakError as exc:
                run.stop(self.job, f"{report}; starting it again failed: {exc}")
                return False
            old, self.client = self.client, self._client(base_url)
            await old.close()
            return True
