"""`tiebreak stats`: the agreement figures of a project's verdicts (judge against
reviewers, reviewers among themselves), the flips between two rubrics or judges, the
generators' ratings and the leaderboard by model."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop.cli import arg_types
from desktop.cli.lc_options import add_lc_options, lc_choice
from desktop.cli.terminal import say
from desktop.domain.errors import TiebreakError

if TYPE_CHECKING:
    from desktop.services.jury_stats import JuryStats
    from desktop.services.projects import ProjectStore


def add_stats_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`tiebreak stats`, added where ``verdict_commands`` lists it in --help."""
    p = sub.add_parser(
        "stats", help="agreement figures: judge against reviewers, reviewers among themselves"
    )
    p.add_argument("project", type=Path)
    p.add_argument("--rubric", help="default: every rubric with verdicts")
    p.add_argument("--judge-model", help="whose judge verdicts (default: the latest used)")
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--compare-rubric",
        metavar="RUBRIC",
        help="instead: which verdicts flip between --rubric and this rubric",
    )
    p.add_argument(
        "--compare-model",
        metavar="MODEL",
        help="instead: which verdicts flip between --judge-model and this judge",
    )
    p.add_argument(
        "--limit",
        type=arg_types.count_or_all,
        default=20,
        help="flips to list (default 20; JSON: all)",
    )
    p.add_argument("--seed", type=arg_types.seed, default=0, help="seed of the bootstrap intervals")
    p.add_argument(
        "--reference-rubric",
        metavar="RUBRIC",
        help="the human verdicts are the reviewers' of this rubric, on its dimensions of the"
        " same name (another rubric's judge measured against those people)",
    )
    p.add_argument(
        "--include-accepted",
        action="store_true",
        help="count verdicts accepted from the judge (Enter) as the reviewers' own; left"
        " out by default, since they agree with the judge by construction",
    )
    p.add_argument(
        "--alpha",
        type=arg_types.alpha,
        default=0.05,
        help="the win rates' intervals are at level 1 - ALPHA (default 0.05: 95%%)",
    )
    p.add_argument(
        "--target",
        type=arg_types.points,
        metavar="±POINTS",
        help="how many more human verdicts bring the PPI++ interval to ±POINTS (say ±2)",
    )
    p.add_argument(
        "--by",
        choices=["model", "turn"],
        help="model: instead, one row per generator (model_b against model_a as baseline),"
        " AlpacaEval's leaderboard; turn: the figures of each compared turn apart too",
    )
    add_lc_options(p, where="--by model: ")
    p.add_argument(
        "--ratings",
        action="store_true",
        help="instead: Bradley-Terry ratings of every generator (model_a and model_b) on the"
        " Elo scale, with intervals, ranks and the win rate between every two",
    )
    p.add_argument(
        "--humans",
        action="store_true",
        help="--ratings from the reviewers' verdicts rather than the judge's",
    )
    p.add_argument(
        "--anchor",
        type=arg_types.anchor,
        metavar="MODEL=RATING",
        help="--ratings: give MODEL this rating (default: the ratings average 1000)",
    )
    p.add_argument(
        "--rounds",
        type=arg_types.rounds,
        metavar="N",
        help="--ratings: bootstrap rounds (default 1000; 0: the sandwich intervals only)",
    )
    p.add_argument(
        "--style-control",
        action="store_true",
        help="--ratings: also the ratings with the answers' length and markdown (headers,"
        " lists, bold) accounted for, as Chatbot Arena's style control, and the style"
        " coefficients",
    )
    p.set_defaults(func=cmd_stats)


def chosen_rubric(store: ProjectStore, args: argparse.Namespace, hint: str = "") -> str:
    """The rubric named with --rubric, else the project's only one with verdicts."""
    from desktop.services.rubric_choice import choose_rubric

    rubric = args.rubric or choose_rubric(store, None)
    if rubric is None:
        raise TiebreakError(f"{args.project}: no rubric has verdicts yet{hint}")
    return rubric


