"""`tiebreak` with no command (or `tiebreak open PROJECT`): the review window; and
`tiebreak install-desktop`, which puts it in the desktop's menus.

Kept apart from the other commands so starting the window loads nothing it does not use.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop.cli.terminal import say
from desktop.domain.errors import TiebreakError


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("open", help="open a project in the review window")
    p.add_argument("project", type=Path)
    p.set_defaults(func=lambda args: open_window(args.project))

    p = sub.add_parser(
        "install-desktop",
        help="add Tiebreak to the desktop's menus and open .tiebreak files with it"
        " (this user, under $XDG_DATA_HOME)",
    )
    p.add_argument("--uninstall", action="store_true", help="remove what install-desktop added")
    p.set_defaults(func=cmd_install_desktop)


def open_window(project: Path | None = None) -> int:
    from desktop.cli.display_check import display_problem

    problem = display_problem()
    if problem:
        raise TiebreakError(problem)
    from desktop.services.startup import open_start

    start = open_start(project)  # before Qt loads: see desktop.services.startup
    from desktop.ui.app import run

    return run(start)


def cmd_install_desktop(args: argparse.Namespace) -> int:
    from desktop.services.desktop_install import install_desktop_entry, uninstall_desktop_entry

    if args.uninstall:
        report = uninstall_desktop_entry()
        for path in report.removed:
            say(f"removed {path}")
    else:
        report = install_desktop_entry()
        for path in report.written:
            say(f"wrote {path}")
    for tool in report.ran:
        say(f"ran {tool}")
    for tool in report.missing:
        say(f"{tool} is not installed here: the desktop sees the change at its next start")
    return 0
