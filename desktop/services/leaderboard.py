"""`stats --by model`: one row per generator, the shape of AlpacaEval's leaderboard.

Each pair's ``model_b`` is the generator and its ``model_a`` the baseline (AlpacaEval puts
the baseline in ``output_1``). Per dimension and (generator, baseline), the judge's
preferences give AlpacaEval's figures (``domain.head_to_head``); ``avg_length`` is, as
AlpacaEval's ``evaluate`` computes it, the mean length in characters of the generator's
outputs (every pair of it, judged or not), cut to an integer.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from desktop.adapters.store.pair_records import iter_pair_records
from desktop.adapters.store.project import ProjectStore
from desktop.domain.head_to_head import HeadToHead, HeadToHeadCounter
from desktop.services.exporting import dimensions_of
from desktop.services.stats import pick_judge


@dataclass(frozen=True, kw_only=True)
class LeaderboardRow(HeadToHead):
    """AlpacaEval's figures for one generator, flat, as a row of its leaderboard."""

    dimension: str
    generator: str | None
    baseline: str | None
    avg_length: int


@dataclass(frozen=True)
class Leaderboard:
    rubric: str
    judge_model: str | None
    rows: list[LeaderboardRow]  # per dimension, best win rate first


def leaderboard(store: ProjectStore, rubric: str, judge_model: str | None = None) -> Leaderboard:
    model = pick_judge(store, rubric, judge_model)
    dims = dimensions_of(store, rubric)
    counters: dict[tuple[str | None, str | None], dict[str, HeadToHeadCounter]] = {}
    lengths: dict[tuple[str | None, str | None], list[int]] = {}
    for record in iter_pair_records(store, rubric, model):
        key = (record.model_b, record.model_a)
        total = lengths.setdefault(key, [0, 0])
        total[0] += record.len_b
        total[1] += 1
        per_dim = counters.setdefault(key, {d: HeadToHeadCounter() for d in dims})
        for dim, counter in per_dim.items():
            preference = record.preference(dim)
            if preference is not None:
                counter.add(preference)
    rows = []
    for dim in dims:
        block = []
        for (generator, baseline), per_dim in counters.items():
            length, count = lengths[(generator, baseline)]
            block.append(
                LeaderboardRow(
                    **asdict(per_dim[dim].finish()),
                    dimension=dim,
                    generator=generator,
                    baseline=baseline,
                    avg_length=int(length / count),
                )
            )
        block.sort(key=lambda r: (r.win_rate is None, -(r.win_rate or 0), r.generator or ""))
        rows += block
    return Leaderboard(rubric, model, rows)
