"""Two trajectories in Ada's window: the task on top, the two runs side by side step by step
(each tool call a card folded to a line, the steps lined up, the gap where a side took
fewer), what each side did summarised above it, the final answers under them. Pairs in
OpenAI's, TRL's and Anthropic's forms imported through the real import; driven by real
keys (. and , move, O and Shift+O unfold, D marks what differs); and a verdict, a note,
undo and a second reviewer work on such a pair as on any."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.domain.verdicts import Verdict
from desktop.services.importing import import_file
from desktop.services.overrides import override
from desktop.ui.layout_queue import layout_queue
from desktop.ui.main_window import MainWindow
from desktop.ui.pair_view import PairView
from desktop.ui.tool_card import ToolCard
from desktop.ui.trajectory_row import StepBox
from desktop.ui.trajectory_view import WINDOW, TrajectoryView
from tests.gui_helpers import human_rows, my_verdict, open_window, press, save_render
from tests.helpers import new_project, write_jsonl
from tests.hostile.test_window_stalls import _settled, _Steps
from tests.long_trajectories import long_pair
from tests.openai_server import OpenAIServer
from tests.trajectory_data import (
    OPENAI_TOOLS,
    TRL_TOOLS,
    anthropic_run,
    openai_run,
    trl_run,
)

pytestmark = pytest.mark.usefixtures("qapp")
SHIFT = Qt.KeyboardModifier.ShiftModifier
CTRL = Qt.KeyboardModifier.ControlModifier
SHOTS = Path("/tmp/shots/trajectories")
REPO = Path(__file__).resolve().parents[1]
LONG_RESULT = "\n".join(f"row {k}: Paris, 14°C, light rain, wind 12 km/h" for k in range(400))


def _flights(answer: str, *, retry: bool) -> list[dict[str, Any]]:
    """A booking agent's run in OpenAI's form: search, (an error and a retry), book."""
    task = {"role": "user", "content": "Book the cheapest direct flight from Paris to Lisbon"
            " on 14 March and tell me its price."}  # fmt: skip
    out: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a travel agent. Use the tools."},
        task,
    ]

    def call(k: int, name: str, arguments: dict[str, Any], result: str) -> None:
        call_id = f"call_{k}"
        text = "Let me search the flights first." if k == 1 else None
        out.append({"role": "assistant", "content": text, "tool_calls": [{"id": call_id,
                    "type": "function", "function": {"name": name,
                    "arguments": json.dumps(arguments)}}]})  # fmt: skip
        out.append({"role": "tool", "tool_call_id": call_id, "content": result})

    found = json.dumps([{"flight": "TP433", "price": 89.5, "stops": 0},
                        {"flight": "AF1024", "price": 112, "stops": 0}])  # fmt: skip
    if retry:
        call(1, "search_flights", {"from": "CDG", "to": "LIS", "date": "03-14"}, "Error: date")
        call(2, "search_flights", {"from": "CDG", "to": "LIS", "date": "2025-03-14"}, found)
        call(3, "book_flight", {"flight": "TP433", "passenger": "Ada"}, "Booked: ref QX7P2")
    else:
        call(1, "search_flights", {"from": "PAR", "to": "LIS", "date": "2025-03-14"}, found)
        call(2, "get_weather", {"location": "Lisbon"}, LONG_RESULT)
    out.append({"role": "assistant", "content": answer})
    return out


def _hostile_run(answer: str) -> list[dict[str, Any]]:
    run = openai_run(answer)
    run[3] = {**run[3], "content": "\x1b[31mred\u202e <b>hot</b> <script>alert(1)</script>"
              " ![x](file:///etc/passwd)"}  # fmt: skip
    return run


ROWS: list[dict[str, Any]] = [
    {"id": "single", "instruction": "Add 2 and 2.", "response_a": "4", "response_b": "Four."},
    {
        "id": "flights",
        "messages_a": _flights("Booked TP433 for €89.50 (ref QX7P2).", retry=True),
        "messages_b": _flights("The cheapest is TP433 at €89.50; I did not book it.", retry=False),
        "tools": OPENAI_TOOLS,
        "model_a": "agent-v1",
        "model_b": "agent-v2",
    },
    {
        "id": "weather",
        "messages_a": openai_run("Paris: 14°C, light rain.", calls=1),
        "messages_b": openai_run("Rainy.", calls=3, error=True),
        "tools": OPENAI_TOOLS,
    },
    {
        "id": "mult",
        "messages_a": trl_run("12"),
        "messages_b": trl_run("The product is 12.", a=4, b=3),
        "tools": TRL_TOOLS,
    },
    {
        "id": "claude",
        "messages_a": anthropic_run("It is 15 degrees."),
        "messages_b": anthropic_run("I could not reach the weather service.", error=True),
    },
    {"id": "hostile", "messages_a": _hostile_run("Hot."), "messages_b": openai_run("Mild.")},
]


@pytest.fixture(name="win")
def win_fixture(qtbot, tmp_path: Path, server: OpenAIServer):
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "single.jsonl", ROWS[:1]))
        import_file(store, write_jsonl(tmp_path / "runs.jsonl", ROWS[1:]))
    win = open_window(qtbot, path, server)
    win.resize(1500, 1000)
    yield win
    win.context.runner.shutdown()


def _go(qtbot, win: MainWindow, pair: str) -> None:
    for _ in range(len(ROWS) + 1):
        if win.session.current.external_id == pair:
            qtbot.waitUntil(lambda: not _pending(win.display.pair_view.trajectory))
            return
        press(qtbot, win, Qt.Key.Key_J)
    raise AssertionError(f"no pair {pair}")


def _pending(view: TrajectoryView) -> bool:
    return view.pending()


def _folded(view: TrajectoryView) -> list[tuple[str, ...]]:
    """Each row as it shows folded: its header, then each side's lines."""
    return [(box.header_text, *box.sides) for box in view.boxes]


