"""The judge-selection table of a project: every judge of a rubric (each way of using its
orders) and every kept jury, scored on one dimension against a reference verdict.

The reference is the reviewers' consensus (``reviewers``), or only the verdicts imported
with the data (``gold``: a JudgeBench label, a chosen/rejected file, MT-bench's votes),
where the imported rows of a pair agree. The arithmetic is ``domain/judge_selection``'s.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from desktop.adapters.store.pair_reader import LIST_COLUMNS, PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import answer_tokens, judge_models
from desktop.domain import judge_selection as js
from desktop.domain.errors import TiebreakError
from desktop.domain.pair_record import JudgeAnswer
from desktop.domain.pair_view import PairView
from desktop.domain.profiles import ModelProfile
from desktop.domain.verdicts import IMPORTED, Verdict
from desktop.services.juries import jury_names, named_jury
from desktop.services.rubric_choice import dimensions_of

AGAINST = ("reviewers", "gold")


@dataclass(frozen=True)
class Selection:
    rubric: str
    dimension: str
    against: str
    table: js.SelectionTable


def _code(answer: JudgeAnswer | None, dimension: str) -> int:
    if answer is None:
        return js.MISSING
    if answer.status == "error":
        return js.ERROR
    verdict = answer.verdicts.get(dimension)
    return js.PARSE_FAILURE if verdict is None else js.CODE[verdict]


def _gold(view: PairView, dimension: str) -> Verdict | None:
    given = {r.verdict for r in view.reviews_of(dimension) if r.mode == IMPORTED}
    given.discard(None)
    return next(iter(given)) if len(given) == 1 else None


def judge_selection(
    store: ProjectStore,
    rubric: str,
    *,
    dimension: str | None = None,
    against: str = "reviewers",
    primary: js.Metric = js.Metric.JUDGEBENCH,
    alpha: float = 0.05,
    rounds: int = 1000,
    seed: int = 0,
    profiles: Iterable[ModelProfile] = (),
) -> Selection:
    """The table for ``rubric`` on ``dimension`` (default its first); a judge's cost per
    pair where one of ``profiles`` names its model (or is named so) and sets a price."""
    if against not in AGAINST:
        raise TiebreakError(f"--against must be one of {', '.join(AGAINST)}, not {against!r}")
    dims = dimensions_of(store, rubric)
    dim = dimension or dims[0]
    if dim not in dims:
        raise TiebreakError(f"rubric {rubric} has no dimension {dim!r} ({', '.join(dims)})")
    judges = judge_models(store, rubric)
    if not judges:
        raise TiebreakError(f"rubric {rubric} has no judge answers yet")
    juries = [(name, named_jury(store, rubric, name)) for name in jury_names(store, rubric)]
    tokens = answer_tokens(store, rubric)
    ref: list[int] = []
    codes: dict[str, tuple[list[int], list[int]]] = {j: ([], []) for j in judges}
    spent: dict[str, list[tuple[int, int, float]]] = {j: [] for j in judges}
    jury_codes: dict[str, list[int]] = {name: [] for name, _ in juries}
    query = PairQuery(rubric, tuple(judges), LIST_COLUMNS, detail=True)
    for record in read_pairs(store, query):
        view = PairView(record)
        reference = view.human(dim) if against == "reviewers" else _gold(view, dim)
        if reference is None:
            continue
        ref.append(js.CODE[reference])
        for j in judges:
            ab, ba = record.answer(j, "AB"), record.answer(j, "BA")
            codes[j][0].append(_code(ab, dim))
            codes[j][1].append(_code(ba, dim))
            for order, answer in (("AB", ab), ("BA", ba)):
                t_in, t_out = tokens.get((record.id, j, order), (0, 0))
                ms = 0.0 if answer is None else answer.latency_ms or 0.0
                spent[j].append((t_in, t_out, ms / 1000))
        for name, policy in juries:
            verdict = None if policy is None else PairView(record, policy).judge(dim)[0]
            jury_codes[name].append(js.MISSING if verdict is None else js.CODE[verdict])
    if not ref:
        what = "gold label" if against == "gold" else "reviewers' consensus"
        raise TiebreakError(f"rubric {rubric}: no pair has a {what} on {dim}")
    prices: dict[str, tuple[float | None, float | None]] = {}
    for p in profiles:
        if p.price_in is not None or p.price_out is not None:
            for key in (p.name, p.model):
                prices.setdefault(key, (p.price_in, p.price_out))
    configurations = []
    for j in judges:
        first, second = (np.array(c, dtype=np.int8) for c in codes[j])
        # (pair, order, [tokens in, tokens out, seconds]): one order spends the AB answer's.
        cost = np.array(spent[j], dtype=np.float64).reshape(-1, 2, 3)
        price_in, price_out = prices.get(j, (None, None))
        uses = [js.OrderUse.ONE]
        if (second != js.MISSING).any():
            uses += [js.OrderUse.CONSERVATIVE, js.OrderUse.AVERAGED]
        for use in uses:
            spend = cost[:, 0, :] if use is js.OrderUse.ONE else cost.sum(axis=1)
            arrays = {
                "tokens_in": spend[:, 0],
                "tokens_out": spend[:, 1],
                "seconds": spend[:, 2],
                "price_in": price_in,
                "price_out": price_out,
            }
            configurations.append(js.configuration(j, use, first, second, **arrays))
    for name, _ in juries:
        configurations.append(js.configuration(f"jury {name}", js.OrderUse.ONE, jury_codes[name]))
    table = js.selection_table(
        np.array(ref, dtype=np.int8),
        configurations,
        primary=primary,
        alpha=alpha,
        rounds=rounds,
        seed=seed,
    )
    return Selection(rubric, dim, against, table)
