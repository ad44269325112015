"""`tiebreak override`, `stats`, `judges`, `merge` and `queue`: the verdicts in a project
(set one by hand, agreement figures, every judge's answers, another reviewer's verdicts,
and the order a human look is worth most)."""

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


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("override", help="set the reviewer's verdict on one dimension of a pair")
    p.add_argument("project", type=Path)
    p.add_argument("pair_id", help="the pair's external id, or #N for its row number")
    p.add_argument("dimension")
    p.add_argument(
        "verdict",
        help="A, B, tie, bothbad (a tie, both bad), skip (decide later), broken (the pair"
        " cannot be judged: give the reason with --note), or 'clear' to withdraw",
    )
    p.add_argument("--rubric")
    p.add_argument(
        "--note",
        help="the reason, kept until you change it (a later verdict without --note keeps"
        " it; --note '' clears it)",
    )
    p.add_argument(
        "--adjudicate",
        action="store_true",
        help="settle the dimension as adjudicator: your verdict becomes its label",
    )
    p.add_argument("--reviewer", help="default: $TIEBREAK_REVIEWER or the login name")
    p.set_defaults(func=cmd_override)

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

    p = sub.add_parser(
        "sample",
        help="draw a seeded sample of judged pairs to review, so figures over them stay unbiased",
    )
    p.add_argument("project", type=Path)
    p.add_argument("--rubric", help="default: the project's only rubric with verdicts")
    p.add_argument("--judge-model", help="whose verdicts (default: the latest used)")
    p.add_argument("--size", type=arg_types.positive_int, required=True, help="pairs to draw")
    p.add_argument(
        "--method",
        choices=["uniform", "uncertain"],
        default="uniform",
        help="uniform, or favouring uncertain verdicts (low confidence, flips, jury splits)",
    )
    p.add_argument(
        "--floor",
        type=arg_types.floor,
        default=0.2,
        help="uncertain: the surest verdict's chance relative to the least sure (default 0.2)",
    )
    p.add_argument("--seed", type=arg_types.seed, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_sample)

    p = sub.add_parser(
        "judges", help="every judge with answers: per rubric, answers, failures, errors, when"
    )
    p.add_argument("project", type=Path)
    p.add_argument(
        "--against",
        choices=("reviewers", "gold"),
        help="instead: the judge-selection table, every judge configuration and jury scored"
        " against the reviewers' consensus or the gold labels imported with the data",
    )
    p.add_argument("--rubric", help="with --against: the rubric (default: the only one)")
    p.add_argument("--dimension", help="with --against: the dimension (default: the first)")
    p.add_argument(
        "--by",
        choices=("judgebench", "rewardbench", "mtbench", "kappa", "pi"),
        default="judgebench",
        help="with --against: the figure that picks the best row (default judgebench)",
    )
    p.add_argument(
        "--alpha",
        type=arg_types.alpha,
        default=0.05,
        help="with --against: intervals at level 1 - ALPHA (default 0.05: 95%%)",
    )
    p.add_argument(
        "--rounds",
        type=arg_types.resamples,
        default=1000,
        metavar="N",
        help="with --against: paired bootstrap resamples (default 1000)",
    )
    p.add_argument("--seed", type=arg_types.seed, default=0)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_judges)

    p = sub.add_parser(
        "merge", help="merge another reviewer's verdicts from their project or an exported CSV"
    )
    p.add_argument("project", type=Path)
    p.add_argument("other", type=Path, help="a .tiebreak file, or a CSV/JSONL from 'export'")
    p.add_argument("--reviewer", help="who reviewed an exported file (default: its file name)")
    p.add_argument("--rubric", help="for an exported file: default its 'rubric' column")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser("queue", help="list pairs in the order a human look is worth most")
    p.add_argument("project", type=Path)
    p.add_argument("--rubric")
    p.add_argument("--judge-model", help="whose judge verdicts (default: the latest used)")
    p.add_argument("--reviewer", help="count only this reviewer's verdicts as reviewed")
    p.add_argument("--low-confidence", type=arg_types.probability, default=0.7, metavar="P")
    p.add_argument(
        "--sample",
        action="store_true",
        help="walk the latest sample ('tiebreak sample'): its pairs not yet reviewed, in the"
        " order drawn",
    )
    p.add_argument(
        "--limit", type=arg_types.count_or_all, default=50, help="pairs to list (0: all)"
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_queue)


