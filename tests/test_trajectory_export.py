"""Exporting agent runs: JSONL exactly (the tools as stored; export -> import -> export the
same bytes), the per-pair counts, a CSV with each run flattened into one readable cell,
TRL's and OpenAI's preference records in their tool-calling forms (checked against the
shapes their documentation shows), the merge from an export carrying the tools, and the
conversions between the forms keeping every call, id, argument and result."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair, iter_pairs
from desktop.domain import numerals
from desktop.domain.conversations import messages
from desktop.domain.trajectory import step
from desktop.domain.trajectory_formats import (
    flat,
    to_openai,
    to_trl,
    tools_as_openai,
)
from desktop.domain.verdicts import Verdict
from desktop.services.overrides import override
from tests.helpers import new_project, tiebreak, write_jsonl
from tests.trajectory_data import OPENAI_TOOLS, TRL_TOOLS, anthropic_run, openai_run, trl_run
from tests.trajectory_files import ANTHROPIC_SYSTEM, ANTHROPIC_TOOLS, anthropic_rows, openai_rows

COUNTS = ("steps_a", "tool_calls_a", "tool_errors_a", "steps_b", "tool_calls_b", "tool_errors_b")


def ok(*args: str | Path) -> str:
    run = tiebreak(*args)
    assert (run.returncode, run.stderr) == (0, ""), run.stderr
    return run.stdout.strip()


def trl_messages_rows() -> list[dict[str, Any]]:
    """Two runs in TRL's message form, in the messages shape's columns."""
    return [
        {
            "id": "mult-1",
            "messages_a": trl_run("12"),
            "messages_b": trl_run("The product is 12.", a=4, b=3),
            "tools": TRL_TOOLS,
        }
    ]


def mixed_project(tmp_path: Path, name: str = "p.tiebreak") -> Path:
    """A project of runs in the three forms, a conversation and a single-turn pair."""
    path = new_project(tmp_path, name)
    talk = {
        "id": "talk",
        "run": {"seed": 7, "temperature": 0.7},  # metadata, kept through the round trip
        "messages_a": [
            {"role": "user", "content": "=1+1"},
            {"role": "assistant", "content": "2"},
            {"role": "user", "content": "And 2+2?"},
            {"role": "assistant", "content": "4"},
        ],
        "messages_b": [
            {"role": "user", "content": "=1+1"},
            {"role": "assistant", "content": "two"},
            {"role": "user", "content": "And 2+2?"},
            {"role": "assistant", "content": "four"},
        ],
    }
    single = {
        "id": "one",
        "instruction": "Capital of France?",
        "output_1": "Paris",
        "output_2": "Lyon",
    }
    for stem, rows in (
        ("openai", openai_rows()),
        ("trl", trl_messages_rows()),
        ("anthropic", anthropic_rows()),
        ("talk", [talk]),
        ("single", [single]),
    ):
        ok("import", path, write_jsonl(tmp_path / f"{stem}.jsonl", rows))
    return path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines()]


def give(path: Path, ref: str, verdict: Verdict) -> None:
    """Reviewer ann's verdict on pair-v2's overall, as `tiebreak override` gives one."""
    with open_project(path) as store:
        override(
            store,
            find_pair(store, ref),
            rubric="pair-v2",
            dimension="overall",
            verdict=verdict,
            reviewer="ann",
        )


def test_jsonl_round_trip_gives_the_same_file_byte_for_byte(tmp_path: Path) -> None:
    path = mixed_project(tmp_path)
    first = tmp_path / "first.jsonl"
    ok("export", path, first)
    again = new_project(tmp_path, "again.tiebreak")
    assert ok("import", again, first).endswith("6 pairs added")
    second = tmp_path / "second.jsonl"
    ok("export", again, second)
    assert second.read_bytes() == first.read_bytes()
    assert '"metadata": {"run": {"seed": 7, "temperature": 0.7}}' in first.read_text("utf-8")
    keys = "SELECT pair_key, conversation_a, conversation_b, turn, tools, metadata FROM pairs"
    with open_project(path) as a, open_project(again) as b:
        assert list(a.conn.execute(keys)) == list(b.conn.execute(keys))


def test_jsonl_carries_the_tools_as_stored_and_the_counts(tmp_path: Path) -> None:
    path = mixed_project(tmp_path)
    ok("export", path, tmp_path / "out.jsonl")
    by_id = {row["external_id"]: row for row in lines(tmp_path / "out.jsonl")}
    with open_project(path, readonly=True) as store:
        stored = {p.external_id: p.tools for p in iter_pairs(store)}
    text = (tmp_path / "out.jsonl").read_text("utf-8")
    for tools in stored.values():
        if tools is not None:
            assert f'"tools": {tools}, "steps_a"' in text  # written as stored
    assert by_id["weather-1"]["tools"] == OPENAI_TOOLS
    assert by_id["claude-1"]["tools"] == ANTHROPIC_TOOLS
    assert by_id["talk"]["tools"] is None and by_id["one"]["tools"] is None
    assert [by_id["weather-1"][c] for c in COUNTS] == [1, 1, 0, 2, 2, 0]
    assert [by_id["claude-1"][c] for c in COUNTS] == [1, 1, 0, 1, 1, 1]
    assert [by_id["talk"][c] for c in COUNTS] == [1, 0, 0, 1, 0, 0]
    assert [by_id["one"][c] for c in COUNTS] == [0, 0, 0, 0, 0, 0]
    assert len({tuple(row) for row in by_id.values()}) == 1  # every row the same columns


def test_a_project_without_runs_exports_no_trajectory_columns(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    talk = {"messages_a": [*openai_run("x")[1:2], {"role": "assistant", "content": "x"}]}
    talk["messages_b"] = [*talk["messages_a"][:1], {"role": "assistant", "content": "y"}]
    ok("import", path, write_jsonl(tmp_path / "talk.jsonl", [talk]))
    ok("export", path, tmp_path / "out.jsonl")
    ok("export", path, tmp_path / "out.csv")
    (row,) = lines(tmp_path / "out.jsonl")
    header = (tmp_path / "out.csv").read_text("utf-8").splitlines()[0]
    for name in ("tools", *COUNTS):
        assert name not in row and name not in header.split(",")
    assert "trajectory_a" not in header


def test_csv_flattens_each_run_into_one_readable_cell(tmp_path: Path) -> None:
    path = mixed_project(tmp_path)
    summary = ok("export", path, tmp_path / "out.csv")
    assert "4 pairs of trajectories, each run flattened into one readable cell per side" in summary
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        rows = {row["external_id"]: row for row in reader}
    start = header.index("turn")
    assert header[start : start + 8] == [
        "turn",
        "system",
        "turn_1_user",
        "turn_1_a",
        "turn_1_b",
        "turn_2_user",
        "turn_2_a",
        "turn_2_b",
    ]  # two turns: the conversation's, not a run's steps
    assert header[start + 8 : start + 16] == ["trajectory_a", "trajectory_b", *COUNTS]
    run = rows["weather-1"]
    assert run["trajectory_b"] == "\n".join(
        [
            "[1] system: You are a weather assistant.",
            "[2] user: What is the weather like in Paris today?",
            "[3] assistant:",
            '    → get_weather({"location": "Paris, France"})',
            "[4] tool get_weather: Error: service unavailable",
            "[5] assistant:",
            '    → get_weather({"location": "Paris, France"})',
            "[6] tool get_weather: 14°C, light rain",
            "[7] assistant: It is raining.",
        ]
    )
    assert (run["turn"], run["turn_1_user"], run["turn_1_b"]) == (
        "1",
        "What is the weather like in Paris today?",
        "It is raining.",
    )
    assert [run[c] for c in COUNTS] == ["1", "1", "0", "2", "2", "0"]
    claude = rows["claude-1"]
    assert claude["system"] == ANTHROPIC_SYSTEM
    assert "[4] tool get_weather, error: ConnectionError" in claude["trajectory_b"]
    assert (
        '    → get_weather({"location": "San Francisco, CA", "unit": "celsius"})'
        in claude["trajectory_a"]
    )
    talk = rows["talk"]
    assert talk["trajectory_a"] == "" and talk["turn_2_b"] == "four"
    assert talk["turn_1_user"] == "'=1+1"  # the formula guard, as on every exported text cell


def test_a_run_that_reads_as_a_formula_is_guarded(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    run_a, run_b = openai_run("=HYPERLINK(1)"), openai_run("ok")
    run_a[1] = run_b[1] = {"role": "user", "content": "=cmd|' /C calc'!A0"}
    del run_a[0], run_b[0]
    rows = [{"id": "=evil", "messages_a": run_a, "messages_b": run_b, "tools": OPENAI_TOOLS}]
    ok("import", path, write_jsonl(tmp_path / "evil.jsonl", rows))
    ok("export", path, tmp_path / "out.csv")
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as fh:
        (row,) = csv.DictReader(fh)
    cells = [v for v in row.values() if v]
    assert not any(v[0] in "=+-@\t\r" for v in cells), cells
    assert row["turn_1_a"] == "'=HYPERLINK(1)" and row["trajectory_a"].startswith("[1] user: =cmd")


def _trl_records(tmp_path: Path) -> list[dict[str, Any]]:
    path = mixed_project(tmp_path)
    give(path, "weather-1", Verdict.B)
    give(path, "mult-1", Verdict.A)
    give(path, "claude-1", Verdict.A)
    summary = ok("export", path, tmp_path / "prefs.jsonl", "--format", "trl")
    assert summary.split(": ", 1)[1].startswith("3 trl records")
    return lines(tmp_path / "prefs.jsonl")


def test_trl_records_are_its_tool_calling_form(tmp_path: Path) -> None:
    """TRL's docs: a ``tools`` column of JSON schemas; ``tool_calls`` of ``{"type":
    "function", "function": {"name", "arguments": {...}}}``, arguments a dict; the result a
    ``tool`` message with the tool's ``name``. The ids a file gave are kept; none made up."""
    by_id = {r["id"]: r for r in _trl_records(tmp_path)}
    weather = by_id["weather-1"]
    assert weather["tools"] == OPENAI_TOOLS
    assert weather["prompt"] == openai_run("x")[:2]
    chosen = weather["chosen"]  # B's run: two calls, the first answered with an error
    assert chosen[0]["tool_calls"] == [
        {
            "id": "call_001",
            "type": "function",
            "function": {"name": "get_weather", "arguments": {"location": "Paris, France"}},
        }
    ]
    assert "content" not in chosen[0]
    assert chosen[1] == {
        "role": "tool",
        "name": "get_weather",
        "tool_call_id": "call_001",
        "content": "Error: service unavailable",
    }
    assert chosen[-1] == {"role": "assistant", "content": "It is raining."}
    assert weather["rejected"][-1] == {"role": "assistant", "content": "Paris: 14°C, light rain."}
    mult = by_id["mult-1"]
    assert mult["prompt"] == trl_run("x")[:1]
    assert mult["chosen"] == trl_run("12")[1:]  # TRL's own form, as written
    claude = by_id["claude-1"]
    assert claude["tools"] == tools_as_openai(ANTHROPIC_TOOLS)
    assert claude["tools"][0]["function"]["parameters"] == ANTHROPIC_TOOLS[0]["input_schema"]
    assert claude["prompt"][0] == {"role": "system", "content": ANTHROPIC_SYSTEM}
    assert claude["chosen"][0]["tool_calls"][0]["function"]["arguments"] == {
        "location": "San Francisco, CA",
        "unit": "celsius",
    }
    assert claude["chosen"][1]["tool_call_id"] == "toolu_01A09q90qw90lq917835lq9"