def _shot(win: MainWindow, name: str) -> None:
    QApplication.processEvents()  # the rows' layouts settled (posted layout requests)
    SHOTS.mkdir(parents=True, exist_ok=True)
    win.grab().save(str(SHOTS / name))
    save_render(win, f"trajectories-{name}")


def test_two_runs_show_side_by_side_a_line_a_call_lined_up_with_the_gap_and_summaries(
    qtbot, win: MainWindow
) -> None:
    view: PairView = win.display.pair_view
    steps = view.trajectory
    assert not steps.isVisible()  # a single-turn pair: as it always was
    _go(qtbot, win, "flights")
    assert steps.isVisible() and not view.before.isVisible() and not view.after.isVisible()
    assert view.instruction.title() == "Task (A and B)"
    assert view.instruction.view.toPlainText().startswith("Book the cheapest direct flight")
    assert view.response_a.title().startswith("Final answer A")
    assert view.response_b.view.toPlainText().startswith("The cheapest is TP433")
    assert [label.text() for label in steps.summaries] == [
        "A: 3 steps · 3 tool calls · tools: search_flights, book_flight",
        "B: 2 steps · 2 tool calls · tools: search_flights, get_weather",
    ]
    assert _folded(steps) == [
        (
            "Step 1",
            'Let me search the flights first.\nsearch_flights(from="CDG", to="LIS",'
            ' date="03-14")  -> Error: date',
            'Let me search the flights first.\nsearch_flights(from="PAR", to="LIS",'
            ' date="2025-03-14")  -> [{"flight": "TP433", "price": 89.5, "st…',
        ),
        (
            "Step 2",
            'search_flights(from="CDG", to="LIS", date="2025-03-14")  -> [{"flight": "TP433",'
            ' "price": 89.5, "st…',
            'get_weather(location="Lisbon")  -> row 0: Paris, 14°C, light rain, wind 12…',
        ),
        (
            "Step 3",
            'book_flight(flight="TP433", passenger="Ada")  -> Booked: ref QX7P2',
            "no step here: B took fewer steps than A",
        ),
    ]
    assert all(not box.built() for box in steps.boxes)  # folded: nothing but the lines
    # the rows line up: A's and B's lines side by side, each half of the row, under the
    # summaries
    (a_x, a_width), (b_x, b_width) = steps.boxes[0].line.columns()
    assert a_width == b_width and b_x == a_x + a_width + 8
    summary = steps.summaries[1]
    assert abs(summary.mapTo(steps, summary.rect().topLeft()).x() - b_x) < 12
    _shot(win, "folded.png")


