"""Ratings across generators (`tiebreak stats --ratings`): Bradley-Terry ratings of every
model named as a pair's ``model_a`` or ``model_b``, on the Elo scale (400 points are 10:1
odds, mean 1000 or one model anchored), with 95% intervals by the sandwich estimator and
by bootstrap, ranks that respect the intervals, and the win rate between every two. The
arithmetic is ``domain.ratings`` (equal to LMArena's arena-rank).

A verdict is a battle between the pair's two generators, B's score the value: B 1, a tie
0.5 (half a win each way), A 0, or the judge's fractional preference where a file gave one.
The judge's verdicts count one per pair (both orders combined, as everywhere); the
reviewers' (``humans``) one per reviewer's current verdict, as Arena counts every vote. A
pair without two different generator names says nothing about ratings and is counted as
left out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop.adapters.store.pair_reader import PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import rubric_names
from desktop.domain.errors import TiebreakError
from desktop.domain.head_to_head import b_score
from desktop.domain.judge_policy import policy_for
from desktop.domain.limits import MAX_ROUNDS, SQLITE_MAX
from desktop.domain.pair_view import PairView
from desktop.services.figure_formats import DASH, count
from desktop.services.figures import Column
from desktop.services.rubric_choice import Judge, dimensions_of, pick_judge, require_rubric

if TYPE_CHECKING:  # numpy loads when ratings are first computed
    from desktop.domain.answer_measures import Style
    from desktop.domain.ratings import Ratings

HUMANS = "reviewers"
_COLUMNS = ("id", "model_a", "model_b")


@dataclass(frozen=True)
class ModelRating:
    """One generator's row, in rating order."""

    model: str
    rating: float
    sandwich: tuple[float, float]  # the interval by the sandwich estimator
    sandwich_rank: int  # 1 + the models whose lower bound is above this upper bound
    bootstrap: tuple[float, float] | None  # by bootstrap; None with --rounds 0
    bootstrap_rank: int | None
    battles: int  # verdicts it took part in


@dataclass(frozen=True)
class GeneratorRatings:
    """The ratings of one rubric's dimension, from one source of verdicts."""

    rubric: str
    dimension: str
    source: str  # the judge's name, or "reviewers"
    verdicts: int  # battles rated
    left_out: int  # verdicts on pairs without two different generator names
    models: list[ModelRating]  # highest rating first; empty with fewer than two generators
    #: win_rate[i][j]: the share of verdicts between models[i] and models[j] that went to
    #: models[i] (a tie half), None where they never met; expected_win_rate what the
    #: ratings predict for it.
    win_rate: list[list[float | None]]
    expected_win_rate: list[list[float]]
    mle_exists: bool  # False: a model won or lost every verdict; its interval means little
    level: float
    rounds: int
    seed: int
    anchor: tuple[str, float] | None
    style: StyleControl | None = None  # with --style-control


@dataclass(frozen=True)
class StyleCoefficient:
    """One style feature's coefficient, in log-odds per standard deviation of the feature
    (A's answer against B's, relative to their size): above 0, more of it wins more."""

    feature: str  # tokens, headers, lists or bold
    value: float
    sandwich: tuple[float, float]
    bootstrap: tuple[float, float] | None


@dataclass(frozen=True)
class StyleControl:
    """The same battles rated with the answers' style accounted for (Chatbot Arena's style
    control): ``models`` in the order of the plain ratings, ``shift`` each one's controlled
    rating less its plain one."""

    tokenizer: str  # what counted the tokens: "tiktoken cl100k_base..." or characters
    coefficients: list[StyleCoefficient]
    models: list[ModelRating]
    shift: list[float]


