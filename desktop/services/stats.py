"""Agreement figures of a project, per rubric, dimension and category, in one streaming
pass over the pairs (see ``adapters.store.pair_records``); the arithmetic is ``domain.agreement``.

Which verdicts count: the judge's as the review window shows it (both orders combined
where judged twice), the human verdict as the export's ``<dim>_human`` column (the
reviewers' consensus), and for inter-reviewer figures each reviewer's latest verdict.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

from desktop.adapters.store.pair_records import PairRecord, iter_pair_records
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import judge_models
from desktop.adapters.store.rubrics import rubric_names
from desktop.domain import agreement as ag
from desktop.domain.errors import TiebreakError
from desktop.domain.head_to_head import HeadToHead, HeadToHeadCounter
from desktop.domain.sampling import bootstrap_win_rate
from desktop.domain.verdicts import Verdict
from desktop.services.exporting import dimensions_of, require_rubric

ALL = "all"
UNKNOWN_MODE = "unknown"


@dataclass(frozen=True)
class WinRate:
    """Share of pairs A wins (a tie counts half), with a percentile bootstrap interval."""

    n: int
    a: int
    b: int
    tie: int
    rate: float | None
    low: float | None
    high: float | None


@dataclass(frozen=True)
class ReviewerStats:
    """Agreement among reviewers, over pairs with verdicts from at least two of them."""

    reviewers: list[str]
    pairs: int
    verdicts: int
    cohen_kappa: float | None  # only with exactly two reviewers
    fleiss_kappa: float | None
    krippendorff_alpha: float | None
    loo_agreement: float | None  # HREF's human agreement
    judge_loo_agreement: float | None  # the judge against the same leave-one-out majorities
    judge_loo_pairs: int


@dataclass(frozen=True)
class DimensionStats:
    dimension: str
    judge_h2h: HeadToHead  # B (the generator) against A (the baseline), AlpacaEval's figures
    judge_win: WinRate
    human_win: WinRate
    judge_longer: float | None  # share of decisive verdicts for the longer response
    judge_longer_n: int
    human_longer: float | None
    human_longer_n: int
    swap_checked: int  # pairs with a verdict in both orders
    swap_consistency: float | None
    vs_human: ag.Agreement  # confusion rows: judge; columns: human
    by_mode: dict[str, ag.Agreement]  # the judge against each reviewer verdict of that mode
    reviewers: ReviewerStats | None


@dataclass(frozen=True)
class Section:
    """All pairs, or the pairs of one category."""

    name: str
    baseline: str | None  # every pair's model_a, where they all name the same one
    generator: str | None  # likewise model_b
    generators: int  # distinct model_b names
    pairs: int
    judged: int
    reviewed: int
    answers: int  # latest judge answers, each order counted
    parse_failures: int
    errors: int
    parse_failure_rate: float | None  # of answers that were not transport errors
    dimensions: list[DimensionStats]


@dataclass(frozen=True)
class Stats:
    rubric: str
    judge_model: str | None
    dimensions: tuple[str, ...]
    overall: Section
    categories: list[Section] = field(default_factory=list)
    other_judges: list[str] = field(default_factory=list)  # with answers for the rubric


def compute_stats(
    store: ProjectStore,
    rubric: str | None = None,
    judge_model: str | None = None,
    *,
    seed: int = 0,
    resamples: int = 2000,
) -> list[Stats]:
    """One Stats per rubric (the one named, else every rubric with verdicts)."""
    names = rubric_names(store)
    if rubric is not None:
        names = [require_rubric(store, rubric, names)]
    return [rubric_stats(store, n, judge_model, seed=seed, resamples=resamples) for n in names]


def pick_judge(store: ProjectStore, rubric: str, judge_model: str | None) -> str | None:
    """The judge named (it must have answers for the rubric), else the latest used."""
    models = judge_models(store, rubric)
    if judge_model is None:
        return models[0] if models else None
    if judge_model not in models:
        known = ", ".join(models) or "none"
        raise TiebreakError(
            f"{store.path}: judge {judge_model!r} has no answers for rubric {rubric}"
            f" (judges with answers: {known})"
        )
    return judge_model


def rubric_stats(
    store: ProjectStore,
    rubric: str,
    judge_model: str | None = None,
    *,
    seed: int = 0,
    resamples: int = 2000,
) -> Stats:
    model = pick_judge(store, rubric, judge_model)
    others = [m for m in judge_models(store, rubric) if m != model]
    dims = dimensions_of(store, rubric)
    overall = _SectionAcc(dims)
    categories: dict[str, _SectionAcc] = {}
    for record in iter_pair_records(store, rubric, model):
        overall.add(record)
        if record.category:
            categories.setdefault(record.category, _SectionAcc(dims)).add(record)
    finish = {"seed": seed, "resamples": resamples, "rubric": rubric}
    return Stats(
        rubric=rubric,
        judge_model=model,
        dimensions=dims,
        overall=overall.finish(ALL, **finish),
        categories=[categories[c].finish(c, **finish) for c in sorted(categories)],
        other_judges=others,
    )


class _DimAcc:
    """Running counts for one dimension of one section."""

    def __init__(self) -> None:
        self.judge = [0, 0, 0]
        self.h2h = HeadToHeadCounter()
        self.human = [0, 0, 0]
        self.judge_longer = [0, 0]  # (chose the longer, decisive with unequal lengths)
        self.human_longer = [0, 0]
        self.swap = [0, 0]  # (consistent, checked)
        self.vs_human = ag.empty_matrix()
        self.by_mode: dict[str, ag.Matrix] = {}
        self.reviewers: set[str] = set()
        self.items: list[tuple[int, int, int]] = []
        self.judged_items: list[tuple[tuple[int, int, int], Verdict]] = []
        self.pairwise: dict[tuple[str, str], ag.Matrix] = {}

    def add(self, record: PairRecord, dim: str) -> None:
        judge, _, consistent = record.judge(dim)
        reviews = record.reviews_of(dim)
        human = record.human(dim)
        if consistent is not None:
            self.swap[1] += 1
            self.swap[0] += consistent
        if judge is not None:
            self.judge[_I[judge]] += 1
            _count_longer(self.judge_longer, judge, record)
        preference = record.preference(dim)
        if preference is not None:
            self.h2h.add(preference)
        if human is not None:
            self.human[_I[human]] += 1
            _count_longer(self.human_longer, human, record)
        if judge is not None and human is not None:
            ag.add_to_matrix(self.vs_human, judge, human)
        for review in reviews:
            self.reviewers.add(review.reviewer)
            if judge is not None:
                mode = review.mode or UNKNOWN_MODE
                ag.add_to_matrix(
                    self.by_mode.setdefault(mode, ag.empty_matrix()), judge, review.verdict
                )
        if len(reviews) >= 2:
            counts = ag.counts_of(r.verdict for r in reviews)
            self.items.append(counts)
            if judge is not None:
                self.judged_items.append((counts, judge))
            for first, second in combinations(sorted(reviews, key=lambda r: r.reviewer), 2):
                key = (first.reviewer, second.reviewer)
                matrix = self.pairwise.setdefault(key, ag.empty_matrix())
                ag.add_to_matrix(matrix, first.verdict, second.verdict)

    def finish(self, dim: str, rng_key: str, *, seed: int, resamples: int) -> DimensionStats:
        return DimensionStats(
            dimension=dim,
            judge_h2h=self.h2h.finish(),
            judge_win=_win(self.judge, f"{seed}:{rng_key}:{dim}:judge", resamples),
            human_win=_win(self.human, f"{seed}:{rng_key}:{dim}:human", resamples),
            judge_longer=_share(*self.judge_longer),
            judge_longer_n=self.judge_longer[1],
            human_longer=_share(*self.human_longer),
            human_longer_n=self.human_longer[1],
            swap_checked=self.swap[1],
            swap_consistency=_share(*self.swap),
            vs_human=ag.summarize(self.vs_human),
            by_mode={m: ag.summarize(x) for m, x in sorted(self.by_mode.items())},
            reviewers=self._reviewer_stats(),
        )

    def _reviewer_stats(self) -> ReviewerStats | None:
        if not self.items:
            return None
        reviewers = sorted(self.reviewers)
        cohen = None
        if len(reviewers) == 2:
            cohen = ag.cohen_kappa(self.pairwise.get((reviewers[0], reviewers[1]), [[0] * 3] * 3))
        return ReviewerStats(
            reviewers=reviewers,
            pairs=len(self.items),
            verdicts=sum(map(sum, self.items)),
            cohen_kappa=cohen,
            fleiss_kappa=ag.fleiss_kappa(self.items),
            krippendorff_alpha=ag.krippendorff_alpha(self.items),
            loo_agreement=ag.loo_reviewer_agreement(self.items),
            judge_loo_agreement=ag.loo_judge_agreement(self.judged_items),
            judge_loo_pairs=len(self.judged_items),
        )


_I = {v: i for i, v in enumerate(ag.LABELS)}


def _count_longer(acc: list[int], verdict: Verdict, record: PairRecord) -> None:
    share, n = ag.longer_preference([(verdict, record.len_a, record.len_b)])
    if n:
        acc[0] += share == 1.0
        acc[1] += 1


def _only(names: set[str | None]) -> str | None:
    return next(iter(names)) if len(names) == 1 else None


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _win(counts: list[int], rng_key: str, resamples: int) -> WinRate:
    a, b, tie = counts
    interval = bootstrap_win_rate(a, b, tie, rng=random.Random(rng_key), resamples=resamples)
    low, high = interval if interval else (None, None)
    return WinRate(a + b + tie, a, b, tie, ag.win_rate(a, b, tie), low, high)


class _SectionAcc:
    def __init__(self, dims: tuple[str, ...]) -> None:
        self.dims = {d: _DimAcc() for d in dims}
        self.pairs = self.judged = self.reviewed = 0
        self.statuses: Counter[str] = Counter()
        self.baselines: set[str | None] = set()
        self.generators: set[str | None] = set()

    def add(self, record: PairRecord) -> None:
        self.pairs += 1
        self.baselines.add(record.model_a)
        self.generators.add(record.model_b)
        answers = [a for a in (record.ab, record.ba) if a is not None]
        self.judged += any(a.status != "error" for a in answers)  # an error is no answer
        self.reviewed += bool(record.reviews)
        self.statuses.update(a.status for a in answers)
        for dim, acc in self.dims.items():
            acc.add(record, dim)

    def finish(self, name: str, *, seed: int, resamples: int, rubric: str) -> Section:
        answers = sum(self.statuses.values())
        failures, errors = self.statuses["parse-failure"], self.statuses["error"]
        key = f"{rubric}:{name}"
        return Section(
            name=name,
            baseline=_only(self.baselines),
            generator=_only(self.generators),
            generators=len(self.generators - {None}),
            pairs=self.pairs,
            judged=self.judged,
            reviewed=self.reviewed,
            answers=answers,
            parse_failures=failures,
            errors=errors,
            parse_failure_rate=_share(failures, answers - errors),
            dimensions=[
                acc.finish(d, key, seed=seed, resamples=resamples) for d, acc in self.dims.items()
            ],
        )
