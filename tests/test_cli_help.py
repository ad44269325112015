"""Every command a user can run is in `tiebreak --help`: the top-level list names each
command, and a command with actions of its own (``profile list``) names every one of them
there and lists each, with what it does, under ``tiebreak COMMAND --help``."""

from __future__ import annotations

import argparse
import re

from desktop.cli.main import build_parser
from tests.helpers import tiebreak


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The subcommands registered with argparse (what a user can run), by name."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _listed(help_text: str) -> dict[str, str]:
    """The commands a --help lists, each with its help text (wrapped lines joined)."""
    listed: dict[str, str] = {}
    name = None
    for line in help_text.split("options:")[0].splitlines():
        row = re.match(r"^    (\S+)(?:\s+(.*))?$", line)
        if row:
            name = row[1]
            listed[name] = row[2] or ""
        elif name is not None and re.match(r"^\s{8,}\S", line):
            listed[name] = (listed[name] + " " + line.strip()).strip()
    return listed


def test_every_registered_command_and_action_is_in_help() -> None:
    proc = tiebreak("--help")
    assert proc.returncode == 0, proc.stderr
    top = _listed(proc.stdout)
    registered = subcommands(build_parser())
    assert set(top) == set(registered)
    for name, parser in registered.items():
        assert top[name], f"{name} has no help line"
        actions = subcommands(parser)
        for action in actions:
            assert re.search(rf"\b{re.escape(action)}\b", top[name]), (name, action, top[name])
        if actions:
            proc = tiebreak(name, "--help")
            assert proc.returncode == 0, proc.stderr
            inner = _listed(proc.stdout)
            assert set(inner) == set(actions), name
            assert all(inner.values()), (name, inner)
