"""`tiebreak stats`, `merge` and `queue`: agreement figures, another reviewer's verdicts,
and the order a human look is worth most."""

from __future__ import annotations

import argparse
import dataclasses

from desktop.adapters.store import open_project
from desktop.adapters.store.project import ProjectStore
from desktop.cli.main import print_json
from desktop.cli.stats_format import (
    comparison_lines,
    judges_lines,
    leaderboard_lines,
    queue_lines,
    stats_lines,
)
from desktop.domain.agreement import LABELS
from desktop.domain.errors import TiebreakError
from desktop.services.exporting import choose_rubric


def cmd_stats(args: argparse.Namespace) -> int:
    with open_project(args.project, readonly=True) as store:
        if args.compare_rubric or args.compare_model:
            from desktop.services.compare import compare

            rubric = args.rubric or choose_rubric(store, None)
            if rubric is None:
                raise TiebreakError(f"{args.project}: no rubric has verdicts yet")
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
    from desktop.services.review_queue import queue_items

    with open_project(args.project, readonly=True) as store:
        rubric = args.rubric or choose_rubric(store, None)
        if rubric is None:
            raise TiebreakError(
                f"{args.project}: no rubric has verdicts yet; name one with --rubric"
            )
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
