"""`stats --by model`: one row per generator, the shape of AlpacaEval's leaderboard.

Each pair's ``model_b`` is the generator and its ``model_a`` the baseline (AlpacaEval puts
the baseline in ``output_1``). Per dimension and (generator, baseline), the judge's
preferences give AlpacaEval's figures (``domain.head_to_head``); ``avg_length`` is, as
AlpacaEval's ``evaluate`` computes it, the mean length in characters of the generator's
outputs (every pair of it, judged or not), cut to an integer.

Beside them, per row, B's win rate three ways (the judge alone, the reviewers alone and
PPI++, ``figure_fits.WinRatesFit``), over that generator's pairs, at level 1 - alpha and
weighted by the rubric's latest sample as ``stats`` weights it.

And AlpacaEval 2.0's length-controlled win rate (``domain.length_control``, the variant
named wherever it is shown), or the one line that says why a row has none.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

from desktop.adapters.store.pair_reader import FIGURE_COLUMNS, PairQuery, read_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError
from desktop.domain.head_to_head import HeadToHead, HeadToHeadCounter
from desktop.domain.judge_policy import policy_for
from desktop.domain.length_control import MINIMAL, V1, GamedData
from desktop.domain.pair_view import PairView
from desktop.services.figure_fits import DEFAULT_ALPHA, WinRatesFit, fit_context
from desktop.services.figure_formats import DASH, num4, plain
from desktop.services.figure_sources import Finish, pair_facts
from desktop.services.figures import PER_GENERATOR, WIN_RATES, Column, by_name
from desktop.services.length_controlled import (
    GeneratorRows,
    LcFigure,
    baseline_orders,
    lc_figure,
)
from desktop.services.rubric_choice import Judge, dimensions_of, pick_judge

if TYPE_CHECKING:
    from desktop.domain.prediction_powered import WinRateEstimates


@dataclass(frozen=True, kw_only=True)
class LeaderboardRow(HeadToHead):
    """AlpacaEval's figures for one generator, flat, as a row of its leaderboard."""

    dimension: str
    generator: str | None
    baseline: str | None
    avg_length: int
    win_rates: WinRateEstimates | None = None  # the judge alone, the humans alone, PPI++
    # AlpacaEval 2.0's length-controlled win rate (Leaderboard.lc names the variant), or
    # lc_reason: why this row has none.
    lc_win_rate: float | None = None
    lc_standard_error: float | None = None
    lc_reason: str | None = None


#: The leaderboard's columns after the generator's and the baseline's, as AlpacaEval's CSV
#: writes its numbers (no thousands separators).
COLUMNS: tuple[Column, ...] = (
    Column("win_rate", "win rate", 8, lambda r: r.win_rate, num4, gap=2),
    Column("standard_error", "std error", 9, lambda r: r.standard_error, num4),
    Column("n_wins", "wins", 6, lambda r: r.n_wins, plain),
    Column("n_wins_base", "losses", 6, lambda r: r.n_wins_base, plain),
    Column("n_draws", "draws", 5, lambda r: r.n_draws, plain),
    Column("n_total", "n", 6, lambda r: r.n_total, plain),
    Column("discrete_win_rate", "discrete", 8, lambda r: r.discrete_win_rate, num4),
    Column("avg_length", "avg length", 10, lambda r: r.avg_length, plain),
)
#: The length-controlled win rate and its standard error, where one was asked for.
LC_COLUMNS: tuple[Column, ...] = (
    Column("lc_win_rate", "LC win rate", 11, lambda r: r.lc_win_rate, num4, gap=2),
    Column("lc_standard_error", "LC std err", 10, lambda r: r.lc_standard_error, num4),
)


def name_columns(rows: list[LeaderboardRow]) -> tuple[Column, Column]:
    """The generator's and the baseline's columns, as wide as their longest name."""
    width = max([10, *(len(r.generator or DASH) for r in rows)])
    base = max([9, *(len(r.baseline or DASH) for r in rows)])
    return (
        Column("generator", "generator", -width, lambda r: r.generator or DASH, str, gap=0),
        Column("baseline", "baseline", -base, lambda r: r.baseline or DASH, str, gap=2),
    )


@dataclass(frozen=True)
class Leaderboard:
    rubric: str
    judge_model: str | None
    rows: list[LeaderboardRow]  # per dimension, best win rate first
    alpha: float = DEFAULT_ALPHA  # the win rates' intervals are at level 1 - alpha
    lc: str | None = MINIMAL  # the length-controlled variant (None: not computed)


