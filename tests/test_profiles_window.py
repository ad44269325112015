"""A profile added or changed on the command line while the window is open shows in the
window's "ask:" list without a restart (``tiebreak profile add`` run as its own process,
as a user runs it in a terminal beside the window), and Ctrl+J asks what the file now says."""

from __future__ import annotations

from desktop.ui.main_window import MainWindow
from tests.helpers import tiebreak
from tests.openai_server import OpenAIServer


def _listed(window: MainWindow) -> list[object]:
    box = window.choices.profile_box
    return [box.itemData(i) for i in range(box.count())]


def test_a_profile_added_in_a_terminal_is_listed_in_the_open_window(
    qtbot, window: MainWindow, server: OpenAIServer
) -> None:
    assert "qwen" not in _listed(window)
    proc = tiebreak(
        "profile", "add", "qwen", "--base-url", server.base_url, "--model", "qwen2.5-7b",
        "--no-key",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    qtbot.waitUntil(lambda: "qwen" in _listed(window), timeout=5_000)
    box = window.choices.profile_box
    assert box.currentData() == "test"  # the profile asked stays the one chosen
    # The profile Ctrl+J asks changed in the terminal: the window asks the new model.
    proc = tiebreak(
        "profile", "add", "test", "--base-url", server.base_url, "--model", "other-model",
        "--no-key",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    qtbot.waitUntil(lambda: window.context.session.profile.model == "other-model", timeout=5_000)
    assert _listed(window)[:3] == ["local", "test", "qwen"] and box.currentData() == "test"


def test_a_profiles_file_broken_by_hand_is_said_and_the_list_kept(
    qtbot, window: MainWindow
) -> None:
    path = window.context.session.profiles_file()
    before = _listed(window)
    path.write_text("[profiles.half\n", encoding="utf-8")
    qtbot.waitUntil(
        lambda: "the profiles were not read again" in window.statusBar().currentMessage(),
        timeout=5_000,
    )
    assert "not valid TOML" in window.statusBar().currentMessage()
    assert _listed(window) == before
