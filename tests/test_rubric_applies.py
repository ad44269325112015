"""A rubric that needs a field (href-four: a reference) is refused up front where a pair to
judge lacks it, in one line naming the field and how many lack it: asked, each such pair
stored an error that every later run asked again, forever. ``--where`` still judges the
pairs that have it. The real command line and window, the test server, real projects."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.adapters.store import open_project
from desktop.services.importing import import_file
from tests.gui_helpers import completions, judge_all, open_window, press
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.openai_server import OpenAIServer

NO_REFERENCE = ("p2", "p4")  # of p1..p5; p4's reference is only whitespace


@pytest.fixture(name="mixed")
def mixed_fixture(tmp_path: Path) -> Path:
    """Five pairs; two without a usable reference."""
    rows = [
        {
            "id": f"p{i}",
            "instruction": f"Question {i}",
            "response_a": f"It is {i}.",
            "response_b": f"Maybe {i + 1}.",
            **({"reference": "   "} if i == 4 else {}),
            **({} if f"p{i}" in NO_REFERENCE else {"reference": str(i)}),
        }
        for i in range(1, 6)
    ]
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    return path


@pytest.fixture(name="server")
def server_fixture():
    with OpenAIServer(answer="A, B, tie, A") as srv:
        yield srv


def judged(project: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(project) as conn:
        return conn.execute(
            "SELECT p.external_id, r.status FROM judge_results r JOIN pairs p ON p.id = r.pair_id"
            " ORDER BY p.id"
        ).fetchall()


def judge(project: Path, server: OpenAIServer, *more: str):
    return tiebreak(
        "judge", project, "--rubric", "href-four", "--base-url", server.base_url,
        "--model", "m", *more,
    )  # fmt: skip


def test_the_command_line_refuses_in_one_line(mixed: Path, server: OpenAIServer) -> None:
    proc = judge(mixed, server)
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [
        "tiebreak: error: rubric href-four needs a reference, and 2 of the 5 pairs to judge"
        " have none: nothing was asked (--where \"trim(reference) <> ''\" judges the 3 that"
        " have one)"
    ]
    assert completions(server) == [] and judged(mixed) == []
    export = tiebreak("batch", "export", mixed, "out.jsonl", "--rubric", "href-four")
    assert export.returncode == 1 and "2 of the 5 pairs to judge have none" in export.stderr
    # --where still selects the pairs that have it: those are judged, and the run is done.
    proc = judge(mixed, server, "--where", "trim(reference) <> ''")
    assert proc.returncode == 0, proc.stderr
    assert judged(mixed) == [("p1", "ok"), ("p3", "ok"), ("p5", "ok")]
    proc = judge(mixed, server, "--where", "category IS NULL AND id IN (2, 4)")
    assert proc.stderr.splitlines() == [
        "tiebreak: error: rubric href-four needs a reference, and none of the 2 pairs to judge"
        " has one: nothing was asked"
    ]


def test_the_window_refuses_in_one_line(qtbot, mixed: Path, server: OpenAIServer, monkeypatch):
    import desktop.ui.dialogs as dialogs

    warnings: list[str] = []
    monkeypatch.setattr(dialogs, "warn", lambda parent, message: warnings.append(message))
    win = open_window(qtbot, mixed, server)
    try:
        judge_all(qtbot, win)  # Ctrl+Shift+J
        assert warnings == [
            "rubric href-four needs a reference, and 2 of the 5 pairs to judge have none:"
            " nothing was asked"
        ]
        press(qtbot, win, Qt.Key.Key_J)  # next pair: p2
        qtbot.waitUntil(lambda: win.session.current.external_id == "p2", timeout=5000)
        press(qtbot, win, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: len(warnings) == 2, timeout=10_000)
        assert warnings[1] == (
            "rubric href-four needs a reference, and the pair to judge has none: nothing was asked"
        )
        assert completions(server) == [] and judged(mixed) == []
        press(qtbot, win, Qt.Key.Key_K)  # p1 has one: judged
        qtbot.waitUntil(lambda: win.session.current.external_id == "p1", timeout=5000)
        press(qtbot, win, Qt.Key.Key_J, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: not win.judging.running and judged(mixed) != [], timeout=10_000)
        assert judged(mixed) == [("p1", "ok")] and len(warnings) == 2
    finally:
        win.context.runner.shutdown()
