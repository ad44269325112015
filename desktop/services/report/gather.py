"""The figures a report shows: for each rubric, each judge with answers and each jury kept,
`stats`' figures (``services.stats.rubric_stats``), a jury's own (``jury_stats``) and the
judge's leaderboard, one row per generator (``services.leaderboard``, as `stats --by model`
gives it); and the ratings of the generators from each judge's verdicts and from the reviewers'
(``services.ratings``, sandwich intervals: a report is made in seconds, and Arena's own
intervals are these); and which judge to trust, per dimension and reference (the reviewers'
consensus, the gold labels) that the pairs carry (``services.judge_selection``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from desktop.adapters.profiles_file import load_profiles
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import judge_models
from desktop.adapters.store.rubrics import rubric_names
from desktop.domain.errors import TiebreakError
from desktop.domain.length_control import MINIMAL, GamedData
from desktop.services.figure_charts import source_ratings
from desktop.services.judge_selection import AGAINST, Selection, judge_selection
from desktop.services.juries import jury_names
from desktop.services.jury_stats import JuryStats, jury_stats
from desktop.services.leaderboard import Leaderboard, leaderboard
from desktop.services.ratings import GeneratorRatings
from desktop.services.rubric_choice import dimensions_of, require_rubric
from desktop.services.stats import Stats, rubric_stats


@dataclass(frozen=True)
class JudgeFigures:
    stats: Stats  # its judge_model: the judge's (or jury's) name; None: no judge yet
    jury: JuryStats | None  # a jury's own figures
    board: Leaderboard | None  # one row per generator and baseline; None: no judge yet


@dataclass(frozen=True)
class RubricFigures:
    rubric: str
    judges: list[JudgeFigures]  # judges most recent first, then the juries
    # Per judge (as ``judges``), then the reviewers: each dimension's ratings where the
    # verdicts name two generators or more.
    ratings: list[GeneratorRatings]
    # The judge-selection table per dimension and reference the pairs have ([]: none).
    selections: list[Selection]


def selections(store: ProjectStore, rubric: str, *, alpha: float, seed: int) -> list[Selection]:
    """Every table the rubric's pairs allow: a reference without a pair (no gold labels,
    no reviewer yet) or no judge at all leaves that table out rather than an empty one."""
    profiles = list(load_profiles().values())
    out = []
    for dimension in dimensions_of(store, rubric):
        tables = []
        for against in AGAINST:
            try:
                tables.append(
                    judge_selection(
                        store,
                        rubric,
                        dimension=dimension,
                        against=against,
                        alpha=alpha,
                        seed=seed,
                        profiles=profiles,
                    )
                )
            except TiebreakError:
                continue
        # Where the only reviewers' verdicts are the gold labels (a JudgeBench or
        # chosen/rejected file), the two tables are one: the gold one says what it is.
        if len(tables) == 2 and tables[0].table == tables[1].table:
            tables = tables[1:]
        out += tables
    return out


def gather(
    store: ProjectStore,
    rubrics: Sequence[str] = (),
    *,
    alpha: float,
    seed: int,
    lc: str | None = MINIMAL,
    gamed: GamedData | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[RubricFigures]:
    """Every rubric's figures (those named, else every rubric with verdicts);
    ``progress`` is told how many judge sections are done."""
    names = [require_rubric(store, r) for r in rubrics] or rubric_names(store)
    out = []
    done = 0
    for rubric in names:
        judges: list[str | None] = [*judge_models(store, rubric), *jury_names(store, rubric)]
        figures = []
        for judge in judges or [None]:  # a rubric with reviewers' verdicts only
            stats = rubric_stats(store, rubric, judge, seed=seed, alpha=alpha)
            board = (
                None
                if judge is None
                else leaderboard(store, rubric, judge, alpha=alpha, lc=lc, gamed=gamed)
            )
            figures.append(JudgeFigures(stats, jury_stats(store, rubric, judge), board))
            done += 1
            if progress is not None:
                progress(done)
        out.append(
            RubricFigures(
                rubric,
                figures,
                source_ratings(store, rubric, judges, 1 - alpha, style_control=True),
                selections(store, rubric, alpha=alpha, seed=seed) if judges else [],
            )
        )
    return out
