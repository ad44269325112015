"""Importing agent runs from real files in each format's documented form (OpenAI chat,
TRL's tool-calling preferences, Anthropic Messages), JSONL and CSV alike: every call, id,
argument and result kept as written, unknown members included, the tools stored with the
pair, and what cannot be one run refused in one line with the project unchanged."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import iter_pairs
from desktop.domain.conversation_comparison import compare
from desktop.domain.conversations import ConversationShape, to_json
from desktop.domain.trajectory import run_counts
from tests.helpers import new_project, table_digest, tiebreak, write_jsonl
from tests.trajectory_data import OPENAI_TOOLS, TRL_TOOLS, anthropic_run, openai_run
from tests.trajectory_files import (
    ANTHROPIC_SYSTEM,
    ANTHROPIC_TOOLS,
    anthropic_rows,
    openai_rows,
    trl_rows,
    write_csv,
)

_PAIR_ROWS = "SELECT * FROM pairs ORDER BY id"


def imported(tmp_path: Path, data: Path, name: str = "p.tiebreak") -> list[Any]:
    path = new_project(tmp_path, name)
    run = tiebreak("import", path, data)
    assert (run.returncode, run.stderr) == (0, ""), run.stderr
    with open_project(path, readonly=True) as store:
        return list(iter_pairs(store))


def rows_of(path: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(_PAIR_ROWS).fetchall()


def _same_keys(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every row with every column (a CSV has a cell for each), absent ones empty."""
    names = list(dict.fromkeys(k for row in rows for k in row))
    return [{n: row.get(n, "") for n in names} for row in rows]


