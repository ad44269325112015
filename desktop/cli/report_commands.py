"""`tiebreak report`: every rubric's and judge's figures in one self-contained HTML file,
charts inline, to send to a colleague."""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop.cli import arg_types
from desktop.cli.lc_options import add_lc_options, lc_choice
from desktop.cli.terminal import say


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "report",
        help="every rubric's and judge's figures and charts in one self-contained HTML file",
    )
    p.add_argument("project", type=Path)
    p.add_argument("out", type=Path, help="the HTML file to write")
    p.add_argument(
        "--rubric", action="append", default=[], help="only this rubric (repeat for more)"
    )
    p.add_argument("--seed", type=arg_types.seed, default=0, help="seed of the bootstrap intervals")
    p.add_argument(
        "--alpha",
        type=arg_types.alpha,
        default=0.05,
        help="the win rates' intervals are at level 1 - ALPHA (default 0.05: 95%%)",
    )
    add_lc_options(p, where="by generator: ")
    p.set_defaults(func=cmd_report)


def cmd_report(args: argparse.Namespace) -> int:
    from desktop.cli.progress import stderr_progress
    from desktop.services.projects import open_project
    from desktop.services.report import write_report

    lc, gamed = lc_choice(args)
    with open_project(args.project, readonly=True) as store:
        report = write_report(
            store,
            args.out,
            rubrics=args.rubric,
            alpha=args.alpha,
            seed=args.seed,
            lc=lc,
            gamed=gamed,
            progress=stderr_progress("report: judge sections drawn"),
        )
    counts = ", ".join(
        f"{n:,} {what if n == 1 else what + 's'}"
        for n, what in (
            (report.rubrics, "rubric"),
            (report.judges, "judge section"),
            (report.charts, "chart"),
        )
    )
    say(f"{args.out}: {counts} ({report.size / 1024:,.0f} KB, nothing outside the file)")
    return 0
