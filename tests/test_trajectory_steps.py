"""Two trajectories lined up step by step (desktop/domain/trajectory_steps.py), without Qt:
a step is an assistant message with the results of its calls, each call a card with its
result under it; the steps line up by place, later user turns line up across the sides,
the side with fewer steps has the gap; the counts are trajectory.counts'."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop.domain import numerals
from desktop.domain.conversations import Conversation, from_json, messages, to_json
from desktop.domain.trajectory import run_counts
from desktop.domain.trajectory_steps import (
    RESULT_LINES,
    clipped,
    summary,
    trajectories,
)
from tests.long_trajectories import long_run
from tests.trajectory_data import anthropic_run, openai_run, trl_run

#: Inspect AI's form: ``function`` the name, ``arguments`` a dict, a tool's ``error``.
INSPECT_RUN: list[dict[str, Any]] = [
    {"role": "user", "content": "List the files."},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "t1", "function": "bash", "arguments": {"cmd": "ls"}, "type": "function"},
        {"id": "t2", "function": "bash", "arguments": {"cmd": "ls -a"}, "type": "function"}]},
    {"role": "tool", "content": "", "tool_call_id": "t1", "function": "bash",
     "error": {"type": "timeout", "message": "timed out"}},
    {"role": "tool", "content": "a b", "tool_call_id": "t2", "function": "bash"},
    {"role": "assistant", "content": "a and b."},
]  # fmt: skip


def _side(run: list[dict[str, Any]], field: str = "conversation_a") -> Conversation:
    return messages(run, field)


def _rows(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    found = trajectories(_side(a), _side(b, "conversation_b"))
    return [
        (r.number, r.kind, r.a.lines() if r.a else None, r.b.lines() if r.b else None)
        for r in found.rows
    ]


def test_openai_runs_line_up_by_step_and_the_shorter_shows_the_gap() -> None:
    found = trajectories(
        _side(openai_run("Rain.", calls=3, error=True)),
        _side(openai_run("Sun.", calls=1), "conversation_b"),
    )
    assert found.system == "You are a weather assistant."
    assert found.task == "What is the weather like in Paris today?"
    assert (found.moves_a, found.moves_b, len(found.rows)) == (3, 1, 3)
    first, second, third = found.rows
    assert first.a is not None and first.b is not None
    assert first.a.lines() == [
        'get_weather(location="Paris, France")  -> Error: service unavailable'
    ]
    assert first.b.lines() == ['get_weather(location="Paris, France")  -> 14°C, light rain']
    assert (first.a.first, first.a.last) == (1, 2)  # its messages, counted after the task
    assert (third.a.first, third.a.last) == (5, 6)  # type: ignore[union-attr]
    assert (second.gap, third.gap, first.gap) == ("b", "b", None)
    assert not first.same and not first.shared
    card = first.a.cards[0]
    assert card.call is not None and card.call.id == "call_001"
    assert card.result is not None and card.result.call_id == "call_001"
    assert card.arguments_text() == '{\n  "location": "Paris, France"\n}'


def test_the_counts_are_trajectory_counts_and_the_summary_says_them() -> None:
    for run in (
        openai_run("Rain.", calls=3, error=True),
        trl_run("12"),
        anthropic_run("15", error=True),
        long_run(30, "Done."),
        INSPECT_RUN,
    ):
        side = _side(run)
        found = trajectories(side, side)
        assert found.counts_a == run_counts(side)
    inspect = trajectories(_side(INSPECT_RUN), _side(INSPECT_RUN))
    assert (inspect.counts_a.calls, inspect.counts_a.errors) == (2, 1)
    (row,) = inspect.rows
    assert row.a is not None and [card.line() for card in row.a.cards] == [
        'bash(cmd="ls")  -> error: timed out',
        'bash(cmd="ls -a")  -> a b',
    ]
    claude = trajectories(_side(anthropic_run("15", error=True)), _side(anthropic_run("15")))
    assert summary("A", claude.counts_a) == (
        "A: 1 step · 1 tool call · 1 error · tools: get_weather"
    )
    assert summary("B", claude.counts_b).endswith("1 tool call · tools: get_weather")


def test_trl_results_answer_by_name_and_anthropic_blocks_keep_their_text() -> None:
    ((number, kind, a, b),) = _rows(trl_run("12"), trl_run("12", a=4, b=3))
    assert (number, kind) == (1, "step")
    assert a == ["multiply(a=3, b=4)  -> 12"] and b == ["multiply(a=4, b=3)  -> 12"]
    claude = trajectories(_side(anthropic_run("15", error=True)), _side(anthropic_run("15")))
    row = claude.rows[0]
    assert row.a is not None and row.a.text == "I'll check the current weather in San Francisco."
    assert row.a.cards[0].error and row.a.errors == 1
    assert row.a.cards[0].result_line() == ("-> error: ConnectionError: the weather service is…")
    assert row.b is not None and not row.b.cards[0].error


def test_later_user_turns_line_up_across_the_sides() -> None:
    def run(first_steps: int, answer: str) -> list[dict[str, Any]]:
        later = openai_run(answer, calls=1)[2:]
        later[0]["tool_calls"] = [{**later[0]["tool_calls"][0], "id": "call_later"}]
        later[1] = {**later[1], "tool_call_id": "call_later"}
        side = openai_run("first answer", calls=first_steps)
        return [*side, {"role": "user", "content": "And tomorrow?"}, *later]

    rows = _rows(run(1, "Sun."), run(3, "Clouds."))
    kinds = [(kind, a is None, b is None) for _, kind, a, b in rows]
    # A's one step and B's three (the gap on A's side), then what each answered the first
    # turn, lined up, then the user turn, lined up, then a step each
    assert kinds == [
        ("step", False, False),
        ("step", True, False),
        ("step", True, False),
        ("step", False, False),
        ("request", False, False),
        ("step", False, False),
    ]
    assert rows[3][2] == rows[3][3] == ["first answer"]
    found = trajectories(_side(run(1, "Sun.")), _side(run(3, "Clouds."), "conversation_b"))
    request = found.rows[4]
    assert request.shared and request.role == "user" and request.a is not None
    assert request.a.text == "And tomorrow?"
    assert found.rows[3].a is not None and found.rows[3].a.lines() == ["first answer"]


def test_a_run_that_stops_on_a_call_keeps_it_as_a_step() -> None:
    side = openai_run("unused", calls=1)[:-2]  # the call, no result, no answer
    found = trajectories(_side(side), _side(openai_run("Sun.")))
    (row,) = found.rows
    assert row.a is not None and row.a.cards[0].result is None
    assert row.a.cards[0].result_line() == "-> (no result)"


def test_rows_are_made_when_read_and_a_long_run_is_lined_up_lazily() -> None:
    a, b = _side(long_run(200, "A.")), _side(long_run(150, "B.", 1), "conversation_b")
    found = trajectories(a, b)
    assert len(found.rows) == 200 and (found.moves_a, found.moves_b) == (200, 150)
    assert found.rows._made == {}  # nothing read yet
    assert found.rows[199].b is None and found.rows[149].b is not None
    assert sorted(found.rows._made) == [149, 199]
    assert found.counts_a.calls == 200 and found.counts_a.steps == 200


def test_a_long_result_folds_at_a_few_lines_and_says_how_much_is_left() -> None:
    text = "\n".join(f"line {k}" for k in range(100))
    shown, left = clipped(text)
    assert shown.count("\n") == RESULT_LINES - 1 and left == len(text) - len(shown)
    assert clipped("short") == ("short", 0)
    one_line = "x" * 5_000
    assert clipped(one_line) == ("x" * 800, 4_200)


def test_arguments_are_pretty_printed() -> None:
    stored = to_json(_side([*openai_run("x")[:2], {"role": "assistant", "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "pay",
        "arguments": json.dumps({"amount": 1.5, "to": ["ada", "bob"], "memo": {}})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "Paid."}]))  # fmt: skip
    side = from_json(stored)
    card = trajectories(side, side).rows[0].a.cards[0]  # type: ignore[union-attr]
    assert card.arguments_line() == 'pay(amount=1.5, to=["ada", "bob"], memo={})'
    assert card.arguments_text() == (
        '{\n  "amount": 1.5,\n  "to": [\n    "ada",\n    "bob"\n  ],\n  "memo": {}\n}'
    )


@pytest.mark.parametrize(
    "run",
    [
        openai_run("Rain.", calls=3),
        trl_run("12"),
        anthropic_run("15 degrees", error=True),
        long_run(12, "Done."),
    ],
)
def test_a_stored_side_reads_back_as_the_messages_it_was(run: list[dict[str, Any]]) -> None:
    """The window reads every side it shows through from_json: read back, each message is
    the one imported, kept as written."""
    side = _side(run)
    assert from_json(to_json(side)) == side
    assert json.loads(to_json(from_json(to_json(side)))) == run


def test_numbers_shown_as_text_read_back_digit_for_digit() -> None:
    """from_json reads a side's messages with numbers as Python reads them (quicker) and
    reads again, numbers as written, a message whose text could show one."""
    text = (
        '[{"role": "user", "content": "Go."}, {"role": "assistant", "content": [{"type":'
        ' "text", "text": 1.50}], "tool_calls": [{"id": "c1", "type": "function", "function":'
        ' {"name": "f", "arguments": "{}"}}]}, {"role": "tool", "tool_call_id": "c1",'
        ' "content": "", "error": {"message": 2.0e3}}, {"role": "assistant", "content":'
        ' "Done."}]'
    )
    side = messages(numerals.loads(text))
    assert to_json(side) == text
    read = from_json(to_json(side))
    assert [m.content for m in read] == ["Go.", "1.50", "2.0e3", "Done."]
    assert read == side


def test_a_chat_that_quotes_a_run_reads_back_as_a_chat() -> None:
    """A side is read as a run at once where it holds a run's marks (a tool's result, a
    call): a chat whose text quotes them is still read back as the chat it is."""
    side = messages(
        [
            {"role": "user", "content": 'What does {"role": "tool"} mean?'},
            {"role": "assistant", "content": 'A result: see "tool_calls": [ in the docs.'},
        ]
    )
    stored = to_json(side)
    assert all(m.raw is None for m in side) and from_json(stored) == side
    odd = '[{"role": "user", "x\\"role": "tool", "content": "Hi."}]'  # a key ends in a mark
    assert from_json(odd) == messages(json.loads(odd)) and from_json(odd)[0].raw == odd[1:-1]


@pytest.mark.parametrize(
    "run",
    [openai_run("Rain.", calls=3), trl_run("12"), anthropic_run("15 degrees", error=True),
     long_run(30, "Done.")],
)  # fmt: skip
def test_a_side_read_from_a_project_is_counted_as_the_one_imported(
    run: list[dict[str, Any]],
) -> None:
    """The counts read a stored side's messages as from_json decoded them: the same
    calls, errors and tools as reading each message anew."""
    side = _side(run)
    stored = from_json(to_json(side))
    assert stored.decoded  # type: ignore[attr-defined]
    assert trajectories(stored, stored).counts_a == trajectories(side, side).counts_a
    assert trajectories(side, side).counts_a == run_counts(side)


def test_a_long_result_on_one_line_is_what_the_whole_of_it_gives() -> None:
    """A folded card reads a result's start only: the line is the whole result's, made one
    line, whatever its spaces (a start of spaces alone reads on)."""
    from desktop.domain.trajectory_steps import _one_line

    def whole(text: str, most: int) -> str:
        flat = " ".join(text.split())
        return flat if len(flat) <= most else flat[: most - 1] + "…"

    texts = [
        "\n".join(f"{k}: def page_{k}(items):" for k in range(400)),
        " " * 5_000 + "late",
        "\n\t " * 300 + "x " * 300,
        "short",
        "",
        "a" * 160 + " " * 5 + "b",
    ]
    for text in texts:
        for most in (1, 2, 40, 60, 90):
            assert _one_line(text, most) == whole(text, most)