def cmd_override(args: argparse.Namespace) -> int:
    from desktop.domain.errors import TiebreakError
    from desktop.domain.verdicts import ADJUDICATED, CLI, Mark
    from desktop.services.overrides import KEEP, override, parse_answer, split_answer
    from desktop.services.pair_lookup import find_pair
    from desktop.services.projects import open_project

    answer = None if args.verdict.lower() == "clear" else parse_answer(args.verdict)
    verdict, mark = split_answer(answer)
    if mark is Mark.BROKEN and not (args.note or "").strip():
        raise TiebreakError("a broken pair needs its reason: give it with --note")
    if args.adjudicate and (verdict is None or mark is Mark.SKIP):
        raise TiebreakError("an adjudicator settles with a verdict: A, B, tie or bothbad")
    with open_project(args.project) as store:
        rubric = _rubric(store, args, "; name one with --rubric")
        pair = find_pair(store, args.pair_id)
        override(
            store,
            pair,
            rubric=rubric,
            dimension=args.dimension,
            verdict=verdict,
            reviewer=args.reviewer,
            note=KEEP if args.note is None else args.note,
            mode=ADJUDICATED if args.adjudicate else CLI,
            mark=mark,
        )
    shown = answer.value if answer else "cleared"
    settled = ", adjudicated" if args.adjudicate else ""
    say(f"{pair.label}: {args.dimension} = {shown} (rubric {rubric}{settled})")
    return 0


def _rubric(store: ProjectStore, args: argparse.Namespace, hint: str = "") -> str:
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

            rubric = _rubric(store, args)
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


def cmd_sample(args: argparse.Namespace) -> int:
    from desktop.cli.terminal import print_json
    from desktop.services.projects import open_project
    from desktop.services.review_samples import draw_review_sample

    with open_project(args.project) as store:
        rubric = _rubric(store, args, "; name one with --rubric")
        drawn = draw_review_sample(
            store,
            rubric,
            args.size,
            judge_model=args.judge_model,
            method=args.method,
            seed=args.seed,
            floor=args.floor,
        )
    if args.json:
        print_json(dataclasses.asdict(drawn))
        return 0
    say(
        f"sample #{drawn.sample_id}: {drawn.size:,} of {drawn.frame:,} judged pairs"
        f" ({drawn.method}, seed {drawn.seed}; rubric {rubric}, judge {drawn.judge_model});"
        " review them in this order ('tiebreak stats' weights them by 1 / probability):"
    )
    say(*(f"  #{pid:<8} p={p:.4f}" for pid, p in drawn.pairs))
    return 0


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


def cmd_judges(args: argparse.Namespace) -> int:
    from desktop.cli.stats_format import judges_lines
    from desktop.cli.terminal import print_json
    from desktop.services.judges import judge_table
    from desktop.services.projects import open_project

    if args.against:
        return _judge_selection(args)
    with open_project(args.project, readonly=True) as store:
        table = judge_table(store)
    if args.json:
        print_json([row._asdict() for row in table])
    elif not table:
        say(f"{args.project}: no judge answers yet")
    else:
        say(*judges_lines(table))
    return 0


def _judge_selection(args: argparse.Namespace) -> int:
    from desktop.cli.judge_selection_format import selection_lines
    from desktop.cli.terminal import print_json
    from desktop.domain.judge_selection import Metric
    from desktop.services.judge_selection import judge_selection
    from desktop.services.profiles import load_profiles
    from desktop.services.projects import open_project

    with open_project(args.project, readonly=True) as store:
        rubric = _rubric(store, args, "; name one with --rubric")
        selection = judge_selection(
            store,
            rubric,
            dimension=args.dimension,
            against=args.against,
            primary=Metric(args.by),
            alpha=args.alpha,
            rounds=args.rounds,
            seed=args.seed,
            profiles=load_profiles().values(),
        )
    if args.json:
        print_json(dataclasses.asdict(selection))
    else:
        say(*selection_lines(selection))
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from desktop.services.merge import merge_file
    from desktop.services.projects import open_project

    with open_project(args.project) as store:
        report = merge_file(store, args.other, reviewer=args.reviewer, rubric=args.rubric)
    parts = [f"{report.records:,} {'pairs' if report.kind == 'project' else 'rows'} read"]
    parts.append(f"{report.matched:,} already in the project")
    if report.added_pairs:
        parts.append(f"{report.added_pairs:,} pairs added")
    parts.append(f"{report.verdicts_added:,} human verdicts added")
    if report.verdicts_present:
        parts.append(f"{report.verdicts_present:,} already there")
    who = f" (reviewers: {', '.join(sorted(report.reviewers))})" if report.reviewers else ""
    say(f"{args.other}: " + ", ".join(parts) + who)
    return 0


def cmd_queue(args: argparse.Namespace) -> int:
    from desktop.cli.stats_format import queue_lines
    from desktop.cli.terminal import print_json
    from desktop.services.projects import open_project
    from desktop.services.review_queue import queue_items

    with open_project(args.project, readonly=True) as store:
        rubric = _rubric(store, args, "; name one with --rubric")
        items = queue_items(
            store,
            rubric,
            args.judge_model,
            reviewer=args.reviewer,
            low_confidence=args.low_confidence,
            sample=args.sample,
        )
    shown = items[: args.limit] if args.limit else items
    if args.json:
        print_json([dataclasses.asdict(item) for item in shown])
    elif args.sample and not items:
        say(f"{args.project}: every pair of the latest sample is reviewed")
    else:
        say(*queue_lines(shown, len(items)))
    return 0
