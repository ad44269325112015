"""A command's own peak memory, CPU and wall time, measured by a small launcher.

Linux carries a process's peak resident memory across fork and exec into the child's
``ru_maxrss``, so a command started from pytest (which has loaded Qt, numpy and matplotlib
by then) or from a benchmark reports that process's peak, not its own. The launcher is a
bare interpreter (``-I -S``: a few MB, less than any Python program needs) that forks the
command, optionally caps its address space, and writes ``wait4``'s figures for the command
alone. It also times the command, so its own start-up is not counted.

    report = tmp_path / "report.json"
    subprocess.run([*launcher(report), sys.executable, "-m", "desktop", ...])
    measured = read_report(report)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NamedTuple

_LAUNCHER = """
import json, os, resource, sys, time
report, cap, argv = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        if cap:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
seconds = time.perf_counter() - start
with open(report, "w") as fh:
    json.dump([seconds, os.waitstatus_to_exitcode(status), usage.ru_maxrss,
               usage.ru_utime + usage.ru_stime], fh)
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


class Measured(NamedTuple):
    exit_code: int
    seconds: float  # wall time, from fork to exit
    peak_bytes: int  # the command's own peak resident memory
    cpu_seconds: float  # user and system time


def launcher(report: Path, *, address_space: int = 0) -> list[str]:
    """The words to put before a command: run it, write its figures to ``report``, exit
    with its exit code. ``address_space`` (bytes) caps what the command may map."""
    return [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(report), str(address_space)]


def read_report(report: Path) -> Measured:
    """The figures the launcher wrote; a command killed before it ended has none (exit -1)."""
    text = report.read_text() if report.exists() else ""
    seconds, code, maxrss, cpu = json.loads(text or "[0, -1, 0, 0]")
    unit = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    return Measured(int(code), float(seconds), int(maxrss) * unit, float(cpu))
