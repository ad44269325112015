"""What a judge run will send, and cost, worked out before it starts: so one key does not
start thousands of paid requests without a word (the window and ``tiebreak judge`` ask
first above the user's threshold, ``AppSettings.ask_above``).

The count is the requests the run's jobs plan, as they would send them: one per pair not
yet answered, per order asked (two with swap), per judge (each profile, each sample). A
rubric's dimensions are all asked in the one request of a pair. Retries are not counted.

The cost is an estimate where a profile has a price: its prompts' tokens from a sample of
the very prompts the run would send (about four characters a token, as OpenAI's guide
counts English), and each answer as long as the rubric allows (``max_tokens``): an upper
bound on the answers, which are often shorter."""

from __future__ import annotations

from dataclasses import dataclass

from desktop.adapters.store.project import ProjectStore
from desktop.domain.results import Order
from desktop.services.judging.job import JobOptions, JudgeJob
from desktop.services.judging.panel import PanelRequest, planned_jobs

#: Prompts rendered per judge to estimate the tokens of all of them.
SAMPLED_PROMPTS = 20
#: Characters a token, on average, in English text (OpenAI's rule of thumb).
CHARS_PER_TOKEN = 4.0


@dataclass(frozen=True)
class RunSize:
    requests: int
    pairs: int  # pairs asked about, by at least one judge
    judges: tuple[str, ...]  # whose answers they are stored as
    orders: int  # 1, or 2 where some judge is asked with A and B swapped too
    cost_usd: float | None  # None: no profile asked has a price
    unpriced: tuple[str, ...]  # profiles asked without a price

    def needs_asking(self, threshold: int) -> bool:
        """Above ``threshold`` requests (0: any run that sends a request)."""
        return self.requests > threshold

    def describe(self) -> str:
        """One sentence: how many requests, to whom, for what, and the estimate."""
        who = self.judges[0] if len(self.judges) == 1 else f"{len(self.judges)} judges"
        orders = "both orders" if self.orders == 2 else "one order"
        text = (
            f"{self.requests:,} request{'s' if self.requests != 1 else ''} to {who}"
            f" ({self.pairs:,} pair{'s' if self.pairs != 1 else ''}, {orders})"
        )
        if self.cost_usd is not None:
            text += f", about {_dollars(self.cost_usd)} at the profile's prices"
            if self.unpriced:
                text += f" (no price set for {', '.join(self.unpriced)})"
        elif self.unpriced:
            text += f"; no price is set for {', '.join(self.unpriced)}, so no cost estimate"
        return text


def run_size(
    store: ProjectStore, rubric_name: str, request: PanelRequest, options: JobOptions
) -> RunSize:
    """The size of the run ``panel`` would make of ``request``, no server asked or started
    (a request it would refuse is refused here, in the same one line)."""
    jobs = planned_jobs(store, rubric_name, request, options)
    requests, orders = 0, 1
    pairs: set[int] = set()
    cost: float | None = None
    unpriced: dict[str, None] = {}
    for job in jobs:
        tasks, _ = job.plan()
        requests += len(tasks)
        pairs.update(pid for pid, _ in tasks)
        orders = max(orders, len(job.orders))
        profile = job.profile
        if profile.price_in is None and profile.price_out is None:
            if not profile.served_here:  # the app's own llama.cpp server costs nothing
                unpriced[profile.name] = None
            continue
        cost = (cost or 0.0) + _job_cost(job, tasks)
    return RunSize(
        requests=requests,
        pairs=len(pairs),
        judges=tuple(dict.fromkeys(job.judge_name for job in jobs)),
        orders=orders,
        cost_usd=cost,
        unpriced=tuple(unpriced),
    )


def _job_cost(job: JudgeJob, tasks: list[tuple[int, Order]]) -> float:
    """Dollars for ``tasks``: the mean prompt of an even sample of them, and answers of
    ``max_tokens`` each."""
    if not tasks:
        return 0.0
    step = max(1, len(tasks) // SAMPLED_PROMPTS)
    sample = tasks[::step][:SAMPLED_PROMPTS]
    chars = 0
    for pid, order in sample:
        sent = job.request_for(pid, order)
        chars += sum(len(m.get("content") or "") for m in sent.messages) + len(sent.prompt or "")
    prompt_tokens = chars / len(sample) / CHARS_PER_TOKEN
    price_in, price_out = job.profile.price_in or 0.0, job.profile.price_out or 0.0
    per_request = prompt_tokens * price_in + job.max_tokens * price_out
    return len(tasks) * per_request / 1_000_000


def _dollars(amount: float) -> str:
    if amount < 0.01:
        return "under $0.01" if amount > 0 else "$0.00"
    return f"${amount:,.2f}"
