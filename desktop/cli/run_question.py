"""The question before a big judge run on the command line: asked on a terminal (y/N),
refused without one unless ``--yes``, so a script never starts thousands of paid requests
because nobody was there to say no."""

from __future__ import annotations

import sys

from desktop.cli.terminal import shown
from desktop.domain.errors import TiebreakError
from desktop.services.app_settings import load_settings
from desktop.services.judging.run_size import RunSize


def confirm_run(size: RunSize, *, yes: bool) -> None:
    """Return where the run may start; else raise the one line that says why not."""
    threshold = load_settings().run_threshold()
    if yes or not size.needs_asking(threshold):
        return
    what = size.describe()
    if not sys.stdin.isatty():
        raise TiebreakError(
            f"this run would send {what}, more than the {threshold:,} asked about first"
            " (ask_above in Settings); nothing was sent: give --yes to send them"
        )
    sys.stderr.write(shown(f"This run will send {what}.") + " Start? [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer not in ("y", "yes"):
        raise TiebreakError("nothing was sent")