def rate_generators(
    store: ProjectStore,
    rubric: str | None = None,
    judge_model: Judge = None,
    *,
    humans: bool = False,
    anchor: tuple[str, float] | None = None,
    rounds: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    style_control: bool = False,
) -> list[GeneratorRatings]:
    """Ratings per rubric (the one named, else every rubric with verdicts) and dimension,
    from the judge's verdicts (``judge_model``, default the latest used) or, with
    ``humans``, the reviewers'. ``anchor`` (model, rating) puts that model at that rating
    instead of the mean at 1000; ``rounds`` bootstrap rounds, seeded by ``seed`` (0: no
    bootstrap). ``style_control``: also the ratings with the answers' length and markdown
    accounted for (``StyleControl``). Errors are one-line ``TiebreakError``s."""
    if not 0 <= rounds <= MAX_ROUNDS:
        raise TiebreakError(f"--rounds must be from 0 to {MAX_ROUNDS:,}, got {rounds:,}")
    if not 0 <= seed <= SQLITE_MAX:
        raise TiebreakError(f"--seed must be from 0 to {SQLITE_MAX:,}, got {seed}")
    if not 0.0 < level < 1.0:
        raise TiebreakError(f"the intervals' level must be between 0 and 1, got {level}")
    names = rubric_names(store)
    if rubric is not None:
        names = [require_rubric(store, rubric, names)]
    fit = _Fit(anchor, rounds, seed, level, style_control)
    return [r for name in names for r in _rubric_ratings(store, name, judge_model, humans, fit)]


@dataclass(frozen=True)
class _Fit:
    anchor: tuple[str, float] | None
    rounds: int
    seed: int
    level: float
    style_control: bool = False


def _rubric_ratings(
    store: ProjectStore, rubric: str, judge_model: Judge, humans: bool, fit: _Fit
) -> list[GeneratorRatings]:
    dims = dimensions_of(store, rubric)
    policy = None if humans else policy_for(pick_judge(store, rubric, judge_model))
    source = HUMANS if policy is None else (policy.name or DASH)
    battles: dict[str, tuple[list[str], list[str], list[float]]] = {d: ([], [], []) for d in dims}
    styled: dict[str, list[int]] = {d: [] for d in dims}  # each battle's pair, for its style
    left_out = dict.fromkeys(dims, 0)
    query = PairQuery(rubric, () if policy is None else policy.judges, _COLUMNS, reviews=humans)
    for record in read_pairs(store, query):
        view = PairView(record, policy, accepted=False)  # accepts agree with the judge
        if humans and view.broken:
            continue
        a, b = record.model_a, record.model_b
        rated = bool(a) and bool(b) and a != b
        for dim in dims:
            if policy is None:
                scores = [b_score(r.verdict) for r in view.reviews_of(dim)]
            else:
                scores = [b_score(view.judge(dim).verdict, view.preference(dim))]
            for score in scores:
                if score is None:
                    continue
                if not rated:
                    left_out[dim] += 1
                    continue
                side_a, side_b, values = battles[dim]
                side_a.append(str(a))
                side_b.append(str(b))
                values.append(score)
                styled[dim].append(record.id)
    fitted = [_fitted(rubric, dim, source, battles[dim], left_out[dim], fit) for dim in dims]
    if not fit.style_control:
        return fitted
    from desktop.services.answer_measuring import Measurer, styles_of

    measurer = Measurer()
    styles = styles_of(store, {i for ids in styled.values() for i in ids}, measurer)
    return [
        _with_style(
            r,
            battles[dim],
            [styles[i] for i in styled[dim]],
            measurer.tokenizer,
            fit,
        )
        for r, dim in zip(fitted, dims, strict=True)
    ]


def _with_style(
    r: GeneratorRatings,
    battles: tuple[Sequence[str], Sequence[str], Sequence[float]],
    styles: list[tuple[Style, Style]],
    tokenizer: str,
    fit: _Fit,
) -> GeneratorRatings:
    if not r.models:
        return r
    import numpy as np

    from desktop.domain.style_features import FEATURES
    from desktop.domain.style_ratings import style_ratings

    model_a, model_b, scores = battles
    s = style_ratings(
        model_a,
        model_b,
        scores,
        np.array([x for x, _ in styles], dtype=float),
        np.array([y for _, y in styles], dtype=float),
        rounds=fit.rounds,
        seed=fit.seed,
        level=fit.level,
        anchor=fit.anchor,
    )
    plain = {m.model: m for m in r.models}
    models = [
        ModelRating(
            model=m.model,
            rating=s.rating[i],
            sandwich=s.sandwich[i],
            sandwich_rank=s.sandwich_rank[i],
            bootstrap=None if s.bootstrap is None else s.bootstrap[i],
            bootstrap_rank=None if s.bootstrap_rank is None else s.bootstrap_rank[i],
            battles=m.battles,
        )
        for m in r.models
        for i in [s.models.index(m.model)]
    ]
    coefficients = [
        StyleCoefficient(
            feature,
            s.coefficient[f],
            s.coefficient_sandwich[f],
            None if s.coefficient_bootstrap is None else s.coefficient_bootstrap[f],
        )
        for f, feature in enumerate(FEATURES)
    ]
    shift = [m.rating - plain[m.model].rating for m in models]
    return dataclasses.replace(r, style=StyleControl(tokenizer, coefficients, models, shift))


