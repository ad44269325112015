"""The hostile-input suite: what a careless user or an attacker does to the command line,
the project file and the window, and what each case must leave behind.

Every case states its outcome through ``hostile`` (a :class:`Hostile`): a refusal exits 1
(2 for a usage error) with one line on stderr and no traceback, and leaves the project
byte-identical (its ``.dump`` hash); a success exits 0. Each case that holds is counted,
and the run ends with the count, so a closing note can say how many cases ran and held.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import io
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@dataclass
class _Tally:
    held: int = 0
    failed: list[str] = field(default_factory=list)


_TALLY = _Tally()


def fingerprint(path: Path) -> str:
    """The project as its ``.dump`` would print it, hashed; a file SQLite cannot dump is
    hashed byte for byte instead, so damage that a command adds still shows.

    The dump is taken from a copy (with its journal or write-ahead log) in a private
    folder: SQLite reading a WAL file read-only leaves ``-wal`` and ``-shm`` files beside
    it, which would change the very folder a case inspects."""
    if not path.exists():
        return "absent"
    with tempfile.TemporaryDirectory(prefix="fingerprint-") as tmp:
        copy = Path(tmp) / "project"
        shutil.copyfile(path, copy)
        for suffix in ("-wal", "-journal"):
            if Path(f"{path}{suffix}").exists():
                shutil.copyfile(f"{path}{suffix}", f"{copy}{suffix}")
        digest = hashlib.sha256()
        try:
            conn = sqlite3.connect(copy)
            try:
                for line in conn.iterdump():
                    digest.update(line.encode("utf-8", "surrogatepass"))
                    digest.update(b"\n")
            finally:
                conn.close()
            return "dump:" + digest.hexdigest()
        except sqlite3.Error:
            digest = hashlib.sha256(path.read_bytes())
            return "bytes:" + digest.hexdigest()


# Linux capabilities that let root ignore permission bits on files and folders.
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER = 1, 2, 3
_PR_CAPBSET_DROP = 24
_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded here: nothing may be imported after fork


def _drop_file_capabilities() -> None:
    """Runs in the child between fork and exec: out of the bounding set, the capabilities
    are not given to the program exec starts, root or not."""
    for cap in (_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER):
        if _LIBC.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@dataclass(frozen=True)
class User:
    """Runs a command as a user for whom permission bits bind. Root ignores read-only
    bits, so a case about them would hold for the wrong reason: when the tests run as
    root, the command runs as root without the capabilities that override file
    permissions (the files stay root's own, so only their bits decide); otherwise as the
    current user."""

    privileged: bool

    def run_as(self) -> dict[str, object]:
        """subprocess.run arguments that run a command as this user."""
        return {"preexec_fn": _drop_file_capabilities} if self.privileged else {}


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stderr.strip().splitlines()


class Hostile:
    """Runs the real `tiebreak` command as a user would and checks what a case left."""

    def __init__(self, node: str) -> None:
        self.node = node

    @staticmethod
    def _env(env: dict[str, str] | None) -> dict[str, str]:
        full_env = {**os.environ, **(env or {})}
        full_env.pop("TIEBREAK_DEBUG", None)
        return full_env

    def spawn(
        self,
        *args: str | os.PathLike[str],
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.Popen[str]:
        """The command started and left running, for a case that signals it (Ctrl+C is
        ``send_signal(signal.SIGINT)``); read its outcome with :meth:`finished`."""
        return subprocess.Popen(
            [sys.executable, "-m", "desktop", *map(str, args)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="surrogateescape",
            cwd=cwd,
            env=self._env(env),
        )

    @staticmethod
    def finished(proc: subprocess.Popen[str], timeout: float = 120) -> Run:
        """Its outcome; a command still running after ``timeout`` is killed, and fails."""
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
        return Run(proc.returncode, stdout, stderr)

    def cli(
        self,
        *args: str | os.PathLike[str],
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
        timeout: float = 120,
        user: User | None = None,
    ) -> Run:
        """``user``: run as that user (see the ``plain_user`` fixture)."""
        full_env = self._env(env)
        proc = subprocess.run(
            [sys.executable, "-m", "desktop", *map(str, args)],
            capture_output=True,
            text=True,
            errors="surrogateescape",
            cwd=cwd,
            env=full_env,
            input=stdin,
            timeout=timeout,
            **user.run_as() if user is not None else {},  # type: ignore[arg-type]
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    def main(self, *args: str | os.PathLike[str]) -> Run:
        """The same command run inside this process (``desktop.cli.main.main``) with its
        output captured: for the bulk of generated cases, where a subprocess each would
        take minutes. An unexpected exception, which the real command would print as one
        "unexpected ..." line, is raised here (TIEBREAK_DEBUG), so the case fails with
        its traceback."""
        from desktop.cli.main import main

        out, err = io.StringIO(), io.StringIO()
        debug = os.environ.get("TIEBREAK_DEBUG")
        os.environ["TIEBREAK_DEBUG"] = "1"
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    code = main([str(a) for a in args])
                except SystemExit as exc:  # argparse's usage errors
                    code = exc.code if isinstance(exc.code, int) else 1
        finally:
            if debug is None:
                del os.environ["TIEBREAK_DEBUG"]
            else:
                os.environ["TIEBREAK_DEBUG"] = debug
        return Run(code, out.getvalue(), err.getvalue())

    def refused(
        self,
        run: Run,
        *,
        says: str | tuple[str, ...] = (),
        project: Path | None = None,
        before: str | None = None,
        code: int = 1,
    ) -> None:
        """A refusal: exit ``code``, one line on stderr naming what (``says``), no
        traceback, and ``project`` unchanged since ``before`` (its fingerprint)."""
        assert run.code == code, f"exit {run.code}, stderr: {run.stderr!r}"
        assert "Traceback" not in run.stderr, run.stderr
        if code == 1:
            assert len(run.lines) == 1, f"not one line: {run.stderr!r}"
            assert run.lines[0].startswith("tiebreak: error: "), run.stderr
        for fragment in (says,) if isinstance(says, str) else says:
            assert fragment in run.stderr, f"{fragment!r} not in {run.stderr!r}"
        if project is not None:
            assert before is not None, "take the fingerprint before the command"
            assert fingerprint(project) == before, f"{project} changed"
        self.held()

    def succeeded(self, run: Run) -> None:
        assert run.code == 0, f"exit {run.code}, stderr: {run.stderr!r}"
        assert "Traceback" not in run.stderr, run.stderr
        self.held()

    def held(self) -> None:
        """One more case checked and held (for checks made without the helpers above)."""
        _TALLY.held += 1


@pytest.fixture
def hostile(request: pytest.FixtureRequest) -> Iterator[Hostile]:
    yield Hostile(request.node.nodeid)


@pytest.fixture
def plain_user(tmp_path_factory: pytest.TempPathFactory) -> User:
    """A user for whom permission bits bind (see :class:`User`); checked, so a case never
    holds because they did not. Skips, saying why, only where no such user can be had."""
    user = User(privileged=os.geteuid() == 0)
    probe = tmp_path_factory.mktemp("probe") / "read-only"
    probe.write_text("")
    probe.chmod(0o444)
    try:
        done = subprocess.run(
            [sys.executable, "-c", f"open({str(probe)!r}, 'a')"],
            capture_output=True,
            **user.run_as(),  # type: ignore[arg-type]
        )
    except (OSError, subprocess.SubprocessError) as exc:
        pytest.skip(f"cannot run a command without root's file capabilities ({exc})")
    if done.returncode == 0:
        pytest.skip("permission bits do not bind here: a read-only file could be written")
    return user


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and report.failed and "tests/hostile/" in report.nodeid:
        _TALLY.failed.append(report.nodeid)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _TALLY.held or _TALLY.failed:
        terminalreporter.write_line(
            f"hostile cases: {_TALLY.held} held; tests with a case that did not hold:"
            f" {len(_TALLY.failed)}"
        )