def cmd_stats(args: argparse.Namespace) -> int:
    from desktop.cli.stats_format import comparison_lines, stats_lines
    from desktop.cli.terminal import print_json, say_blocks
    from desktop.domain.agreement import LABELS
    from desktop.services.projects import open_project

    _check_stats_options(args)
    with open_project(args.project, readonly=True) as store:
        if args.ratings:
            return _ratings(store, args)
        if args.compare_rubric or args.compare_model:
            from desktop.services.compare import compare

            rubric = chosen_rubric(store, args)
            result = compare(
                store,
                rubric,
                args.judge_model,
                other_rubric=args.compare_rubric,
                other_model=args.compare_model,
            )
            if args.json:
                print_json({"labels": [str(v) for v in LABELS], **dataclasses.asdict(result)})
            else:
                say(*comparison_lines(result, limit=args.limit))
            return 0
        if args.by == "model":
            return _by_model(store, args)
        from desktop.services.stats import compute_stats

        stats = compute_stats(
            store,
            args.rubric,
            args.judge_model,
            seed=args.seed,
            alpha=args.alpha,
            target=args.target,
            by_turn=args.by == "turn",
            include_accepted=args.include_accepted,
            reference_rubric=args.reference_rubric,
        )
        from desktop.services.jury_stats import jury_stats

        juries = {s.rubric: jury_stats(store, s.rubric, s.judge_model) for s in stats}
    if args.json:
        print_json(
            {
                "labels": [str(v) for v in LABELS],
                "seed": args.seed,
                "alpha": args.alpha,
                "rubrics": [_with_jury(dataclasses.asdict(s), juries[s.rubric]) for s in stats],
            }
        )
        return 0
    if not stats:
        say(f"{args.project}: no verdicts yet")
        return 0
    say_blocks(stats_lines(s) + _jury_lines(juries[s.rubric]) for s in stats)
    return 0


def _with_jury(figures: dict[str, Any], jury: JuryStats | None) -> dict[str, Any]:
    """A rubric's figures in --json, with its jury's (``jury``: null for one judge)."""
    return {**figures, "jury": dataclasses.asdict(jury) if jury is not None else None}


def _jury_lines(jury: JuryStats | None) -> list[str]:
    from desktop.cli.jury_format import jury_lines

    return ["", *jury_lines(jury)] if jury is not None else []


def _check_stats_options(args: argparse.Namespace) -> None:
    """Options that belong to another view of the figures are refused in one line."""
    if args.ratings and (args.by or args.compare_rubric or args.compare_model):
        raise TiebreakError("--ratings goes alone: not with --by or --compare-*")
    if not args.ratings:
        given = [
            name for name in ("humans", "anchor", "rounds", "style_control") if getattr(args, name)
        ]
        given += ["rounds"] if args.rounds == 0 else []
        if given:
            raise TiebreakError(f"--{given[0].replace('_', '-')} goes with --ratings")


def _ratings(store: ProjectStore, args: argparse.Namespace) -> int:
    from desktop.cli.stats_format import ratings_lines
    from desktop.cli.terminal import print_json, say_blocks
    from desktop.services.ratings import rate_generators

    found = rate_generators(
        store,
        args.rubric,
        args.judge_model,
        humans=args.humans,
        anchor=args.anchor,
        rounds=1000 if args.rounds is None else args.rounds,
        seed=args.seed,
        level=1 - args.alpha,
        style_control=args.style_control,
    )
    if args.json:
        print_json({"ratings": [dataclasses.asdict(r) for r in found]})
    elif not found:
        say(f"{args.project}: no verdicts yet")
    else:
        say_blocks(ratings_lines(r) for r in found)
    return 0


def _by_model(store: ProjectStore, args: argparse.Namespace) -> int:
    from desktop.cli.stats_format import leaderboard_lines
    from desktop.cli.terminal import print_json, say_blocks
    from desktop.services.leaderboard import leaderboard
    from desktop.services.rubric_choice import chosen_rubrics

    names = chosen_rubrics(store, args.rubric)
    lc, gamed = lc_choice(args)
    boards = [
        leaderboard(store, name, args.judge_model, alpha=args.alpha, lc=lc, gamed=gamed)
        for name in names
    ]
    if args.json:
        print_json({"rubrics": [dataclasses.asdict(b) for b in boards]})
    elif not boards:
        say(f"{args.project}: no verdicts yet")
    else:
        say_blocks(leaderboard_lines(b) for b in boards)
    return 0