def test_a_trl_export_imports_again_as_the_same_runs(tmp_path: Path) -> None:
    _trl_records(tmp_path)
    other = new_project(tmp_path, "other.tiebreak")
    ok("import", other, tmp_path / "prefs.jsonl")
    with open_project(other, readonly=True) as store:
        pairs = {p.external_id: p for p in iter_pairs(store)}
    weather = pairs["weather-1"]
    assert json.loads(weather.tools) == OPENAI_TOOLS
    sides = {weather.response_a, weather.response_b}
    assert sides == {"It is raining.", "Paris: 14°C, light rain."}


def test_openai_preference_records_carry_tools_and_tool_calls(tmp_path: Path) -> None:
    """OpenAI's DPO format: ``input.messages`` with the calls (arguments JSON strings) and
    ``tool`` results both runs share, ``input.tools`` in OpenAI's form, each output one
    assistant message (its API reference: assistant messages; its guide: the last). Runs
    that part before their last message cannot be written, and are counted so."""
    path = new_project(tmp_path)
    shared = openai_run("unused")[:4]
    calling = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_002",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"location":"Paris"}'},
            }
        ],
    }
    rows = [
        {  # the same calls and results, different final answers: writable
            "id": "last-step",
            "messages_a": [*shared, {"role": "assistant", "content": "14°C and rain."}],
            "messages_b": [*shared, calling],  # B's last step calls a tool again
            "tools": ANTHROPIC_TOOLS,
        },
        {  # runs that each make their own calls: not one output each
            "id": "apart",
            "messages_a": openai_run("Rain.", calls=1),
            "messages_b": openai_run("Rainy.", calls=2),
            "tools": OPENAI_TOOLS,
        },
    ]
    ok("import", path, write_jsonl(tmp_path / "runs.jsonl", rows))
    give(path, "last-step", Verdict.A)
    give(path, "apart", Verdict.B)
    summary = ok("export", path, tmp_path / "dpo.jsonl", "--format", "openai-preference")
    assert "1 openai-preference records" in summary
    assert (
        "1 pairs of trajectories whose runs differ in more than their last message (OpenAI's"
        " outputs are one assistant message; --format trl keeps whole runs)" in summary
    )
    (record,) = lines(tmp_path / "dpo.jsonl")
    assert record["input"] == {
        "messages": shared,
        "tools": tools_as_openai(ANTHROPIC_TOOLS),
        "parallel_tool_calls": True,
    }
    assert record["input"]["messages"][2]["tool_calls"][0]["function"]["arguments"] == (
        '{"location": "Paris, France"}'
    )
    assert record["input"]["tools"][0]["type"] == "function"
    assert record["preferred_output"] == [{"role": "assistant", "content": "14°C and rain."}]
    assert record["non_preferred_output"] == [calling]  # its arguments' string as written
    # The record imports again: the same two runs, their tools.
    other = new_project(tmp_path, "other.tiebreak")
    ok("import", other, tmp_path / "dpo.jsonl")
    with open_project(other, readonly=True) as store:
        (pair,) = iter_pairs(store)
    assert json.loads(pair.tools) == tools_as_openai(ANTHROPIC_TOOLS)