def lc_note(board: Leaderboard) -> list[str]:
    """What the LC columns are, and one line per row without a figure (its dash's why)."""
    if board.lc is None:
        return []
    which = (
        "the leaderboard's variant, with the df_gamed.csv given"
        if board.lc == V1
        else f"not the leaderboard's {V1}, which needs AlpacaEval's df_gamed.csv: --lc-files"
    )
    lines = [f"LC: AlpacaEval 2.0's length-controlled win rate, variant {board.lc} ({which})"]
    if board.lc == MINIMAL and any(r.lc_win_rate is not None for r in board.rows):
        lines.append(
            "  its std error is 0 as alpaca-eval computes it: with no per-instruction term,"
            " every pair gets the same prediction"
        )
    for r in board.rows:
        if r.lc_reason is not None:
            lines.append(f"  – {r.generator or DASH} ({r.dimension}): {r.lc_reason}")
    return lines


def shown_columns(board: Leaderboard) -> tuple[list[Column], str | None]:
    """The columns `stats --by model` and the report show: the names, AlpacaEval's figures
    and, where reviewers gave verdicts, B's win rate three ways, with the sentence that
    says what those are (None where they are not shown)."""
    columns = [*name_columns(board.rows), *COLUMNS, *(LC_COLUMNS if board.lc else ())]
    if not any(r.win_rates is not None and r.win_rates.humans is not None for r in board.rows):
        return columns, None
    first, *rest = by_name(WIN_RATES, PER_GENERATOR)
    level = f"{100 * (1 - board.alpha):g}%"
    return [*columns, replace(first, gap=2), *rest], (
        "B's win rate by the judge alone, the humans alone and PPI++ (the reviewers correct"
        f" the judge), {level} intervals, over each generator's pairs"
    )


def leaderboard(
    store: ProjectStore,
    rubric: str,
    judge_model: Judge = None,
    *,
    alpha: float = DEFAULT_ALPHA,
    lc: str | None = MINIMAL,
    gamed: GamedData | None = None,
) -> Leaderboard:
    if not 0.0 < alpha < 1.0:
        raise TiebreakError(f"--alpha must be between 0 and 1, got {alpha}")
    policy = policy_for(pick_judge(store, rubric, judge_model))
    dims = dimensions_of(store, rubric)
    counters: dict[tuple[str | None, str | None], dict[str, HeadToHeadCounter]] = {}
    fits: dict[tuple[str | None, str | None], dict[str, WinRatesFit]] = {}
    lengths: dict[tuple[str | None, str | None], list[int]] = {}
    lc_rows: dict[tuple[str | None, str | None], GeneratorRows] = {}
    columns = (*FIGURE_COLUMNS, "instruction") if lc else FIGURE_COLUMNS
    for record in read_pairs(store, PairQuery(rubric, policy.judges, columns)):
        view = PairView(record, policy, accepted=False)  # accepts agree with the judge
        key = (record.model_b, record.model_a)
        if lc:
            # A broken pair stays a row, with no preference (AlpacaEval's NaN).
            prefs = (
                {} if view.broken else {p.dimension: p.preference for p in pair_facts(view, dims)}
            )
            got = lc_rows.setdefault(key, GeneratorRows())
            got.add(record.fields.instruction or "", record.len_a, record.len_b, prefs)
        if view.broken:
            continue
        total = lengths.setdefault(key, [0, 0])
        total[0] += record.len_b
        total[1] += 1
        if key not in counters:
            counters[key] = {d: HeadToHeadCounter() for d in dims}
            fits[key] = {d: WinRatesFit() for d in dims}
        per_dim, fit = counters[key], fits[key]
        for p in pair_facts(view, dims):
            if p.preference is not None:
                per_dim[p.dimension].add(p.preference)
            fit[p.dimension].add(p)
    context, _, _ = fit_context(store, rubric, alpha=alpha)
    orders = baseline_orders(lc_rows)
    rows = []
    for dim in dims:
        block = []
        for (generator, baseline), per_dim in counters.items():
            length, count = lengths[(generator, baseline)]
            win_rates = fits[(generator, baseline)][dim].finish(Finish(dim, "", 0, fits=context))
            figure = LcFigure()
            if lc:
                got = lc_rows[(generator, baseline)]
                order = orders.get(baseline or "")
                figure = lc_figure(generator, baseline, got, dim, order, lc, gamed)
            block.append(
                LeaderboardRow(
                    **asdict(per_dim[dim].finish()),
                    dimension=dim,
                    generator=generator,
                    baseline=baseline,
                    avg_length=int(length / count),
                    win_rates=win_rates,
                    lc_win_rate=figure.win_rate,
                    lc_standard_error=figure.standard_error,
                    lc_reason=figure.reason,
                )
            )
        block.sort(key=lambda r: (r.win_rate is None, -(r.win_rate or 0), r.generator or ""))
        rows += block
    return Leaderboard(rubric, policy.name or None, rows, alpha, lc)