def _cards(box: StepBox) -> list[list[ToolCard]]:
    return [move.cards for move in box.moves]


def test_dot_and_comma_move_both_sides_a_step_and_o_unfolds_it_into_cards(
    qtbot, win: MainWindow
) -> None:
    steps = win.display.pair_view.trajectory
    _go(qtbot, win, "flights")
    say = win.statusBar().currentMessage
    press(qtbot, win, Qt.Key.Key_Period)
    assert steps.at == 0 and steps.boxes[0].frameShape() == StepBox.Shape.Box
    assert say() == "step 1 of 3: A search_flights; B search_flights (O unfolds it)"
    press(qtbot, win, Qt.Key.Key_Period)
    press(qtbot, win, Qt.Key.Key_Period)
    assert steps.at == 2 and say() == "step 3 of 3: A book_flight; B none (O unfolds it)"
    assert steps.boxes[0].frameShape() == StepBox.Shape.NoFrame  # one step framed
    press(qtbot, win, Qt.Key.Key_Period)  # the last: stays
    assert steps.at == 2
    press(qtbot, win, Qt.Key.Key_Comma)
    assert steps.at == 1 and say().startswith("step 2 of 3: A search_flights; B get_weather")
    press(qtbot, win, Qt.Key.Key_O)
    box = steps.boxes[1]
    qtbot.waitUntil(box.built)
    assert say() == "step 2 unfolded (O again folds it)"
    assert [b.unfolded for b in steps.boxes] == [False, True, False]
    (a_card,), (b_card,) = _cards(box)
    assert a_card.title.text() == "tool call: search_flights  ·  id call_2"
    assert a_card.arguments.toPlainText() == (
        '{\n  "from": "CDG",\n  "to": "LIS",\n  "date": "2025-03-14"\n}'
    )
    assert a_card.result.toPlainText().startswith('[{"flight": "TP433", "price": 89.5')
    assert a_card.more is None  # short: shown whole
    # B's long result: its first lines, and how much more there is
    assert b_card.result.toPlainText().count("\n") == 7
    hidden = len(LONG_RESULT) - len(b_card.result.toPlainText())
    assert b_card.more is not None and b_card.more.text() == (
        f"… {hidden:,} characters more (click to show all)"
    )
    assert box.line.lines() == 1 and box.moves[0].isVisible()  # the cards, not the lines
    qtbot.mouseClick(b_card.more, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: b_card.result.text() == LONG_RESULT)
    assert not b_card.more.isVisible()
    qtbot.waitUntil(layout_queue().idle)
    _shot(win, "unfolded.png")
    press(qtbot, win, Qt.Key.Key_O)
    assert not box.unfolded and box.line.lines() == 1 and not box.moves[0].isVisible()
    assert say() == "step 2 folded (O again unfolds it)"

    press(qtbot, win, Qt.Key.Key_O, SHIFT)  # every step
    qtbot.waitUntil(lambda: all(b.built() for b in steps.boxes))
    assert say() == "every step of two trajectories unfolded (Shift+O folds them)"
    assert [len(m.cards) for b in steps.boxes for m in b.moves] == [1, 1, 1, 1, 1]
    _shot(win, "all-unfolded.png")
    press(qtbot, win, Qt.Key.Key_J)  # the next pair opens unfolded too
    qtbot.waitUntil(lambda: all(b.built() for b in steps.boxes))
    assert win.session.current.external_id == "weather" and steps.boxes[0].unfolded
    press(qtbot, win, Qt.Key.Key_O, SHIFT)
    assert not any(b.unfolded for b in steps.boxes)

    press(qtbot, win, Qt.Key.Key_O)  # no step moved to on this pair: those on screen
    assert all(b.unfolded for b in steps.boxes)
    assert say() == "3 steps on screen unfolded (. and , move to one step)"
    press(qtbot, win, Qt.Key.Key_BracketRight)
    assert say() == "two trajectories: . and , move step by step (O unfolds a step)"
    press(qtbot, win, Qt.Key.Key_K)
    press(qtbot, win, Qt.Key.Key_K)
    assert win.session.current.external_id == "single"
    press(qtbot, win, Qt.Key.Key_Period)
    assert say() == "this pair is not two trajectories: no steps to move to ([ and ] move turns)"