def test_a_merge_from_an_export_carries_the_tools(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    rows = [{k: v for k, v in r.items() if k != "id"} for r in openai_rows()]  # no ids
    ok("import", path, write_jsonl(tmp_path / "runs.jsonl", rows))
    with open_project(path) as store:
        first = next(iter_pairs(store))
        override(
            store, first, rubric="pair-v2", dimension="overall", verdict=Verdict.A, reviewer="ann"
        )
    ok("export", path, tmp_path / "out.jsonl")
    other = new_project(tmp_path, "other.tiebreak")
    said = ok("merge", other, tmp_path / "out.jsonl", "--reviewer", "bob")
    assert "2 rows read, 0 already in the project, 2 pairs added, 1 human verdicts added" in said
    columns = "SELECT pair_key, conversation_a, conversation_b, turn, tools FROM pairs ORDER BY id"
    with open_project(path) as a, open_project(other) as b:
        assert list(a.conn.execute(columns)) == list(b.conn.execute(columns))
        verdicts = b.conn.execute("SELECT verdict, reviewer FROM human_verdicts").fetchall()
    assert verdicts == [("A", "bob")]
    # Matched again by their texts, runs and tools (no ids): nothing new.
    again = ok("merge", other, tmp_path / "out.jsonl", "--reviewer", "bob")
    assert "2 rows read, 2 already in the project, 0 human verdicts added" in again


# --- conversions between the forms ---


def _side(run: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A side as stored (numbers as written), back as message dicts."""
    return [
        numerals.loads(m.raw) if m.raw else {"role": m.role, "content": m.content}
        for m in messages(run)
    ]


def _what(side: list[dict[str, Any]], system: str | None = None) -> dict[str, Any]:
    """Every call (id, name, arguments) and result (the call it answers, its text), and
    the messages' text, of a side in any form."""
    steps = [step(m) for m in side]
    calls = [(c.id, c.name, numerals.to_json(c.arguments)) for s in steps for c in s.calls]
    results = [(r.call_id, r.text) for s in steps for r in s.results]
    said = [(s.role, s.text) for s in steps if not s.results]
    if system is not None:
        said.insert(0, ("system", system))
    return {"calls": calls, "results": results, "said": said}


RUNS = {
    "openai": openai_run("It rains.", calls=3, error=True),
    "anthropic": [
        {"role": "system", "content": ANTHROPIC_SYSTEM},
        *anthropic_run("15 degrees", error=True),
    ],
}


@pytest.mark.parametrize("name", list(RUNS))
@pytest.mark.parametrize("path", [("trl", "openai"), ("openai", "trl", "openai")])
def test_round_trips_keep_every_call_id_argument_and_result(
    name: str, path: tuple[str, ...]
) -> None:
    side = _side(RUNS[name])
    want = _what(flat(to_openai(side)))
    for form in path:
        side = flat(to_trl(side) if form == "trl" else to_openai(side))
    assert _what(side) == want
    messages(side)  # still one run: every result answers a call made before it


def test_a_side_without_ids_gets_stable_ones() -> None:
    """TRL links a result to its call by name: in OpenAI's form each call is given an id
    by its place, the same on every conversion, and each result the id of its call."""
    run = trl_run("12")
    run[1]["tool_calls"].append(
        {"type": "function", "function": {"name": "multiply", "arguments": {"a": 1, "b": 2}}}
    )
    run.insert(3, {"role": "tool", "name": "multiply", "content": "2"})
    side = _side(run)
    first, second = flat(to_openai(side)), flat(to_openai(side))
    assert first == second
    assert [c["id"] for c in first[1]["tool_calls"]] == ["call_1", "call_2"]
    assert [c["function"]["arguments"] for c in first[1]["tool_calls"]] == [
        '{"a": 3, "b": 4}',
        '{"a": 1, "b": 2}',
    ]
    assert [(m["tool_call_id"], m["content"]) for m in first[2:4]] == [
        ("call_1", "12"),
        ("call_2", "2"),
    ]
    # TRL's form back: as written (numbers too), no id made up
    assert numerals.to_json(flat(to_trl(side))) == json.dumps(run)


def test_numbers_in_arguments_stay_as_written() -> None:
    text = json.dumps(trl_run("x")).replace('"a": 3', '"a": 3.50')
    side = _side(numerals.loads(text))
    openai = flat(to_openai(side))
    assert openai[1]["tool_calls"][0]["function"]["arguments"] == '{"a": 3.50, "b": 4}'
    assert numerals.to_json(flat(to_trl(side))[1]).count("3.50") == 1


def test_digits_of_openai_arguments_reach_the_trl_and_csv_exports(tmp_path: Path) -> None:
    """OpenAI's arguments are JSON text; TRL wants a dict and the CSV a readable line, and
    both keep the numbers as that text wrote them (found by a new user: 1.50 came out as
    1.5, and 21 digits as the nearest float)."""
    digits = '{\\"location\\": \\"Paris\\", \\"days\\": 1.50, \\"pi\\": 3.14159265358979323846}'
    row = {"id": "digits", "messages_a": openai_run("Sunny."), "messages_b": openai_run("Rain.")}
    text = json.dumps(row).replace(json.dumps(json.dumps({"location": "Paris, France"}))[1:-1],
                                   digits)  # fmt: skip
    assert digits in text
    (tmp_path / "runs.jsonl").write_text(text + "\n", encoding="utf-8")
    project = new_project(tmp_path)
    ok("import", project, tmp_path / "runs.jsonl")
    with open_project(project) as store:
        pair = find_pair(store, "digits")
        override(store, pair, rubric="trajectory", dimension="overall", verdict=Verdict.A,
                 reviewer="ann")  # fmt: skip
    ok("export", project, tmp_path / "out.trl.jsonl", "--format", "trl", "--rubric", "trajectory")
    ok("export", project, tmp_path / "out.csv", "--rubric", "trajectory")
    trl = (tmp_path / "out.trl.jsonl").read_text(encoding="utf-8")
    assert '{"location": "Paris", "days": 1.50, "pi": 3.14159265358979323846}' in trl
    cells = next(csv.DictReader((tmp_path / "out.csv").open(encoding="utf-8")))
    for side in ("trajectory_a", "trajectory_b"):
        assert '"days": 1.50, "pi": 3.14159265358979323846' in cells[side]


def test_tool_definitions_convert_to_openai_s_form() -> None:
    as_openai = tools_as_openai(ANTHROPIC_TOOLS)
    assert as_openai == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": ANTHROPIC_TOOLS[0]["description"],
                "parameters": ANTHROPIC_TOOLS[0]["input_schema"],
            },
        }
    ]
    assert tools_as_openai(as_openai) == as_openai  # OpenAI's already, as it is
    strict = tools_as_openai([{**ANTHROPIC_TOOLS[0], "strict": True}])
    assert strict[0]["function"]["strict"] is True  # a member of its own carried across
    assert tools_as_openai(TRL_TOOLS) == TRL_TOOLS


