"""Progress on stderr for long commands: a rewritten line on a terminal, sparse lines in logs."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from desktop.cli.terminal import raw_stream


def stderr_progress(label: str, total: int | None = None) -> Callable[[int], None]:
    """The first line comes only once the work has run for the interval: quick work prints
    no progress, so a refusal a moment in is the one line on stderr, not the second."""
    tty = sys.stderr.isatty()
    last = [time.monotonic()]

    def report(done: int) -> None:
        now = time.monotonic()
        final = total is not None and done >= total
        if not final and now - last[0] < (0.2 if tty else 2.0):
            return
        last[0] = now
        text = f"{label}: {done:,}" + (f"/{total:,}" if total else "")
        if tty:  # the carriage return is ours: written past the guard that escapes data's
            raw_stream(sys.stderr).write("\r" + text + ("\n" if final else ""))
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    return report