def test_d_marks_per_step_whether_the_sides_differ_and_unfolded_the_words_and_the_answers(
    qtbot, win: MainWindow
) -> None:
    view = win.display.pair_view
    steps = view.trajectory
    _go(qtbot, win, "weather")  # OpenAI: one call against three, the first an error
    press(qtbot, win, Qt.Key.Key_D)
    assert [box.header_text for box in steps.boxes] == ["Step 1  ≠", "Step 2", "Step 3"]
    assert [label.text() for label in steps.summaries] == [
        "A: 1 step · 1 tool call · tools: get_weather",
        "B: 3 steps · 3 tool calls · tools: get_weather",
    ]
    assert [box.sides[0] for box in steps.boxes[1:]] == [
        "no step here: A took fewer steps than B"
    ] * 2
    _go(qtbot, win, "mult")  # TRL: the same call with its arguments the other way round
    assert _folded(steps) == [
        ("Step 1  ≠", "multiply(a=3, b=4)  -> 12", "multiply(a=4, b=3)  -> 12")
    ]
    assert steps.boxes[0].header_text == "Step 1  ≠"
    press(qtbot, win, Qt.Key.Key_Period)
    press(qtbot, win, Qt.Key.Key_O)
    box = steps.boxes[0]
    qtbot.waitUntil(lambda: box.built() and not _pending(steps))
    (a_card,), (b_card,) = _cards(box)
    assert a_card.title.text() == "tool call: multiply"  # TRL gives no id
    qtbot.waitUntil(lambda: bool(a_card.arguments.marked("diff")))
    assert a_card.arguments.marked("diff") == ["3", "4"]
    assert b_card.arguments.marked("diff") == ["4", "3"]
    assert a_card.result.marked("diff") == []  # the same result
    qtbot.waitUntil(lambda: bool(view.response_b.view.marked("diff")))
    assert "product" in " ".join(view.response_b.view.marked("diff"))  # the final answers
    assert view.response_a.view.marked("diff") == []
    press(qtbot, win, Qt.Key.Key_D)
    assert steps.boxes[0].header_text == "Step 1" and a_card.arguments.marked("diff") == []


def test_anthropic_blocks_show_their_text_above_the_card_and_an_error_result_as_one(
    qtbot, win: MainWindow
) -> None:
    steps = win.display.pair_view.trajectory
    _go(qtbot, win, "claude")
    assert steps.summaries[1].text() == ("B: 1 step · 1 tool call · 1 error · tools: get_weather")
    assert _folded(steps)[0][2] == (
        "I'll check the current weather in San Francisco.\n"
        'get_weather(location="San Francisco, CA", unit="celsius")  -> error: ConnectionError:'
        " the weather service is…"
    )
    press(qtbot, win, Qt.Key.Key_O, SHIFT)
    box = steps.boxes[0]
    qtbot.waitUntil(box.built)
    (a_card,), (b_card,) = _cards(box)
    assert box.moves[1].text.toPlainText() == "I'll check the current weather in San Francisco."
    assert b_card.result_caption.text() == "result: an error" and b_card.property("error")
    assert a_card.result_caption.text() == "result" and not a_card.property("error")
    assert b_card.title.text() == "tool call: get_weather  ·  id toolu_01A09q90qw90lq917835lq9"
    press(qtbot, win, Qt.Key.Key_O, SHIFT)


