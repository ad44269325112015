"""The `tiebreak` command line: the same services the window uses, one line per error.

Exit codes: 0 success, 1 an error (one line on stderr, no traceback), 2 a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from desktop import __version__
from desktop.domain.errors import TiebreakError


def build_parser() -> argparse.ArgumentParser:
    from desktop.cli.arg_types import count_or_all, probability

    parser = argparse.ArgumentParser(
        prog="tiebreak",
        description="Review pairs of AI responses with an LLM judge."
        " With no command, opens the window on the last project; 'tiebreak FILE.tiebreak'"
        " opens that project.",
    )
    parser.add_argument("--version", action="version", version=f"tiebreak {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("open", help="open a project in the review window")
    p.add_argument("project", type=Path)

    p = sub.add_parser(
        "install-desktop",
        help="add Tiebreak to the desktop's menus and open .tiebreak files with it"
        " (this user, under $XDG_DATA_HOME)",
    )
    p.add_argument("--uninstall", action="store_true", help="remove what install-desktop added")

    p = sub.add_parser("new", help="create an empty project file")
    p.add_argument("project", type=Path)

    p = sub.add_parser("import", help="import pairs (CSV, JSONL, JSON, AlpacaEval, HREF)")
    p.add_argument("project", type=Path)
    p.add_argument("file", type=Path, help="a data file, or a folder: every data file under it")
    p.add_argument(
        "--format", default="auto", choices=["auto", "csv", "jsonl", "json", "alpaca-eval", "href"]
    )
    p.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="FIELD=COLUMN",
        help="take a pair field from a column of another name (repeatable)",
    )
    p.add_argument("--rubric", help="rubric name that imported verdicts belong to")

    p = sub.add_parser("export", help="export one row per pair with verdicts")
    p.add_argument("project", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--rubric")
    p.add_argument("--judge-model", help="whose judge verdicts (default: the latest used)")
    p.add_argument(
        "--format",
        default=None,
        choices=["csv", "jsonl"],
        help="default: from the file name, else csv",
    )
    p.add_argument(
        "--no-formula-guard",
        dest="formula_guard",
        action="store_false",
        help="CSV for programs: write text cells exactly, even those a spreadsheet would"
        " read as a formula (= + - @ tab CR); JSONL is always exact",
    )

    p = sub.add_parser("rubrics", help="list the rubrics available")
    p.add_argument("--json", action="store_true")
    p.add_argument("--project", type=Path, help="include rubrics added to this project")

    p = sub.add_parser("rubric", help="manage rubrics")
    rsub = p.add_subparsers(dest="rubric_command", metavar="ACTION", required=True)
    r = rsub.add_parser("add", help="add a rubric file or a plain-text judge template to a project")
    r.add_argument("project", type=Path)
    r.add_argument("file", type=Path)
    r.add_argument("--name", help="default: from the file name")
    r.add_argument("--title")
    r.add_argument("--dimensions", help="comma-separated (default: inferred)")
    r.add_argument(
        "--answer-format",
        choices=["comma-list", "single", "json-choices", "json-choice"],
        help="default: inferred from the template",
    )
    r = rsub.add_parser("show", help="print a rubric file")
    r.add_argument("name")
    r.add_argument("--project", type=Path)

    p = sub.add_parser("override", help="set the reviewer's verdict on one dimension of a pair")
    p.add_argument("project", type=Path)
    p.add_argument("pair_id", help="the pair's external id, or #N for its row number")
    p.add_argument("dimension")
    p.add_argument("verdict", help="A, B, tie, or 'clear' to withdraw")
    p.add_argument("--rubric")
    p.add_argument("--note")
    p.add_argument("--reviewer", help="default: $TIEBREAK_REVIEWER or the login name")

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

    p = sub.add_parser(
        "judges", help="every judge with answers: per rubric, answers, failures, errors, when"
    )
    p.add_argument("project", type=Path)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser(
        "merge", help="merge another reviewer's verdicts from their project or an exported CSV"
    )
    p.add_argument("project", type=Path)
    p.add_argument("other", type=Path, help="a .tiebreak file, or a CSV/JSONL from 'export'")
    p.add_argument("--reviewer", help="who reviewed an exported file (default: its file name)")
    p.add_argument("--rubric", help="for an exported file: default its 'rubric' column")

    p = sub.add_parser("queue", help="list pairs in the order a human look is worth most")
    p.add_argument("project", type=Path)
    p.add_argument("--rubric")
    p.add_argument("--judge-model", help="whose judge verdicts (default: the latest used)")
    p.add_argument("--reviewer", help="count only this reviewer's verdicts as reviewed")
    p.add_argument("--low-confidence", type=probability, default=0.7, metavar="P")
    p.add_argument("--limit", type=count_or_all, default=50, help="pairs to list (0: all)")
    p.add_argument("--json", action="store_true")

    from desktop.cli.judge_parsers import add_parsers

    add_parsers(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    window = _window_request(words)
    if window is not False:
        return _reported(lambda: _open_window(window or None))
    from desktop.cli.terminal import guarded_streams

    with guarded_streams():  # data in any line written is shown, never run by the terminal
        args = build_parser().parse_args(words)
        if args.command == "open":
            return _reported(lambda: _open_window(args.project))
        return _reported(lambda: _command(args))


def _open_window(project: Path | None) -> int:
    from desktop.cli.window import open_window

    return open_window(project)


def _command(args: argparse.Namespace) -> int:
    from desktop.cli import commands

    name = "cmd_" + args.command.replace("-", "_")
    handler = getattr(commands, name, None)
    if handler is None:
        from desktop.cli import stats_commands

        handler = getattr(stats_commands, name, None)
    if handler is None:  # the judge engine's commands load openai: only when asked for
        from desktop.cli import judge_commands

        handler = getattr(judge_commands, name)
    return handler(args)


def _reported(run: Callable[[], int]) -> int:
    """Run a command; any failure becomes one line on stderr and exit code 1."""
    try:
        return run()
    except TiebreakError as exc:
        _fail(str(exc))
    except KeyboardInterrupt:
        _fail("interrupted; nothing half-written was kept")
    except BrokenPipeError:
        return 1
    except Exception as exc:
        if os.environ.get("TIEBREAK_DEBUG"):
            raise
        _fail(f"unexpected {type(exc).__name__}: {exc} (set TIEBREAK_DEBUG=1 for details)")
    return 1


def _window_request(words: list[str]) -> Path | bool | None:
    """`tiebreak`, `tiebreak open PROJECT` and `tiebreak PROJECT` start the window without
    building the whole command parser (25 subcommands cost a noticeable part of the
    window's start-up): None for the last project, a Path, or False for anything else.

    A lone word is a project when it is named like one (``*.tiebreak``) or is a path (a
    file manager or the desktop entry passes the absolute path of the file opened), so
    a command name is never taken for a file."""
    if not words:
        return None
    if len(words) == 2 and words[0] == "open" and not words[1].startswith("-"):
        return Path(words[1])
    if len(words) == 1 and not words[0].startswith("-"):
        word = words[0]
        if word.lower().endswith(".tiebreak") or "/" in word or os.sep in word:
            return Path(word)
    return False


def _fail(message: str) -> None:
    from desktop.cli.terminal import shown

    sys.stderr.write(f"tiebreak: error: {shown(message)}\n")


def print_json(value: object) -> None:
    from desktop.cli.terminal import json_text

    sys.stdout.write(json_text(value) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
