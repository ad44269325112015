"""Before Qt starts, a missing display or system library is one line naming the fix."""

from __future__ import annotations

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
    monkeypatch.setattr(display_check, "XCB_LIBRARIES", libraries)
    problem = display_check.display_problem()
    assert problem is not None and problem.endswith("libtb9")
    assert "sudo apt-get install" in problem


def test_offscreen_needs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    monkeypatch.delenv("DISPLAY", raising=False)
    assert display_check.display_problem() is None