def test_what_a_tool_returned_is_shown_as_the_characters_it_is(qtbot, win: MainWindow) -> None:
    steps = win.display.pair_view.trajectory
    _go(qtbot, win, "hostile")
    folded = steps.boxes[0].sides[0]
    assert folded.endswith("-> \\x1b[31mred\\u202e <b>hot</b> <script>alert(1)</…")
    press(qtbot, win, Qt.Key.Key_Period)
    press(qtbot, win, Qt.Key.Key_O)
    qtbot.waitUntil(steps.boxes[0].built)
    result = _cards(steps.boxes[0])[0][0].result
    shown = result.toPlainText()
    assert "<b>hot</b> <script>alert(1)</script> ![x](file:///etc/passwd)" in shown
    assert "\x1b" not in shown and "␛[31mred" in shown  # drawn as a symbol, never acted on
    assert result.text() == ROWS[5]["messages_a"][3]["content"]  # the text itself, kept


def test_search_marks_text_in_tool_arguments_and_results(qtbot, win: MainWindow) -> None:
    """The list's search text is marked wherever a step shows it once unfolded: in a
    call's arguments and in a result, as in the final answers."""
    steps = win.display.pair_view.trajectory
    press(qtbot, win, Qt.Key.Key_F, CTRL)
    qtbot.keyClicks(win.pairs.search, "TP433")
    qtbot.keyClick(win.pairs.search, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.session.current.external_id == "flights")
    press(qtbot, win, Qt.Key.Key_O, SHIFT)
    qtbot.waitUntil(lambda: all(box.built() for box in steps.boxes) and not steps.pending())
    qtbot.waitUntil(layout_queue().idle)
    booked = _cards(steps.boxes[2])[0][0]  # A's book_flight(flight="TP433", ...)
    qtbot.waitUntil(lambda: booked.arguments.marked("search") == ["TP433"])
    found = _cards(steps.boxes[1])[0][0]  # A's second search: its result lists TP433
    assert found.result.marked("search") == ["TP433"]
    assert win.display.pair_view.response_b.view.marked("search") == ["TP433"]
    press(qtbot, win, Qt.Key.Key_O, SHIFT)


def test_the_example_runs_render_side_by_side(qtbot, tmp_path: Path, server: OpenAIServer) -> None:
    """The agent runs of examples/agent_runs.jsonl, as README shows them."""
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, REPO / "examples" / "agent_runs.jsonl")
    win = open_window(qtbot, path, server)
    win.resize(1600, 1000)
    steps = win.display.pair_view.trajectory
    for _ in range(2):
        press(qtbot, win, Qt.Key.Key_J)
    assert win.session.current.external_id == "disk-cleanup-web3"
    press(qtbot, win, Qt.Key.Key_D)
    press(qtbot, win, Qt.Key.Key_Period)
    press(qtbot, win, Qt.Key.Key_Period)
    press(qtbot, win, Qt.Key.Key_O)
    qtbot.waitUntil(lambda: steps.boxes[1].built() and not _pending(steps))
    qtbot.waitUntil(layout_queue().idle)
    assert steps.boxes[1].moves and steps.summaries[0].text().startswith("A: ")
    _shot(win, "example.png")
    for _ in range(2):
        press(qtbot, win, Qt.Key.Key_K)
    press(qtbot, win, Qt.Key.Key_O, SHIFT)
    qtbot.waitUntil(lambda: all(b.built() for b in steps.boxes) and not _pending(steps))
    qtbot.waitUntil(layout_queue().idle)
    _shot(win, "example-unfolded.png")
    win.context.runner.shutdown()


