"""`tiebreak override`, `stats`, `judges`, `merge` and `queue`: the verdicts in a project
(set one by hand, agreement figures, every judge's answers, another reviewer's verdicts,
and the order a human look is worth most)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli.arg_types import count_or_all, probability
from desktop.domain.errors import TiebreakError

if TYPE_CHECKING:
    from desktop.adapters.store.project import ProjectStore


def add_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("override", help="set the reviewer's verdict on one dimension of a pair")
    p.add_argument("project", type=Path)
    p.add_argument("pair_id", help="the pair's external id, or #N for its row number")
    p.add_argument("dimension")
    p.add_argument("verdict", help="A, B, tie, or 'clear' to withdraw")
    p.add_argument("--rubric")
    p.add_argument("--note")
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
        "--limit", type=count_or_all, default=20, help="flips to list (default 20; JSON: all)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap intervals")
    p.add_argument(
        "--by",
        choices=["model"],
        help="instead: one row per generator (model_b against model_a as baseline),"
        " AlpacaEval's leaderboard",
    )
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser(
        "judges", help="every judge with answers: per rubric, answers, failures, errors, when"
    )
    p.add_argument("project", type=Path)
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
    p.add_argument("--low-confidence", type=probability, default=0.7, metavar="P")
    p.add_argument("--limit", type=count_or_all, default=50, help="pairs to list (0: all)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_queue)


def cmd_override(args: argparse.Namespace) -> int:
    from desktop.adapters.store import open_project
    from desktop.adapters.store.pairs import find_pair
    from desktop.adapters.store.rubrics import latest_rubric
    from desktop.services.overrides import override, parse_verdict
    from desktop.services.project_rubrics import add_rubric, dimensions_for, find_rubric

    verdict = None if args.verdict.lower() == "clear" else parse_verdict(args.verdict)
    with open_project(args.project) as store:
        rubric = _rubric(store, args, "; name one with --rubric")
        pair = find_pair(store, args.pair_id)
        dims = dimensions_for(store, rubric)
        if args.dimension not in dims:
            raise TiebreakError(
                f"rubric {rubric} has no dimension {args.dimension!r} (it has {', '.join(dims)})"
            )
        with store.transaction():
            if latest_rubric(store, rubric) is None:
                add_rubric(store, find_rubric(store, rubric))  # traceable to its text
            override(
                store,
                pair,
                rubric=rubric,
                dimensions=dims,
                dimension=args.dimension,
                verdict=verdict,
                reviewer=args.reviewer,
                note=args.note,
                mode="cli",
            )
    shown = verdict.value if verdict else "cleared"
    print(f"{pair.label}: {args.dimension} = {shown} (rubric {rubric})")
    return 0


def _rubric(store: ProjectStore, args: argparse.Namespace, hint: str = "") -> str:
    """The rubric named with --rubric, else the project's only one with verdicts."""
    from desktop.services.exporting import choose_rubric

    rubric = args.rubric or choose_rubric(store, None)
    if rubric is None:
        raise TiebreakError(f"{args.project}: no rubric has verdicts yet{hint}")
    return rubric


def cmd_stats(args: argparse.Namespace) -> int:
    from desktop.adapters.store import open_project
    from desktop.cli.stats_format import comparison_lines, stats_lines
    from desktop.cli.terminal import print_json
    from desktop.domain.agreement import LABELS

    with open_project(args.project, readonly=True) as store:
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
                print("\n".join(comparison_lines(result, limit=args.limit)))
            return 0
        if args.by == "model":
            return _by_model(store, args)
        from desktop.services.stats import compute_stats

        stats = compute_stats(store, args.rubric, args.judge_model, seed=args.seed)
    if args.json:
        print_json(
            {
                "labels": [str(v) for v in LABELS],
                "seed": args.seed,
                "rubrics": [dataclasses.asdict(s) for s in stats],
            }
        )
        return 0
    if not stats:
        print(f"{args.project}: no verdicts yet")
        return 0
    print("\n\n".join("\n".join(stats_lines(s)) for s in stats))
    return 0


def _by_model(store: ProjectStore, args: argparse.Namespace) -> int:
    from desktop.adapters.store.rubrics import rubric_names
    from desktop.cli.stats_format import leaderboard_lines
    from desktop.cli.terminal import print_json
    from desktop.services.exporting import require_rubric
    from desktop.services.leaderboard import leaderboard

    names = [require_rubric(store, args.rubric)] if args.rubric else rubric_names(store)
    boards = [leaderboard(store, name, args.judge_model) for name in names]
    if args.json:
        print_json({"rubrics": [dataclasses.asdict(b) for b in boards]})
    elif not boards:
        print(f"{args.project}: no verdicts yet")
    else:
        print("\n\n".join("\n".join(leaderboard_lines(b)) for b in boards))
    return 0


def cmd_judges(args: argparse.Namespace) -> int:
    from desktop.adapters.store import open_project
    from desktop.cli.stats_format import judges_lines
    from desktop.cli.terminal import print_json
    from desktop.services.judges import judge_table

    with open_project(args.project, readonly=True) as store:
        table = judge_table(store)
    if args.json:
        print_json([row._asdict() for row in table])
    elif not table:
        print(f"{args.project}: no judge answers yet")
    else:
        print("\n".join(judges_lines(table)))
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from desktop.adapters.store import open_project
    from desktop.services.merge import merge_file

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
    print(f"{args.other}: " + ", ".join(parts) + who)
    return 0


def cmd_queue(args: argparse.Namespace) -> int:
    from desktop.adapters.store import open_project
    from desktop.cli.stats_format import queue_lines
    from desktop.cli.terminal import print_json
    from desktop.services.review_queue import queue_items

    with open_project(args.project, readonly=True) as store:
        rubric = _rubric(store, args, "; name one with --rubric")
        items = queue_items(
            store,
            rubric,
            args.judge_model,
            reviewer=args.reviewer,
            low_confidence=args.low_confidence,
        )
    shown = items[: args.limit] if args.limit else items
    if args.json:
        print_json([dataclasses.asdict(item) for item in shown])
    else:
        print("\n".join(queue_lines(shown, len(items))))
    return 0
