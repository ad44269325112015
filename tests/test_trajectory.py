"""Agent trajectories as pairs: each format's messages read and kept exactly
(``domain/trajectory.py``, ``conversations.messages``), two runs of one task compared as
wholes, what cannot be one run refused in a line, and the tools stored with the pair."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import get_pair
from desktop.domain.conversation_comparison import compare, pair_fields
from desktop.domain.conversations import (
    ConversationError,
    ConversationShape,
    from_json,
    messages,
    to_json,
)
from desktop.domain.trajectory import run_counts
from desktop.services.importing import import_file
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.trajectory_data import (
    OPENAI_TOOLS,
    TRL_TOOLS,
    anthropic_run,
    openai_run,
    trl_run,
)


def _steps(side: list[dict[str, Any]]) -> list[Any]:
    return [m.step() for m in messages(side)]


def test_openai_calls_arguments_and_results_are_read() -> None:
    steps = _steps(openai_run("It is 14°C and raining.", calls=2, error=True))
    call = steps[2].calls[0]
    assert (call.id, call.name, call.arguments, call.written) == (
        "call_001",
        "get_weather",
        {"location": "Paris, France"},
        "string",
    )
    assert steps[3].role == "tool" and steps[3].results[0].call_id == "call_001"
    got = run_counts(messages(openai_run("It is 14°C and raining.", calls=2, error=True)))
    # two steps (each a call); the final answer is what is compared, not a step
    assert (got.steps, got.calls, got.errors, got.tools) == (2, 2, 0, ("get_weather",))


def test_trl_and_anthropic_forms_read_as_the_same_steps() -> None:
    trl = _steps(trl_run("12"))
    assert trl[1].calls[0].arguments == {"a": 3, "b": 4} and trl[1].calls[0].id is None
    assert trl[2].results[0].name == "multiply" and trl[2].results[0].text == "12"
    claude = _steps(anthropic_run("It is 15 degrees.", error=True))
    assert claude[1].text == "I'll check the current weather in San Francisco."
    assert claude[1].calls[0].arguments == {"location": "San Francisco, CA", "unit": "celsius"}
    assert claude[2].role == "tool" and claude[2].results[0].error
    assert claude[3].text == "It is 15 degrees."
    assert run_counts(messages(anthropic_run("It is 15 degrees.", error=True))).errors == 1


@pytest.mark.parametrize(
    "run",
    [
        openai_run("Rain.", calls=3),
        trl_run("12"),
        anthropic_run("15 degrees", error=True),
        [*openai_run("x"), {"role": "assistant", "content": "y", "refusal": None, "extra": [1.50]}],
    ],
)
def test_a_side_is_stored_exactly_as_written(run: list[dict[str, Any]]) -> None:
    """Every member, unknown ones included, and numbers digit for digit."""
    text = json.dumps(run, ensure_ascii=False).replace("[1.5]", "[1.50]")
    from desktop.domain import numerals

    side = messages(numerals.loads(text))
    assert to_json(side) == text
    assert from_json(to_json(side)) == side


def test_two_runs_of_a_task_compare_their_final_answers() -> None:
    a = messages(openai_run("Paris: 14°C and light rain.", calls=1))
    b = messages(openai_run("It is raining in Paris.", calls=3))
    got = compare(a, b)
    assert got.shape is ConversationShape.TWO_TRAJECTORIES
    assert (got.instruction, got.response_a, got.response_b) == (
        "What is the weather like in Paris today?",
        "Paris: 14°C and light rain.",
        "It is raining in Paris.",
    )
    assert (got.at_a, got.at_b) == (len(a) - 1, len(b) - 1)
    fields = pair_fields(a, b, None, OPENAI_TOOLS)
    assert fields["turn"] == 1 and json.loads(str(fields["tools"])) == OPENAI_TOOLS


def test_a_run_that_stops_after_a_call_has_no_final_answer() -> None:
    """An agent cut off at its step limit said something beside its last call: that is a
    step, not an answer, so the compared answer is empty and the judge is told."""
    from desktop.domain.trajectory_text import trajectory_text

    cut = openai_run("never said", calls=2)[:-2]  # ends on the second call, unanswered
    cut[-1]["content"] = "Checking once more."
    a, b = messages(cut), messages(openai_run("Rain.", calls=1))
    got = compare(a, b)
    assert (got.response_a, got.response_b) == ("", "Rain.")
    assert run_counts(a).steps == 2  # the last call is a step
    assert trajectory_text(a).endswith("[No final answer: the run stopped after its last step]")


@pytest.mark.parametrize(
    ("side", "message"),
    [
        (
            [
                TASK := {"role": "user", "content": "Hi"},
                {"role": "tool", "tool_call_id": "c9", "content": "1"},
            ],
            "answers call 'c9', which no message before it makes",
        ),
        (
            [
                {"role": "user", "content": "Hi"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        },
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        },
                    ],
                },
            ],
            "tool call id 'c1' is used twice",
        ),
        (
            [
                {"role": "user", "content": "Hi"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{loc"},
                        }
                    ],
                },
            ],
            "arguments are text that is not JSON",
        ),
        (
            [{"role": "user", "content": "Hi"}, {"role": "tool", "name": "g", "content": "1"}],
            "a result of tool 'g' answers no call of it before it",
        ),
    ],
)
def test_what_cannot_be_one_run_is_refused(side: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ConversationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        messages(side, "messages_a")


def test_runs_of_different_tasks_are_refused() -> None:
    a = messages(openai_run("x"))
    other = openai_run("y")
    other[1] = {"role": "user", "content": "And in Rome?"}
    with pytest.raises(ConversationError, match=r"the task .* differs between A and B"):
        compare(a, messages(other))


def _openai_rows() -> list[dict[str, Any]]:
    return [
        {
            "id": "weather-1",
            "messages_a": openai_run("Paris: 14°C, light rain.", calls=1),
            "messages_b": openai_run("Rainy.", calls=2, error=True),
            "tools": OPENAI_TOOLS,
            "model_a": "agent-v1",
            "model_b": "agent-v2",
        },
        {
            "id": "mult-1",
            "messages_a": trl_run("12"),
            "messages_b": trl_run("The product is 12.", a=4, b=3),
            "tools": TRL_TOOLS,
        },
    ]


def test_an_openai_file_with_tool_calls_imports_and_keeps_every_call(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    data = write_jsonl(tmp_path / "runs.jsonl", _openai_rows())
    with open_project(path) as store:
        report = import_file(store, data)
        assert report.added == 2
        pair = get_pair(store, 1)
    assert pair is not None and pair.conversation_a is not None and pair.conversation_b is not None
    assert pair.response_b == "Rainy." and pair.turn == 1
    assert json.loads(to_json(pair.conversation_b)) == _openai_rows()[0]["messages_b"]
    assert pair.tools is not None and json.loads(pair.tools) == OPENAI_TOOLS
    again = write_jsonl(tmp_path / "again.jsonl", _openai_rows())
    with open_project(path) as store:
        assert import_file(store, again).added == 0  # the same pairs: nothing new


def test_an_import_refuses_a_bad_run_in_one_line_and_keeps_nothing(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    rows = _openai_rows()
    rows[1]["messages_b"] = [*trl_run("12")[:2], {"role": "tool", "name": "add", "content": "7"}]
    data = write_jsonl(tmp_path / "bad.jsonl", rows)
    done = tiebreak("import", path, data)
    assert done.returncode != 0
    line = done.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "bad.jsonl" in line and "messages_b" in line and "tool 'add'" in line
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT count(*) FROM pairs").fetchone()[0] == 0


@pytest.mark.parametrize(
    "odd",
    [
        {"role": "assistant", "content": "y", "name": "helper"},  # a member of its own
        {"role": "assistant", "content": "", "refusal": None},  # a member of the format
        {"role": "user", "content": [{"type": "text", "text": "parts"}]},  # content parts
        {"role": "tool", "content": "a result", "tool_call_id": "c1"},
    ],
)
def test_a_long_plain_side_with_one_message_more_than_role_and_text_reads_back_as_written(
    odd: dict[str, Any],
) -> None:
    """The quick read of a side of role-and-text messages (checked in C's loops) stops at
    the one message that is more, wherever it is, and the side reads back as written; a
    side read again is the same side."""
    plain = [{"role": ("user", "assistant")[i % 2], "content": f"m{i}"} for i in range(2_000)]
    if odd["role"] == "tool":
        call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        odd_run = [{"role": "assistant", "content": None, "tool_calls": [call]}, odd]
    else:
        odd_run = [odd]
    for at in (0, 1_000, 2_000):
        run = [*plain[:at], *odd_run, *plain[at:]]
        from desktop.domain import numerals

        side = messages(numerals.loads(json.dumps(run, ensure_ascii=False)))
        stored = to_json(side)
        assert from_json(stored) == side and from_json(stored) is from_json(stored)
        assert json.loads(to_json(from_json(stored))) == run
        assert [m.raw is not None for m in from_json(stored)] == [
            len(m) != 2 or not isinstance(m["content"], str) or m["role"] == "tool" for m in run
        ]


def test_two_sides_read_together_equal_each_read_alone() -> None:
    """A shared history's messages are read once for both sides: whatever the two share
    (nothing, the first message, all but the last, everything, a text with the marks
    between messages written inside it), each side is what reading it alone gives."""
    from desktop.domain.conversations import sides_from_json

    def side(n: int, last: str = "end", odd: str = "") -> list[dict[str, Any]]:
        msgs = [{"role": ("user", "assistant")[i % 2], "content": f"m{i} {odd}"} for i in range(n)]
        return [*msgs, {"role": "assistant" if n % 2 else "user", "content": last}]

    tricky = '}, {"role": "user", "content": "x"}, {\\\\"role'
    cases = [
        (side(40), side(40, "other")),  # a shared history
        (side(40), side(40)),  # the same side twice
        (side(40), side(41)),  # B one message longer
        (side(41), side(40)),
        (side(40, odd=tricky), side(40, "x", odd=tricky)),
        (side(40), side(40, odd="b")),  # nothing shared past the first characters
        (side(3), side(3, "other")),
        (side(40), [{"role": "user", "content": "m0 "}, {"role": "tool", "content": "r"}]),
        (side(40), [*side(40)[:-1], {"role": "assistant", "content": "y", "name": "n"}]),
    ]
    for a, b in cases:
        text_a, text_b = (json.dumps(x, ensure_ascii=False) for x in (a, b))
        assert sides_from_json(text_a, text_b) == (
            from_json.__wrapped__(text_a),
            from_json.__wrapped__(text_b),
        )
        if a[:-1] == b[:-1] and len(a) > 10 and all(len(m) == 2 for m in b):  # read once
            read_a, read_b = sides_from_json(text_a, text_b)
            assert all(x is y for x, y in zip(read_a[:-1], read_b[:-1], strict=True))
        assert sides_from_json(None, text_b) == (None, from_json(text_b))
        assert sides_from_json(text_a, None) == (from_json(text_a), None)