def test_a_verdict_a_note_undo_and_a_second_reviewer_work_on_two_trajectories(
    qtbot, tmp_path: Path, server: OpenAIServer
) -> None:
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "runs.jsonl", ROWS[1:3]))
        override(
            store,
            find_pair(store, "flights"),
            rubric="href-four",
            dimensions=("precision", "correctness", "format", "overall"),
            dimension="overall",
            verdict=Verdict.A,
            reviewer="bob",
        )
    win = open_window(qtbot, path, server)
    assert win.session.current.external_id == "flights"
    assert win.display.pair_view.trajectory.isVisible()
    press(qtbot, win, Qt.Key.Key_Period)  # moving through the steps leaves the verdicts be
    assert win.display.verdicts.focused_dimension == "precision"
    press(qtbot, win, Qt.Key.Key_A)
    press(qtbot, win, Qt.Key.Key_B)
    assert human_rows(path) == [
        ("flights", "overall", "A", "bob"),
        ("flights", "precision", "A", "ada"),
        ("flights", "correctness", "B", "ada"),
    ]
    press(qtbot, win, Qt.Key.Key_Z, CTRL)
    assert my_verdict(win.session, "correctness") is None
    assert my_verdict(win.session, "precision").value == "A"
    assert win.display.verdicts.shown("overall").final == "A (bob)"
    press(qtbot, win, Qt.Key.Key_N)
    note = win.display.verdicts.note
    assert QApplication.focusWidget() is note
    qtbot.keyClicks(note, "B never booked")
    qtbot.keyClick(note, Qt.Key.Key_Return)
    assert win.session.verdict_views().notes == {"format": "B never booked"}
    win.pairs.focus()
    press(qtbot, win, Qt.Key.Key_Z, CTRL)  # the note undone
    assert win.session.verdict_views().notes == {}
    press(qtbot, win, Qt.Key.Key_J)
    assert win.session.current.external_id == "weather"
    press(qtbot, win, Qt.Key.Key_T)
    assert my_verdict(win.session, "precision").value == "tie"
    win.context.runner.shutdown()


def test_two_runs_of_200_steps_show_a_window_of_rows_and_no_key_holds_the_window(
    qtbot, tmp_path: Path, server: OpenAIServer
) -> None:
    """Every key on two runs of 200 steps (J onto them and away, . and , past the rows
    made, O, Shift+O, D, R, the line that shows more) keeps the GUI thread's longest stall
    within 100 ms (tests/stall_meter.py)."""
    path = new_project(tmp_path)
    ordinary = [{"id": f"p{i}", "instruction": f"Add {i} and 2.", "output_1": f"{i + 2}",
                 "output_2": "?"} for i in (0, 2)]  # fmt: skip
    with open_project(path) as store:
        import_file(store, write_jsonl(tmp_path / "p0.jsonl", ordinary[:1]))
        import_file(store, write_jsonl(tmp_path / "long.jsonl", [long_pair(200, 180)]))
        import_file(store, write_jsonl(tmp_path / "p2.jsonl", ordinary[1:]))
    win = open_window(qtbot, path, server)
    win.resize(1400, 900)
    _settled(qtbot, win)
    steps = win.display.pair_view.trajectory
    meter = _Steps(also_wait=lambda: _pending(steps))
    step, key = meter.step, Qt.Key
    step("J: two runs of 200 steps", lambda: press(qtbot, win, key.Key_J))
    assert win.session.current.external_id == "long"
    made = len(steps.boxes)  # as many as fill the view, at most WINDOW
    assert steps.count() == 200 and 10 < made <= WINDOW
    bottom = steps.boxes[-1].geometry().bottom()
    assert bottom >= steps.area.viewport().height() - steps.boxes[-1].height()
    assert steps.summaries[0].text() == (
        "A: 200 steps · 200 tool calls · tools: read_file, run_tests, edit_file, search_code"
    )
    assert steps.more is not None and steps.more.text() == (
        f"{200 - made} more steps not shown (rows {made + 1}–200): click or scroll down to"
        " show 20 more"
    )
    assert steps.boxes[9].sides[1] == (
        'edit_file(path="src/module_21.py", line=31)  -> Error: edit_file timed out after 30 s'
    )
    step("D: differences", lambda: press(qtbot, win, key.Key_D))
    step("Shift+O: every step unfolded", lambda: press(qtbot, win, key.Key_O, SHIFT))
    built = [box.built() for box in steps.boxes]  # those near sight, not all made
    assert built[:2] == [True, True] and not built[-1]
    step("Shift+O: folded again", lambda: press(qtbot, win, key.Key_O, SHIFT))
    for k in range(1, 4):
        step(f".: step {k}", lambda: press(qtbot, win, key.Key_Period))
    step("O: the step unfolded", lambda: press(qtbot, win, key.Key_O))
    step(",: back a step", lambda: press(qtbot, win, key.Key_Comma))
    for k in range(24):
        step(f".: on to step {k + 3}", lambda: press(qtbot, win, key.Key_Period))
    assert steps.at == 25 and len(steps.boxes) == made + WINDOW  # made as it was reached
    assert not steps.current().visibleRegion().isEmpty()  # and brought into view
    more = steps.more
    step("a click on the line: more steps", lambda: qtbot.mouseClick(more, Qt.LeftButton))
    assert len(steps.boxes) == made + 2 * WINDOW
    step("R: raw text", lambda: press(qtbot, win, key.Key_R))
    step("R: markdown", lambda: press(qtbot, win, key.Key_R))
    step("J: an ordinary pair", lambda: press(qtbot, win, key.Key_J))
    assert not steps.isVisible() and steps.boxes == []
    step("K: the two runs again", lambda: press(qtbot, win, key.Key_K))
    assert len(steps.boxes) == made and steps.at is None
    step("Shift+O: unfolded again", lambda: press(qtbot, win, key.Key_O, SHIFT))
    step("resize the window", lambda: win.resize(1000, 760))
    step("resize it back", lambda: win.resize(1400, 900))
    step("scroll the steps down a page", lambda: steps.area.verticalScrollBar().triggerAction(
        steps.area.verticalScrollBar().SliderAction.SliderPageStepAdd))  # fmt: skip
    step("K: an ordinary pair", lambda: press(qtbot, win, key.Key_K))
    step("J: the runs, unfolded", lambda: press(qtbot, win, key.Key_J))
    step("D: off", lambda: press(qtbot, win, key.Key_D))
    _shot(win, "long.png")
    name, worst = meter.worst()
    print(f"the longest stall: {name}, {worst}")
    win.context.runner.shutdown()