def test_a_csv_export_cannot_add_a_run_but_names_the_jsonl_one(tmp_path: Path) -> None:
    """A run flattened into a cell cannot be rebuilt: a CSV merge that would add one stops
    in one line; the JSONL export adds it whole."""
    path = new_project(tmp_path)
    rows = [{k: v for k, v in r.items() if k != "system"} for r in trl_messages_rows()]
    ok("import", path, write_jsonl(tmp_path / "runs.jsonl", rows))
    give(path, "mult-1", Verdict.A)
    ok("export", path, tmp_path / "out.csv")
    other = new_project(tmp_path, "other.tiebreak")
    run = tiebreak("merge", other, tmp_path / "out.csv", "--reviewer", "bob")
    assert run.returncode == 1
    line = run.stderr.strip()
    assert "\n" not in line and "a conversation pair the project lacks" in line
    assert "merge the JSONL export" in line
    with open_project(other) as store:
        assert store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0] == 0


def test_tools_offered_but_not_called_reach_the_training_records(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    task = openai_run("x")[:2]
    rows = [
        {
            "id": "no-calls",
            "messages_a": [*task, {"role": "assistant", "content": "I cannot know."}],
            "messages_b": [*task, {"role": "assistant", "content": "Let me guess: rain."}],
            "tools": OPENAI_TOOLS,
        }
    ]
    ok("import", path, write_jsonl(tmp_path / "runs.jsonl", rows))
    give(path, "no-calls", Verdict.A)
    ok("export", path, tmp_path / "trl.jsonl", "--format", "trl")
    ok("export", path, tmp_path / "dpo.jsonl", "--format", "openai-preference")
    (trl,) = lines(tmp_path / "trl.jsonl")
    (dpo,) = lines(tmp_path / "dpo.jsonl")
    assert trl["tools"] == OPENAI_TOOLS and trl["prompt"] == task
    assert trl["chosen"] == [{"role": "assistant", "content": "I cannot know."}]
    assert dpo["input"]["tools"] == OPENAI_TOOLS
    assert dpo["preferred_output"] == [{"role": "assistant", "content": "I cannot know."}]


EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "agent_runs.jsonl"


def test_the_example_runs_export_in_every_format(tmp_path: Path) -> None:
    """The six example pairs of agent runs (OpenAI's chat form, with tools): JSONL again
    the same bytes; a TRL record for each, dict arguments, the preferred run chosen; every
    OpenAI record or its reason counted."""
    path = new_project(tmp_path)
    ok("import", path, EXAMPLE)
    ok("export", path, tmp_path / "first.jsonl")
    again = new_project(tmp_path, "again.tiebreak")
    ok("import", again, tmp_path / "first.jsonl")
    ok("export", again, tmp_path / "second.jsonl")
    assert (tmp_path / "second.jsonl").read_bytes() == (tmp_path / "first.jsonl").read_bytes()
    with open_project(path, readonly=True) as store:
        pairs = list(iter_pairs(store))
    for pair in pairs:
        give(path, f"#{pair.id}", Verdict.A if pair.id % 2 else Verdict.B)
    summary = ok("export", path, tmp_path / "trl.jsonl", "--format", "trl")
    assert f"{len(pairs)} trl records" in summary
    for record, pair in zip(lines(tmp_path / "trl.jsonl"), pairs, strict=True):
        better = pair.response_a if pair.id % 2 else pair.response_b
        assert record["chosen"][-1]["content"] == better
        assert record["tools"] == json.loads(pair.tools)
        for message in (*record["prompt"], *record["chosen"], *record["rejected"]):
            for call in message.get("tool_calls", ()):
                assert isinstance(call["function"]["arguments"], dict)
            if message["role"] == "tool":
                assert message["name"] and message["tool_call_id"]
    summary = ok("export", path, tmp_path / "dpo.jsonl", "--format", "openai-preference")
    written = len(lines(tmp_path / "dpo.jsonl"))
    apart = re.search(r"(\d+) pairs of trajectories whose runs differ", summary)
    assert written + (int(apart.group(1)) if apart else 0) == len(pairs)