@pytest.mark.parametrize(
    "rows",
    [_same_keys(openai_rows()), trl_rows(), anthropic_rows()],
    ids=["openai", "trl", "anthropic"],
)
def test_jsonl_and_csv_give_the_same_pairs(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    """A CSV holds the message lists and the tools as JSON text: the same pairs, every
    stored column the same."""
    imported(tmp_path, write_jsonl(tmp_path / "runs.jsonl", rows), "from_jsonl.tiebreak")
    imported(tmp_path, write_csv(tmp_path / "runs.csv", rows), "from_csv.tiebreak")
    jsonl, csv_rows = (
        rows_of(tmp_path / "from_jsonl.tiebreak"),
        rows_of(tmp_path / "from_csv.tiebreak"),
    )
    assert jsonl == csv_rows and len(jsonl) == len(rows)


def test_openai_chat_runs_keep_every_call_id_and_result(tmp_path: Path) -> None:
    rows = openai_rows()
    pairs = imported(tmp_path, write_jsonl(tmp_path / "runs.jsonl", rows))
    first = pairs[0]
    assert first.external_id == "weather-1" and json.loads(first.tools) == OPENAI_TOOLS
    assert json.loads(to_json(first.conversation_b)) == rows[0]["messages_b"]
    steps = [m.step() for m in first.conversation_b]
    calls = [c for s in steps for c in s.calls]
    assert [(c.id, c.written, c.arguments) for c in calls] == [
        ("call_001", "string", {"location": "Paris, France"}),
        ("call_002", "string", {"location": "Paris, France"}),
    ]
    assert [r.call_id for s in steps for r in s.results] == ["call_001", "call_002"]
    shape = compare(first.conversation_a, first.conversation_b).shape
    assert shape is ConversationShape.TWO_TRAJECTORIES
    assert (first.response_a, first.response_b) == ("Paris: 14°C, light rain.", "It is raining.")


def test_trl_tool_calling_preferences_keep_their_tools_and_preference(tmp_path: Path) -> None:
    """TRL's documented form: dict arguments, no ids, results by name; tools a column; the
    chosen run is the reviewer trl's verdict, the runs compared whole."""
    path = new_project(tmp_path)
    run = tiebreak("import", path, write_jsonl(tmp_path / "prefs.jsonl", trl_rows()))
    assert run.returncode == 0, run.stderr
    assert "1 pairs added, 1 human verdicts added" in run.stdout
    with open_project(path, readonly=True) as store:
        (pair,) = iter_pairs(store)
        (verdict,) = store.conn.execute("SELECT verdict, reviewer FROM human_verdicts")
    assert pair.tools is not None and json.loads(pair.tools) == TRL_TOOLS
    assert pair.turn == 1
    chosen = pair.conversation_a if verdict[0] == "A" else pair.conversation_b
    assert verdict[1] == "trl" and chosen[-1].content == "3 * 4 = 12"
    steps = [m.step() for m in chosen]
    (call,) = [c for s in steps for c in s.calls]
    assert (call.id, call.name, call.arguments, call.written) == (
        None,
        "multiply",
        {"a": 3, "b": 4},
        "object",
    )
    assert [(r.name, r.text) for s in steps for r in s.results] == [("multiply", "12")]
    got = run_counts(chosen)
    assert (got.steps, got.calls, got.errors) == (1, 1, 0)


def test_anthropic_runs_take_their_system_prompt_from_a_column(tmp_path: Path) -> None:
    """Anthropic's system prompt is a top-level string: put first on both sides as a
    system message; the blocks are kept as written, the tools in Anthropic's form."""
    rows = anthropic_rows()
    (pair,) = imported(tmp_path, write_jsonl(tmp_path / "claude.jsonl", rows))
    for side, given in (
        (pair.conversation_a, rows[0]["messages_a"]),
        (pair.conversation_b, rows[0]["messages_b"]),
    ):
        assert json.loads(to_json(side)) == [
            {"role": "system", "content": ANTHROPIC_SYSTEM},
            *given,
        ]
    assert json.loads(pair.tools) == ANTHROPIC_TOOLS
    steps = [m.step() for m in pair.conversation_b]
    assert steps[3].role == "tool" and steps[3].results[0].error
    assert steps[2].calls[0].id == "toolu_01A09q90qw90lq917835lq9"
    assert pair.response_b == "I could not reach the weather service."


def test_unknown_members_are_kept_exactly(tmp_path: Path) -> None:
    run = anthropic_run("15 degrees")
    run[1]["content"][1]["cache_control"] = {"type": "ephemeral"}
    run[1]["id"] = "msg_01"
    other = openai_run("Rain.")
    other[-1] = {"role": "assistant", "content": "Rain.", "refusal": None, "annotations": []}
    rows = [
        {"id": "a", "messages_a": run, "messages_b": anthropic_run("It is 15 degrees.")},
        {"id": "o", "messages_a": other, "messages_b": openai_run("Rainy.")},
    ]
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    text = text.replace('"type": "ephemeral"', '"type": "ephemeral", "ttl": 1.50')
    data = tmp_path / "extra.jsonl"
    data.write_text(text, encoding="utf-8")
    first, second = imported(tmp_path, data)
    assert '"cache_control": {"type": "ephemeral", "ttl": 1.50}' in to_json(first.conversation_a)
    assert '"id": "msg_01"' in to_json(first.conversation_a)
    assert to_json(second.conversation_a).endswith(
        '{"role": "assistant", "content": "Rain.", "refusal": null, "annotations": []}]'
    )


def _bad(rows: list[dict[str, Any]], change: Any) -> list[dict[str, Any]]:
    change(rows[0])
    return rows


def _orphan_result(row: dict[str, Any]) -> None:
    row["rejected"][1] = {"role": "tool", "name": "add", "content": "7"}


def _unknown_tool_use(row: dict[str, Any]) -> None:
    row["messages_b"][2]["content"][0]["tool_use_id"] = "toolu_nobody"


def _two_systems(row: dict[str, Any]) -> None:
    row["messages_a"].insert(0, {"role": "system", "content": "Be brief."})


def _bad_tools(row: dict[str, Any]) -> None:
    row["tools"] = {"name": "get_weather"}


def _arguments_not_json(row: dict[str, Any]) -> None:
    row["messages_b"][2]["tool_calls"][0]["function"]["arguments"] = "{location: Paris"


@pytest.mark.parametrize(
    ("rows", "says"),
    [
        (_bad(trl_rows(), _orphan_result), "field 'rejected': message 2: a result of tool 'add'"),
        (
            _bad(anthropic_rows(), _unknown_tool_use),
            "field 'messages_b': message 3: a tool result answers call 'toolu_nobody'",
        ),
        (_bad(anthropic_rows(), _two_systems), "field 'system': field 'messages_a' begins with a"),
        (_bad(anthropic_rows(), _bad_tools), "field 'tools': must be a list of tool definitions"),
        (_bad(openai_rows(), _arguments_not_json), "arguments are text that is not JSON"),
    ],
    ids=["trl-orphan", "anthropic-unknown-id", "two-systems", "tools", "arguments"],
)
def test_what_cannot_be_a_run_is_refused_in_one_line(
    tmp_path: Path, rows: list[dict[str, Any]], says: str
) -> None:
    path = new_project(tmp_path)
    before = table_digest(path)
    data = write_jsonl(tmp_path / "bad.jsonl", rows)
    run = tiebreak("import", path, data)
    assert run.returncode == 1
    line = run.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert "bad.jsonl line 1" in line and says in line, line
    assert table_digest(path) == before


def test_openai_preference_records_with_tools_import_as_two_runs(tmp_path: Path) -> None:
    """OpenAI's DPO record with ``input.tools``, tool calls in ``input.messages`` and an
    output that calls a tool: the pair's tools, the runs compared at their last step."""
    run = openai_run("unused")
    record = {
        "input": {"messages": run[:4], "tools": OPENAI_TOOLS, "parallel_tool_calls": True},
        "preferred_output": [{"role": "assistant", "content": "It is 14°C with light rain."}],
        "non_preferred_output": [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_009",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"location": "Paris"}'},
                    }
                ],
            }
        ],
    }
    path = new_project(tmp_path)
    done = tiebreak("import", path, write_jsonl(tmp_path / "dpo.jsonl", [record]))
    assert done.returncode == 0, done.stderr
    with open_project(path, readonly=True) as store:
        (pair,) = iter_pairs(store)
    assert json.loads(pair.tools) == OPENAI_TOOLS
    assert pair.metadata == {"input": {"parallel_tool_calls": True}}
    assert {pair.response_a, pair.response_b} == {"It is 14°C with light rain.", ""}