def _fitted(
    rubric: str,
    dimension: str,
    source: str,
    battles: tuple[Sequence[str], Sequence[str], Sequence[float]],
    left_out: int,
    fit: _Fit,
) -> GeneratorRatings:
    from desktop.domain.ratings import model_ratings

    model_a, model_b, scores = battles
    anchor = fit.anchor
    models = set(model_a) | set(model_b)
    if len(models) < 2:  # nothing to rate
        return GeneratorRatings(
            rubric,
            dimension,
            source,
            len(scores),
            left_out,
            [],
            [],
            [],
            True,
            fit.level,
            fit.rounds,
            fit.seed,
            anchor,
        )  # fmt: skip  (thirteen values, one line each otherwise)
    if anchor is not None and anchor[0] not in models:
        raise TiebreakError(
            f"--anchor: {anchor[0]!r} is not among the rated generators of rubric {rubric}"
            f" ({', '.join(sorted(models))})"
        )
    fitted = model_ratings(
        model_a, model_b, scores, rounds=fit.rounds, seed=fit.seed, level=fit.level, anchor=anchor
    )
    return _report(rubric, dimension, source, fitted, len(scores), left_out, anchor)


def _report(
    rubric: str,
    dimension: str,
    source: str,
    r: Ratings,
    verdicts: int,
    left_out: int,
    anchor: tuple[str, float] | None,
) -> GeneratorRatings:
    order = r.by_rating()
    models = [
        ModelRating(
            model=r.models[i],
            rating=r.rating[i],
            sandwich=r.sandwich[i],
            sandwich_rank=r.sandwich_rank[i],
            bootstrap=None if r.bootstrap is None else r.bootstrap[i],
            bootstrap_rank=None if r.bootstrap_rank is None else r.bootstrap_rank[i],
            battles=r.battles[i],
        )
        for i in order
    ]
    return GeneratorRatings(
        rubric=rubric,
        dimension=dimension,
        source=source,
        verdicts=verdicts,
        left_out=left_out,
        models=models,
        win_rate=[[r.win_rate[i][j] for j in order] for i in order],
        expected_win_rate=[[r.expected_win_rate[i][j] for j in order] for i in order],
        mle_exists=r.mle_exists,
        level=r.level,
        rounds=r.rounds,
        seed=r.seed,
        anchor=anchor,
    )


def _interval(bounds: tuple[float, float] | None) -> str:
    return DASH if bounds is None else f"{bounds[0]:.1f}–{bounds[1]:.1f}"


def _rating(value: float) -> str:
    return f"{value:.1f}"


def _rank(value: int | None) -> str:
    return DASH if value is None else str(value)


#: The ratings table after the generator's name, one row per ModelRating.
COLUMNS: tuple[Column, ...] = (
    Column("rating", "rating", 8, lambda m: m.rating, _rating, gap=2),
    Column("sandwich", "interval (sandwich)", -19, lambda m: m.sandwich, _interval, gap=2),
    Column("sandwich_rank", "rank", 4, lambda m: m.sandwich_rank, _rank),
    Column("bootstrap", "interval (bootstrap)", -20, lambda m: m.bootstrap, _interval, gap=2),
    Column("bootstrap_rank", "rank", 4, lambda m: m.bootstrap_rank, _rank),
    Column("battles", "verdicts", 9, lambda m: m.battles, count),
)
