"""`tiebreak override`, `sample`, `judges`, `merge` and `queue`: the verdicts in a project
(set one by hand, a sample to review, every judge's answers, another reviewer's verdicts,
and the order a human look is worth most); `stats`, listed among them, is
``stats_commands``'s."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

from desktop.cli import arg_types
from desktop.cli.stats_commands import add_stats_parser, chosen_rubric
from desktop.cli.terminal import say
from desktop.domain.errors import TiebreakError


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

    add_stats_parser(sub)

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
        rubric = chosen_rubric(store, args, "; name one with --rubric")
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


def cmd_sample(args: argparse.Namespace) -> int:
    from desktop.cli.terminal import print_json
    from desktop.services.projects import open_project
    from desktop.services.review_samples import draw_review_sample

    with open_project(args.project) as store:
        rubric = chosen_rubric(store, args, "; name one with --rubric")
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
        rubric = chosen_rubric(store, args, "; name one with --rubric")
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
        rubric = chosen_rubric(store, args, "; name one with --rubric")
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