def test_trl_implicit_prompt_runs_are_the_same_pair(tmp_path: Path) -> None:
    """TRL's implicit prompt (each side the whole run) gives the pair the explicit one does."""
    explicit = trl_rows()
    (row,) = explicit
    implicit = [
        {
            "chosen": row["prompt"] + row["chosen"],
            "rejected": row["prompt"] + row["rejected"],
            "tools": json.dumps(row["tools"]),  # TRL's docs once wrote the tools as JSON text
        }
    ]
    imported(tmp_path, write_jsonl(tmp_path / "explicit.jsonl", explicit), "explicit.tiebreak")
    imported(tmp_path, write_jsonl(tmp_path / "implicit.jsonl", implicit), "implicit.tiebreak")
    assert rows_of(tmp_path / "explicit.tiebreak") == rows_of(tmp_path / "implicit.tiebreak")


def test_two_runs_that_are_the_same_are_refused(tmp_path: Path) -> None:
    (row,) = trl_rows()
    row["rejected"] = row["chosen"]
    path = new_project(tmp_path)
    run = tiebreak("import", path, write_jsonl(tmp_path / "same.jsonl", [row]))
    assert run.returncode == 1
    assert "field 'rejected': the same run as 'chosen'" in run.stderr.strip()


def test_a_system_prompt_of_text_blocks_is_kept_as_blocks(tmp_path: Path) -> None:
    """Anthropic's ``system`` may be a list of text blocks (with cache_control, say): kept
    as the first message's content, from JSONL and from a CSV's JSON text alike."""
    rows = anthropic_rows()
    blocks = [{"type": "text", "text": ANTHROPIC_SYSTEM, "cache_control": {"type": "ephemeral"}}]
    rows[0]["system"] = blocks
    (pair,) = imported(tmp_path, write_jsonl(tmp_path / "blocks.jsonl", rows), "j.tiebreak")
    first = json.loads(to_json(pair.conversation_a))[0]
    assert first == {"role": "system", "content": blocks}
    assert pair.conversation_a[0].content == ANTHROPIC_SYSTEM
    imported(tmp_path, write_csv(tmp_path / "blocks.csv", rows), "c.tiebreak")
    assert rows_of(tmp_path / "j.tiebreak") == rows_of(tmp_path / "c.tiebreak")
