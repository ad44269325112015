"""Projects held open while their file is moved, deleted or replaced (issue 24).

A holder keeps the project open as a window or a long command does: in this process
(:class:`HeldHere`) or in a child process (:class:`HeldThere`, ``python -m
tests.held_projects PROJECT``, which answers one line for each command read from stdin).
Both answer ``verdict(pair, verdict)`` (the reviewer's verdict on "overall", written as the
window writes it) with "ok" or "refused: <the one line>", and close with ``close()``.
Around them: a colleague's project to put over one, the ``mv`` or ``cp`` that puts it
there, and what is left beside a file.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RUBRIC = "href-overall"
REFUSED = "the project file was moved or replaced while open; reopen it"


def colleague_project(folder: Path, pairs: int) -> Path:
    """A colleague's project: ``pairs`` pairs with judge answers and reviewers' verdicts."""
    from desktop.adapters.store import open_project
    from desktop.services.importing import import_file
    from tests.bench.bench_import_export import add_verdicts, generate
    from tests.helpers import new_project

    path = new_project(folder, "colleague.tiebreak")
    generate(folder / "pairs.jsonl", pairs)
    with open_project(path) as store:
        import_file(store, folder / "pairs.jsonl")
    add_verdicts(path, pairs)
    return path


def put_over(source: Path, target: Path, how: str) -> None:
    """``mv source target`` or ``cp source target``, as the user runs them: cp in a process
    of its own (opening and closing the target here would drop this process's locks)."""
    if how == "mv":
        os.rename(source, target)
    else:
        subprocess.run(["cp", str(source), str(target)], check=True)


def beside(path: Path) -> list[str]:
    """The -wal, -shm or -journal left beside ``path``."""
    return [s for s in ("-wal", "-shm", "-journal") if Path(f"{path}{s}").exists()]


def give_verdict(store: Any, pair_ref: str, verdict: str, dimension: str = "overall") -> None:
    """The reviewer's verdict on one pair, written as the window writes it."""
    from desktop.adapters.store.pairs import find_pair
    from desktop.services.overrides import override, parse_verdict

    override(
        store,
        find_pair(store, pair_ref),
        rubric=RUBRIC,
        dimensions=("overall",),
        dimension=dimension,
        verdict=parse_verdict(verdict),
        reviewer="ada",
        mode="gui",
    )


def _answer(store: Any, pair_ref: str, verdict: str) -> str:
    from desktop.domain.errors import TiebreakError

    try:
        give_verdict(store, pair_ref, verdict)
    except TiebreakError as exc:
        return f"refused: {exc}"
    return "ok"


class HeldHere:
    """The project open in this process (a plain store, as the window's session holds it).
    While it is open, this process must not open and close the file itself: closing any
    descriptor of a file drops every POSIX lock the process holds on it, SQLite's too."""

    def __init__(self, project: Path) -> None:
        from desktop.adapters.store import open_project

        self.store = open_project(project)

    def verdict(self, pair: str, verdict: str) -> str:
        return _answer(self.store, pair, verdict)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> HeldHere:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class HeldThere:
    """The project open in a child process until :meth:`close`."""

    def __init__(self, project: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.held_projects", str(project)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        assert self._answer() == "open"

    def _answer(self) -> str:
        assert self.proc.stdout is not None and self.proc.stderr is not None
        line = self.proc.stdout.readline()
        if not line:
            raise AssertionError(f"the holder ended: {self.proc.stderr.read()}")
        return line.rstrip("\n")

    def _ask(self, command: str) -> str:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def verdict(self, pair: str, verdict: str) -> str:
        return self._ask(f"verdict {pair} {verdict}")

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self._ask("close") == "closed"
            self.proc.wait(timeout=30)

    def __enter__(self) -> HeldThere:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.close()
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def main(project: str) -> None:
    from desktop.adapters.store import open_project

    store = open_project(project)
    print("open", flush=True)
    for line in sys.stdin:
        command, *args = line.split()
        if command == "verdict":
            print(_answer(store, *args), flush=True)
        elif command == "close":
            store.close()
            print("closed", flush=True)
            return


if __name__ == "__main__":
    main(sys.argv[1])
