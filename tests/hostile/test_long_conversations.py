"""A conversation of 10,000 messages never holds the window: every key a reviewer presses on
it (J and K onto it and away, H, [ and ], R, D, Space, the line that shows earlier turns,
scrolling to it, a resize, the search) keeps the GUI thread's longest stall within 100 ms
(tests/stall_meter.py), as on a pair of twenty turns.

The outside run's case: a shared history of 10,000 messages held the window 1 s of the GUI
thread's time per J (0.8 s for H), and a script of keys did not end in 240 s, as each of its
5,000 turns was made as a line, and H made every message. Here a pair of such a history, and
a pair of two such conversations (every answer different, compared in the middle, so 2,500
turns follow it too), each between two ordinary pairs; the turns nearest the compared one
are shown, the rest behind one line that shows more, and of the turns made only those
near sight are laid out.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSlider

from desktop.adapters.store import open_project
from desktop.services.importing import import_file
from desktop.ui.transcript_view import WINDOW
from tests.gui_helpers import open_window, press
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile
from tests.hostile.test_window_stalls import _settled, _Steps
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
MESSAGES = 10_000
TURNS = MESSAGES // 2
SHOTS = Path("/tmp/shots/hostile")


def _side(answer: str) -> list[dict[str, str]]:
    """10,000 messages: a request and an answer, 5,000 times (the answers ``answer``'s)."""
    side = []
    for k in range(1, TURNS + 1):
        side.append({"role": "user", "content": f"Question {k}: what is {k} squared?"})
        side.append({"role": "assistant", "content": f"{answer} {k * k}, the square of {k}."})
    return side


def _shared_history() -> dict[str, object]:
    a = _side("It is")
    b = [*a[:-1], {"role": "assistant", "content": "No idea."}]
    return {"id": "chat", "conversation_a": a, "conversation_b": b}


def _two_conversations() -> dict[str, object]:
    return {"id": "chat", "conversation_a": _side("It is"), "conversation_b": _side("Perhaps"),
            "turn": TURNS // 2}  # fmt: skip


SHAPES = {
    "a shared history of 10,000 messages": (_shared_history, TURNS - 1, 0),
    "two conversations of 10,000 messages, compared at turn 2,500": (
        _two_conversations,
        TURNS // 2 - 1,
        TURNS // 2,
    ),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_key_on_a_conversation_of_10000_messages_keeps_the_window_answering(
    qtbot, tmp_path: Path, server: OpenAIServer, shape: str, hostile: Hostile
) -> None:
    make, before, after = SHAPES[shape]
    project = new_project(tmp_path)
    ordinary = [
        {"id": f"p{i}", "instruction": f"Add {i} and 2.", "output_1": f"{i + 2}", "output_2": "?"}
        for i in (0, 2)
    ]
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "p0.jsonl", ordinary[:1]))
        import_file(store, write_jsonl(tmp_path / "chat.jsonl", [make()]))
        import_file(store, write_jsonl(tmp_path / "p2.jsonl", ordinary[1:]))
    window = open_window(qtbot, project, server)
    window.resize(1400, 900)
    _settled(qtbot, window)
    view = window.display.pair_view
    history = view.before
    parts = (view.before, view.after)

    def under_way() -> bool:
        """Differences compared off the GUI thread, or turns unfolded not yet made (a step
        that makes turns in a later turn of the loop, as scrolling to the line does)."""
        boxes = [box for part in parts for box in part.boxes]
        return any(d.pending() for p in parts for d in p.diffs()) or any(
            box.unfolded and not box.built() for box in boxes
        )

    meter = _Steps(also_wait=under_way)
    step = meter.step
    key = Qt.Key

    step("J: the conversation", lambda: press(qtbot, window, key.Key_J))
    assert window.session.current.external_id == "chat"
    assert history.count() == before and view.after.count() == after
    assert len(history.boxes) == WINDOW  # the turns nearest the compared one
    assert history.boxes[-1].header.text().startswith(f"Turn {before}  ·  user: Question")
    assert history.more is not None and history.more.text().startswith(
        f"{before - WINDOW:,} earlier turns not shown (turns 1–{before - WINDOW:,})"
    )
    SHOTS.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(SHOTS / f"long-conversation-{after}-folded.png"))
    step("H: every turn unfolded", lambda: press(qtbot, window, key.Key_H))
    assert all(box.built() for box in history.boxes)
    assert len(history.views()) == WINDOW * (2 if after == 0 else 3)  # shared: once
    step("[: the turn before", lambda: press(qtbot, window, key.Key_BracketLeft))
    step("[: and the one before", lambda: press(qtbot, window, key.Key_BracketLeft))
    assert view.current_turn() == before - 1
    more = history.more
    step("a click on the line: earlier turns", lambda: qtbot.mouseClick(more, Qt.LeftButton))
    assert len(history.boxes) == 2 * WINDOW and all(box.built() for box in history.boxes)
    bar = history.verticalScrollBar()
    to_top = QAbstractSlider.SliderAction.SliderToMinimum

    def scroll_to_the_line() -> None:
        bar.triggerAction(to_top)  # as the wheel, a drag or a key does
        qtbot.waitUntil(lambda: len(history.boxes) == 3 * WINDOW)  # once the bar has moved

    step("scrolled to the line: more", scroll_to_the_line)
    assert len(history.boxes) == 3 * WINDOW and bar.value() > 0  # kept in place, not at it
    in_sight = [box for box in history.boxes if not box.visibleRegion().isEmpty()]
    assert in_sight and all(box.body is not None and box.body.isVisible() for box in in_sight)
    assert any(box.far for box in history.boxes)  # out of sight: not laid out
    window.grab().save(str(SHOTS / f"long-conversation-{after}-earlier.png"))
    step("]: the turn after", lambda: press(qtbot, window, key.Key_BracketRight))
    step("]: the compared turn", lambda: press(qtbot, window, key.Key_BracketRight))
    assert view.current_turn() is None
    if after:
        step(
            "]: the turn after the compared one", lambda: press(qtbot, window, key.Key_BracketRight)
        )
        assert view.current_turn() == before + 2 and view.after.boxes[0].built()
    step("R: raw text", lambda: press(qtbot, window, key.Key_R))
    step("D: differences", lambda: press(qtbot, window, key.Key_D))
    step("Space: scroll the responses", lambda: press(qtbot, window, key.Key_Space))
    shift = Qt.KeyboardModifier.ShiftModifier
    step("Shift+Space: back", lambda: press(qtbot, window, key.Key_Space, shift))
    step("resize the window", lambda: window.resize(1000, 760))
    window.grab().save(str(SHOTS / f"long-conversation-{after}.png"))
    step("resize it back", lambda: window.resize(1400, 900))
    step("H: folded again", lambda: press(qtbot, window, key.Key_H))
    step("R: markdown", lambda: press(qtbot, window, key.Key_R))
    step("J: an ordinary pair", lambda: press(qtbot, window, key.Key_J))
    assert not history.isVisible() and history.boxes == []
    step("K: the conversation again, folded", lambda: press(qtbot, window, key.Key_K))
    assert len(history.boxes) == WINDOW and not history.any_unfolded()
    step("K: an ordinary pair", lambda: press(qtbot, window, key.Key_K))
    step("U: the next pair without a verdict", lambda: press(qtbot, window, key.Key_U))
    assert window.session.current.external_id == "chat"
    step("D: off", lambda: press(qtbot, window, key.Key_D))
    ctrl = Qt.KeyboardModifier.ControlModifier
    step("Ctrl+F: to the search box", lambda: press(qtbot, window, key.Key_F, ctrl))
    step("search a word in every message", lambda: qtbot.keyClicks(window.pairs.search, "square"))
    step("Enter: the first match", lambda: qtbot.keyClick(window.pairs.search, key.Key_Return))
    assert window.session.current.external_id == "chat"
    step("H: unfolded, the search marking each message", lambda: press(qtbot, window, key.Key_H))
    assert all(view.marks("search") for view in history.views())
    hostile.held()
    window.context.runner.shutdown()
