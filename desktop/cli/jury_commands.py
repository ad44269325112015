"""`tiebreak jury`: several judges already in a project kept as one, a jury, which then
shows wherever a judge is chosen (`stats --judge-model NAME`, export, the queue, a sample,
the window's judge picker)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli.terminal import say
from desktop.domain.errors import TiebreakError

if TYPE_CHECKING:
    from desktop.services.projects import ProjectStore


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("jury", help="keep several judges of a rubric as one (a jury)")
    p.set_defaults(func=cmd_jury)
    jsub = p.add_subparsers(dest="jury_command", metavar="ACTION", required=True)
    j = jsub.add_parser("add", help="a jury of judges with answers for the rubric")
    j.add_argument("project", type=Path)
    j.add_argument("name")
    j.add_argument("--rubric", help="default: the project's only rubric with verdicts")
    j.add_argument(
        "--judge", action="append", required=True, help="a juror (at least two: repeat it)"
    )
    j.add_argument(
        "--combine",
        choices=["majority", "mean"],
        default="majority",
        help="per dimension: the verdict most jurors gave (a tie when split evenly), or the"
        " mean of their B scores (B 1, tie 0.5, A 0)",
    )
    j.add_argument("--replace", action="store_true", help="replace a jury of that name")
    j = jsub.add_parser("list", help="the juries kept, per rubric")
    j.add_argument("project", type=Path)
    j.add_argument("--rubric")
    j.add_argument("--json", action="store_true")
    j = jsub.add_parser("remove", help="forget a jury (its jurors' answers stay)")
    j.add_argument("project", type=Path)
    j.add_argument("name")
    j.add_argument("--rubric")


def _rubric(store: ProjectStore, args: argparse.Namespace) -> str:
    from desktop.services.rubric_choice import choose_rubric

    rubric = choose_rubric(store, args.rubric)
    if rubric is None:
        raise TiebreakError(f"{args.project}: no rubric has verdicts yet")
    return rubric


def cmd_jury(args: argparse.Namespace) -> int:
    from desktop.cli.terminal import print_json
    from desktop.services.jury_setup import add_jury, drop_jury, jury_table
    from desktop.services.projects import open_project

    if args.jury_command == "list":
        with open_project(args.project, readonly=True) as store:
            table = jury_table(store, args.rubric)
        if args.json:
            print_json([row._asdict() for row in table])
        elif not table:
            say(f"{args.project}: no juries yet ('tiebreak jury add' keeps one)")
        else:
            say(*(f"{r.rubric}  {r.name}  {r.combine} of {', '.join(r.jurors)}" for r in table))
        return 0
    with open_project(args.project) as store:
        rubric = _rubric(store, args)
        if args.jury_command == "remove":
            drop_jury(store, rubric, args.name)
            say(f"jury {args.name!r} of rubric {rubric} removed; its jurors' answers stay")
            return 0
        jury = add_jury(store, rubric, args.name, args.judge, args.combine, replace=args.replace)
    say(
        f"jury {jury.name!r} of rubric {rubric}: {jury.combine} of {', '.join(jury.jurors)};"
        f" choose it as a judge (--judge-model {jury.name!r}, the window's judge picker)"
    )
    return 0
