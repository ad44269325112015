"""A conversation pair in Ada's window: two transcripts turn by turn, the compared turn
framed and in view, the other turns folded to a line until she unfolds them (H, a click,
or moving onto one with [ and ]), every message shown as a response is, the search and D
marking them. Driven by real keys; what is checked is what she sees."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.adapters.store import open_project
from desktop.services.app_settings import load_settings
from desktop.services.importing import import_file
from desktop.ui.main_window import MainWindow
from desktop.ui.pair_view import PairView
from desktop.ui.transcript_message import MessageView
from desktop.ui.transcript_view import TranscriptView
from tests.gui_helpers import open_window, press
from tests.helpers import new_project, write_jsonl
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
REPO = Path(__file__).resolve().parents[1]
SHOTS = Path("/tmp/shots/transcript")


def _side(*texts: str, system: str | None = None) -> list[dict[str, str]]:
    """User and assistant messages, alternating, after an optional system message."""
    roles = ("user", "assistant")
    messages = [{"role": "system", "content": system}] if system else []
    return messages + [{"role": roles[i % 2], "content": t} for i, t in enumerate(texts)]


ROWS = [
    {"id": "single", "instruction": "Add 2 and 2.", "response_a": "4", "response_b": "Four."},
    {  # MT-bench's turn-1 vote: turn 2 kept in the data, shown after the compared turn
        "id": "turn-one",
        "conversation_a": _side("Name a prime.", "7 is a prime.", "And another?", "11 is."),
        "conversation_b": _side("Name a prime.", "9 is a prime.", "And one more?", "13 is."),
        "turn": 1,
    },
    {  # what a history may hold, shown safely
        "id": "unsafe",
        "conversation_a": _side(
            "Show <script>alert(1)</script> and ![x](file:///etc/passwd)",
            "Sure: <b>bold?</b> ![logo](file:///etc/hostname) **real bold**",
            "Thanks. Now the total?",
            "€48.55",
        ),
        "conversation_b": _side(
            "Show <script>alert(1)</script> and ![x](file:///etc/passwd)",
            "No: <i>never</i>",
            "Thanks. Now the total?",
            "€48.45",
        ),
        "turn": 2,
    },
]


def _long_chat(turns: int) -> dict:
    texts_a, texts_b = [], []
    for k in range(1, turns + 1):
        texts_a += [f"Question {k}: what is {k} squared?", f"It is **{k * k}**, the square."]
        texts_b += [f"Question {k}: what is {k} squared?", f"It is {k * k + 1}, I think."]
    return {"id": "twenty", "conversation_a": _side(*texts_a), "turn": turns,
            "conversation_b": _side(*texts_b)}  # fmt: skip


@pytest.fixture(name="win")
def win_fixture(qtbot, tmp_path: Path, server: OpenAIServer):
    path = new_project(tmp_path)
    single = write_jsonl(tmp_path / "single.jsonl", ROWS[:1])
    chats = write_jsonl(tmp_path / "chats.jsonl", [*ROWS[1:], _long_chat(20)])
    with open_project(path) as store:
        import_file(store, single)
        import_file(store, chats)
        import_file(store, REPO / "resources" / "demo_conversations.jsonl")
    win = open_window(qtbot, path, server)
    win.resize(1400, 900)
    yield win
    win.context.runner.shutdown()


def _go(qtbot, win: MainWindow, pair: str) -> None:
    for _ in range(10):
        if win.session.current.external_id == pair:
            return
        press(qtbot, win, Qt.Key.Key_J)
    raise AssertionError(f"no pair {pair}")


def _messages(part: TranscriptView) -> list[tuple[str, str]]:
    """Each message shown (caption, text as shown), top to bottom, left to right: those of
    every unfolded turn, in sight or scrolled to (a turn far out of sight is not laid out)."""
    found = []
    for box in part.boxes:
        if box.body is None or not box.unfolded or not part.isVisible():
            continue
        for message in box.body.findChildren(MessageView):
            text = message.view.toPlainText() if message.view is not None else ""
            found.append((message.caption.text(), text))
    return found


def _headers(part: TranscriptView) -> list[str]:
    return [box.header.text() for box in part.boxes if part.isVisible()]


def _unfolded(qtbot, part: TranscriptView) -> None:
    qtbot.waitUntil(lambda: all(box.built() for box in part.boxes if box.unfolded))


def test_a_two_turn_pair_shows_its_history_folded_above_the_framed_compared_turn(
    qtbot, win: MainWindow
) -> None:
    view: PairView = win.display.pair_view
    assert not view.before.isVisible()  # a single-turn pair: as it always was
    assert view.instruction.title() == "Instruction"
    assert view.response_a.title().startswith("Response A")
    _go(qtbot, win, "demo-22")
    assert view.before.isVisible() and not view.after.isVisible()
    assert _headers(view.before) == [
        "Turn 1  ·  user: Write a haiku about a lighthouse.  ·  A 17 w, B 14 w"
    ]
    assert _messages(view.before) == []  # folded: its header only
    assert view.instruction.title() == "Turn 2 of 2, compared: the request"
    assert view.instruction.view.toPlainText().startswith("Now explain which line")
    assert view.response_a.title().startswith("Turn 2: Response A")
    # the compared turn is in view, under its history
    top = view.instruction.mapTo(view, view.instruction.rect().topLeft()).y()
    assert view.before.mapTo(view, view.before.rect().bottomLeft()).y() <= top
    assert top < view.height() // 3
    SHOTS.mkdir(parents=True, exist_ok=True)
    win.grab().save(str(SHOTS / "test-folded.png"))

    press(qtbot, win, Qt.Key.Key_H)
    _unfolded(qtbot, view.before)
    assert _messages(view.before) == [
        ("user (A and B)", "Write a haiku about a lighthouse."),
        (
            "A",
            "Night fog on the rocks —\none patient eye turns and turns,\nships count by its blink.",
        ),
        ("B", "Tall white tower stands\nits light sweeps across the sea\nboats are safe tonight"),
    ]
    assert win.statusBar().currentMessage() == (
        "turns before and after the compared one unfolded (H folds them)"
    )
    assert load_settings().history_unfolded
    press(qtbot, win, Qt.Key.Key_J)  # the next pair opens unfolded too
    _unfolded(qtbot, view.before)
    assert ("A and B answered", "Canberra.") in _messages(view.before)
    assert ("system (A and B)", "Answer in at most three sentences.") in _messages(view.before)
    press(qtbot, win, Qt.Key.Key_H)
    assert _messages(view.before) == []
    assert not load_settings().history_unfolded


def test_brackets_move_between_turns_unfolding_each_and_back_to_the_compared_one(
    qtbot, win: MainWindow
) -> None:
    view = win.display.pair_view
    _go(qtbot, win, "turn-one")  # turn 1 compared, turn 2 after it
    assert view.instruction.title() == "Turn 1 of 2, compared: the request"
    assert not view.before.isVisible()
    assert _headers(view.after) == ["Turn 2  ·  user: And another?  ·  A 2 w, B 2 w"]
    press(qtbot, win, Qt.Key.Key_BracketLeft)  # nothing before turn 1
    assert win.statusBar().currentMessage() == "turn 1 of 2: the compared turn"
    press(qtbot, win, Qt.Key.Key_BracketRight)
    _unfolded(qtbot, view.after)
    assert win.statusBar().currentMessage() == (
        "turn 2 of 2: after the compared turn ([ and ] move)"
    )
    assert view.current_turn() == 2
    assert _messages(view.after) == [  # the two sides asked different things here
        ("user (A)", "And another?"),
        ("user (B)", "And one more?"),
        ("A", "11 is."),
        ("B", "13 is."),
    ]
    assert view.after.boxes[0].frameShape() != view.after.boxes[0].Shape.NoFrame  # marked
    press(qtbot, win, Qt.Key.Key_BracketRight)  # the last: stays
    assert view.current_turn() == 2
    press(qtbot, win, Qt.Key.Key_BracketLeft)
    assert view.current_turn() is None
    assert win.statusBar().currentMessage() == "turn 1 of 2: the compared turn"

    press(qtbot, win, Qt.Key.Key_K)  # the single-turn pair before it
    assert win.session.current.external_id == "single"
    press(qtbot, win, Qt.Key.Key_BracketRight)
    assert win.statusBar().currentMessage() == (
        "this pair is a single turn: no other turns to move to"
    )


def test_history_is_shown_as_safely_as_a_response_raw_with_r_and_marked_by_d_and_search(
    qtbot, win: MainWindow
) -> None:
    view = win.display.pair_view
    _go(qtbot, win, "unsafe")
    press(qtbot, win, Qt.Key.Key_BracketLeft)  # onto turn 1: unfolded
    _unfolded(qtbot, view.before)
    shown = dict(_messages(view.before))
    assert shown["user (A and B)"] == (
        "Show <script>alert(1)</script> and [image: x]"  # HTML as text, no file read
    )
    assert shown["A"] == "Sure: <b>bold?</b> [image: logo] real bold"
    a_view, b_view = view.before.boxes[0].views[1:]
    assert a_view.toHtml().count("font-weight:700") == 1  # markdown's bold, not the tag's
    press(qtbot, win, Qt.Key.Key_D)  # the earlier answers' differences, and the compared
    qtbot.waitUntil(lambda: bool(a_view.marked("diff")))
    assert a_view.marked("diff")[0] == "Sure" and "[image: logo] real bold" in a_view.marked("diff")
    assert {"No", "never"} <= set(b_view.marked("diff"))
    assert view.response_a.view.marked("diff") == ["48.55"]
    press(qtbot, win, Qt.Key.Key_R)  # raw text, in the history too
    assert a_view.toPlainText() == "Sure: <b>bold?</b> ![logo](file:///etc/hostname) **real bold**"
    qtbot.waitUntil(
        lambda: a_view.marked("diff")[-1:] == ["![logo](file:///etc/hostname) **real bold**"]
    )
    win.grab().save(str(SHOTS / "test-unsafe-raw-D.png"))
    press(qtbot, win, Qt.Key.Key_R)
    press(qtbot, win, Qt.Key.Key_D)
    assert a_view.marked() == []
    press(qtbot, win, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(win.pairs.search, "never")  # a word only the history holds
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: b_view.marked("search") == ["never"], timeout=3000)


def test_a_pair_of_twenty_turns_shows_at_once_folded(qtbot, win: MainWindow) -> None:
    view = win.display.pair_view
    _go(qtbot, win, "unsafe")
    press(qtbot, win, Qt.Key.Key_H)
    press(qtbot, win, Qt.Key.Key_H)  # its history made, then folded: its views go next
    view_count = len(view.views())
    started = time.perf_counter()
    press(qtbot, win, Qt.Key.Key_J)
    assert win.session.current.external_id == "twenty"
    assert len(view.before.boxes) == 19 and len(view.views()) == 5 < view_count  # none made
    assert time.perf_counter() - started < 2
    assert _headers(view.before)[-1].startswith("Turn 19  ·  user: Question 19: what is 19")
    assert view.instruction.title() == "Turn 20 of 20, compared: the request"
    press(qtbot, win, Qt.Key.Key_H)
    _unfolded(qtbot, view.before)
    assert len(_messages(view.before)) == 19 * 3
    # the turn before the compared one is in view: the history scrolled to its end
    bar = view.before.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.value() == bar.maximum() > 0)
    win.grab().save(str(SHOTS / "test-twenty-unfolded.png"))


HH = REPO.parent / "shared" / "data" / "hh_rlhf" / "harmless-base-test-sample100.jsonl"


@pytest.mark.skipif(not HH.exists(), reason="needs ../shared/data")
def test_a_real_hh_rlhf_chat_shows_its_shared_history_once(
    qtbot, tmp_path: Path, server: OpenAIServer
) -> None:
    """Anthropic's HH-RLHF (red-team chats): the turns before the two transcripts part are
    one column each, every message there as the data has it."""
    from desktop.domain.conversation_comparison import first_difference

    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, HH)
    win = open_window(qtbot, path, server)
    view = win.display.pair_view
    for _ in range(100):
        if view.transcript is not None and len(view.before.boxes) >= 2:
            break
        press(qtbot, win, Qt.Key.Key_J)
    transcript = view.transcript
    assert transcript is not None and transcript.turn >= 3
    press(qtbot, win, Qt.Key.Key_H)
    _unfolded(qtbot, view.before)
    shown = _messages(view.before)
    assert {caption for caption, _ in shown} == {"user (A and B)", "A and B answered"}
    a, b = win.session.current.conversations()
    assert first_difference(a, b) == transcript.turn
    history = a[: 2 * (transcript.turn - 1)]
    assert len(shown) == len(history)  # one view for each message both sides share
    press(qtbot, win, Qt.Key.Key_R)  # raw text: each message exactly as the data has it
    raw = [text for _, text in _messages(view.before)]
    assert raw == [message.content for message in history]
    win.context.runner.shutdown()