def test_the_next_pair_shows_its_rows_in_the_rows_of_the_pair_before(
    qtbot, win: MainWindow
) -> None:
    """J onto another pair of runs makes no row: the rows shown before show the new pair's
    steps, folded and not framed, as a view made for it shows them; a step unfolded
    before has its cards deleted, after the new pair is shown."""
    win.resize(1200, 700)  # unfolded, the steps are taller than the view
    steps = win.display.pair_view.trajectory
    _go(qtbot, win, "flights")
    press(qtbot, win, Qt.Key.Key_Period)
    press(qtbot, win, Qt.Key.Key_O)
    qtbot.waitUntil(lambda: steps.boxes[0].built() and not _pending(steps))
    rows, body = list(steps.boxes), steps.boxes[0].body
    assert body is not None and steps.boxes[0].frameShape() == StepBox.Shape.Box
    press(qtbot, win, Qt.Key.Key_J)
    assert win.session.current.external_id == "weather"
    assert steps.boxes == rows  # the same three rows
    first = steps.boxes[0]
    assert not first.unfolded and not first.built() and first.views == []
    assert first.frameShape() == StepBox.Shape.NoFrame and steps.at is None
    holder = QWidget()  # never shown: the keys stay on the window
    fresh = TrajectoryView(None, lambda _view: None)
    fresh.setParent(holder)
    fresh.resize(steps.size())
    fresh.show_trajectories(steps.trajectories)
    assert _folded(steps) == _folded(fresh) and fresh.boxes[0] is not first
    assert [b.line.height() for b in steps.boxes] == [b.line.height() for b in fresh.boxes]
    qtbot.waitUntil(lambda: not shiboken6.isValid(body))  # deleted through the layout queue
    press(qtbot, win, Qt.Key.Key_O)  # before any move: the steps on screen, in the same rows
    qtbot.waitUntil(lambda: all(b.built() for b in steps.boxes) and not _pending(steps))
    for box in steps.boxes:
        shown = [len(move.cards) for move in box.moves]
        assert shown == [len(m.cards) for m in (box.row.a, box.row.b) if m is not None]
    content = steps.area.widget()
    tall = content.minimumSizeHint().height()
    qtbot.keyClick(win.pairs.table, Qt.Key.Key_J)  # fewer rows: those left over hidden, kept
    shown = content.minimumSizeHint().height()
    for _ in range(5):
        QApplication.processEvents()
    assert content.minimumSizeHint().height() == shown < tall  # the new rows', at once
    assert win.session.current.external_id == "mult" and len(steps.boxes) < len(rows)
    assert not rows[-1].isVisible() and all(b.isVisible() for b in steps.boxes)
