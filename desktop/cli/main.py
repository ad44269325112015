"""The `tiebreak` command line: the same services the window uses, one line per error.

Exit codes: 0 success, 1 an error (one line on stderr, no traceback), 2 a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from desktop import __version__
from desktop.domain.errors import TiebreakError


def build_parser() -> argparse.ArgumentParser:
    """Every command, as the module that owns it declares it (its arguments and, with
    ``set_defaults(func=...)``, the function that runs it), in the order --help lists them."""
    from desktop.cli import (
        judge_commands,
        jury_commands,
        model_commands,
        project_commands,
        report_commands,
        rubric_commands,
        verdict_commands,
        window,
    )

    parser = argparse.ArgumentParser(
        prog="tiebreak",
        description="Review pairs of AI responses with an LLM judge."
        " With no command, opens the window on the last project; 'tiebreak FILE.tiebreak'"
        " opens that project.",
    )
    parser.add_argument("--version", action="version", version=f"tiebreak {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    window.add_parsers(sub)
    project_commands.add_parsers(sub)
    rubric_commands.add_parsers(sub)
    verdict_commands.add_parsers(sub)
    report_commands.add_parsers(sub)
    judge_commands.add_parsers(sub)
    jury_commands.add_parsers(sub)
    model_commands.add_parsers(sub)
    _name_actions(sub)
    return parser


def _name_actions(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """A command with actions of its own (``profile list|add|test``) names them in the
    top-level --help, so every command can be found from ``tiebreak --help``."""
    for listed in sub._choices_actions:
        actions = subcommands(sub.choices[listed.dest])
        if actions:
            listed.help = f"{listed.help}: {', '.join(actions)}"


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's subcommands by name (none: {})."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    window = _window_request(words)
    if window is not False:
        return _reported(lambda: _open_window(window or None))
    return _reported(lambda: _guarded(words))


def _guarded(words: list[str]) -> int:
    from desktop.cli.terminal import guarded_streams

    with guarded_streams():  # data in any line written is shown, never run by the terminal
        return _reported(lambda: _run(words))


def _run(words: list[str]) -> int:
    """Parse and run; building the parser loads the commands' modules, which a Ctrl+C may
    interrupt too (argparse's usage errors still exit 2 through SystemExit)."""
    args = build_parser().parse_args(words)
    result: int = args.func(args)
    return result


def _open_window(project: Path | None) -> int:
    from desktop.cli.window import open_window

    return open_window(project)


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
        from desktop.services.failures import os_failure

        too_long = os_failure(exc)
        if too_long is not None:
            _fail(too_long)
        else:
            _fail(f"unexpected {type(exc).__name__}: {exc} (set TIEBREAK_DEBUG=1 for details)")
    return 1


def _window_request(words: list[str]) -> Path | Literal[False] | None:
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
    from desktop.cli.terminal import print_error

    print_error(message)


if __name__ == "__main__":
    raise SystemExit(main())
