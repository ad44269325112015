"""Before Qt starts, a missing display or system library is one line naming the fix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.cli import display_check


@pytest.fixture
def linux_x11(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(display_check.sys, "platform", "linux")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")


def test_no_display_says_so(linux_x11: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISPLAY")
    problem = display_check.display_problem()
    assert problem is not None and "DISPLAY is not set" in problem and "xvfb-run" in problem


def test_a_missing_library_names_its_package(
    linux_x11: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    libraries = {**display_check.XCB_LIBRARIES, "libtiebreak-nonexistent.so.9": "libtb9"}
    # Where the X server answers (none runs beside the tests: the case of no server is
    # the real command's, below).
    monkeypatch.setattr(display_check, "_answers", lambda display: True)
    monkeypatch.setattr(display_check, "XCB_LIBRARIES", libraries)
    problem = display_check.display_problem()
    assert problem is not None and problem.endswith("libtb9")
    assert "sudo apt-get install" in problem


def test_offscreen_needs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.delenv("DISPLAY", raising=False)
    assert display_check.display_problem() is None


def _without_display(**more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in DISPLAY_VARIABLES}
    return {**env, **more}


DISPLAY_VARIABLES = ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
XVFB = "(xvfb-run is in Debian's xvfb package)"


def test_the_hint_names_the_command_as_it_was_run(tmp_path: Path) -> None:
    """`xvfb-run tiebreak` failed after the README's own install: `tiebreak` is not on PATH.
    The hint names the script by the path it was run from, with its arguments."""
    script = Path(sys.executable).with_name("tiebreak")
    if not script.exists():
        pytest.skip("no tiebreak script beside this Python")
    home = script.parents[2]  # where `python3 -m venv .venv` was run
    bin_dir = str(script.parent)
    path = os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if p != bin_dir)
    proc = subprocess.run(
        [str(script), "x y.tiebreak"],
        capture_output=True, text=True, cwd=home, env=_without_display(PATH=path), timeout=60,
    )  # fmt: skip
    relative = script.relative_to(home)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "tiebreak: error: no display to open a window on (DISPLAY is not set); run it in a"
        f" desktop session, or under Xvfb: xvfb-run {relative} 'x y.tiebreak' {XVFB}"
    ]


def test_a_display_with_no_server_is_one_line_not_an_abort(tmp_path: Path) -> None:
    """DISPLAY naming no X server: Qt aborted (exit 134) with libxcb's message."""
    number = next(n for n in range(4711, 4800) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    proc = subprocess.run(
        [sys.executable, "-m", "desktop"],
        capture_output=True, text=True, cwd=tmp_path,
        env=_without_display(DISPLAY=f":{number}"), timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    python = os.path.relpath(sys.executable, tmp_path)
    python = sys.executable if python.startswith("..") else python
    assert proc.stderr.splitlines() == [
        f"tiebreak: error: no X server answers on DISPLAY=:{number}; set DISPLAY to a running"
        f" one, or run it under Xvfb: xvfb-run {python} -m desktop {XVFB}"
    ]
