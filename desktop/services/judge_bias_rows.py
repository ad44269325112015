"""The biases of every judge of a rubric, as AlpacaEval measures them (``domain.judge_biases``:
the longer answer, the answer with a list, output_1), one row per judge and dimension: the
chosen judge's are its figure ``biases``; each other judge with answers for the rubric is
read in the same pass over the pairs, its verdicts ruled as its own.

The share preferring output_1 is a position bias only where the judge was shown output_1
first in every answer; where the order it saw is unknown (imported annotations: AlpacaEval
shuffles the order before asking) or varied, it is named for what it is, a preference for
output_1 (``order_seen``, ``OUTPUT_1_NOTE``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from desktop.domain.head_to_head import b_score
from desktop.domain.judge_policy import policy_for
from desktop.services.figure_formats import count, num, pct
from desktop.services.figures import Column

if TYPE_CHECKING:
    from desktop.domain.judge_biases import Answer, JudgeBiases
    from desktop.domain.pair_record import PairRecord


@dataclass(frozen=True)
class JudgeBiasRow:
    judge: str
    dimension: str
    biases: JudgeBiases | None  # None: the judge gave no verdict on the dimension


class OtherJudges:
    """Each other judge's preference per pair and dimension, kept for ``rows``."""

    def __init__(
        self, judges: list[str], dims: tuple[str, ...], orders: Mapping[str, str] | None = None
    ) -> None:
        self.policies = [policy_for(j) for j in judges]
        self.orders = orders or {}  # per judge, the order it was shown (``orders_seen``)
        self.dims = dims
        self.preferences: dict[tuple[str, str], list[tuple[int, float]]] = {
            (j, d): [] for j in judges for d in dims
        }

    def add(self, record: PairRecord) -> None:
        for policy in self.policies:
            ruling = policy.rule(record)
            if not ruling.judged:
                continue
            for dim in self.dims:
                preference = ruling.preference(dim)
                if preference is not None and (
                    b_score(ruling.verdict(dim).verdict, preference) is not None
                ):
                    self.preferences[(policy.name, dim)].append((record.id, preference))

    def answer_ids(self) -> list[int]:
        return [pid for kept in self.preferences.values() for pid, _ in kept]

    def rows(self, answers: Mapping[int, tuple[Answer, Answer]]) -> list[JudgeBiasRow]:
        from desktop.domain.judge_biases import biases_of_answers

        return [
            JudgeBiasRow(
                judge,
                dim,
                replace(
                    biases_of_answers((*answers[pid], p) for pid, p in kept),
                    order_seen=self.orders.get(judge, "unknown"),
                )
                if kept
                else None,
            )
            for (judge, dim), kept in self.preferences.items()
        ]


def order_seen(orders: Mapping[str, str], judges: tuple[str, ...]) -> str:
    """The order a judge, or every judge of a jury, was shown the outputs in."""
    seen = {orders.get(j, "unknown") for j in judges}
    if len(seen) == 1:
        return seen.pop()
    return "unknown" if "unknown" in seen or not seen else "both"


#: The sentence under the table that says what the output_1 column is, and when it is not
#: a position bias; the stats text, and any view with the table, says it so.
OUTPUT_1_NOTE = (
    "output_1: how often the judge prefers output_1, A (2 - mean preference); its position"
    ' bias (0.5 none) only where the order seen is "A first"; not where the order is'
    " unknown (imported annotations: AlpacaEval shuffles the order before asking and maps"
    " the answer back) or both"
)


#: The sentence above the table.
HEADING = (
    "the judges' biases, as AlpacaEval measures them: how often each prefers the longer"
    " answer (of pairs whose answers differ by over 30 characters), the one with a list"
    " (of pairs where one has a list), and output_1"
)


def _biases(attribute: str) -> Callable[[JudgeBiasRow], object]:
    return lambda r: None if r.biases is None else getattr(r.biases, attribute)


#: The table's columns after the judge's name and the dimension.
COLUMNS: tuple[Column, ...] = (
    Column("prefer_longer", "longer", 7, _biases("prefer_longer"), pct, gap=2),
    Column("longer_pairs", "pairs", 8, _biases("longer_pairs"), count),
    Column("prefer_lists", "lists", 7, _biases("prefer_lists"), pct, gap=2),
    Column("list_pairs", "pairs", 8, _biases("list_pairs"), count),
    Column("prefer_output_1", "output_1", 8, _biases("prefer_output_1"), num, gap=2),
    Column("preferences", "verdicts", 9, _biases("preferences"), count),
    Column("order_seen", "order seen", -10, _biases("order_seen"), lambda v: v or "", gap=2),
)


def shown_columns(rows: list[JudgeBiasRow]) -> tuple[Column, ...]:
    """The table's columns, the judge's and the dimension's first, as wide as their names."""
    width = max(14, *(len(r.judge) + 1 for r in rows))
    return (
        Column("judge", "judge", -width, lambda r: r.judge, str, gap=0),
        Column("dimension", "dimension", -14, lambda r: r.dimension, str, gap=0),
        *COLUMNS,
    )
