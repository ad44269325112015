"""Judging agent trajectories (issue 32, "Judging and figures"): the judge prompt shows each
run readably in the rubric's variables (each call as its name and arguments, each result,
the final answer), clipped to a stated budget with the clipping said; the built-in
``trajectory`` rubric judges them on its four dimensions end to end against the test
server; a project of trajectories opens on it; and what `rubric add` tries and the run
size estimates are what a trajectory prompt sends."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.profiles_file import save_profile
from desktop.adapters.rubric_files import load_rubric
from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import get_pair
from desktop.domain.conversation_comparison import pair_fields
from desktop.domain.conversations import Message, messages
from desktop.domain.errors import RubricError
from desktop.domain.pairs import PairContent
from desktop.domain.parsing import parse_answer
from desktop.domain.profiles import ModelProfile
from desktop.domain.render import render, sample_pair, variables_for
from desktop.domain.trajectory import Counts, run_counts
from desktop.domain.trajectory_text import (
    PART_CHARS,
    SIDE_CHARS,
    gap_line,
    tools_text,
    trajectory_text,
)
from desktop.resources import prompts_dir
from desktop.services.app_settings import AppSettings, save_settings
from desktop.services.rendering import check_cost
from desktop.services.session import ReviewSession
from tests.helpers import new_project, tiebreak, user_rubric, write_jsonl
from tests.judging_helpers import MODEL, generations, results
from tests.openai_server import OpenAIServer
from tests.trajectory_data import OPENAI_TOOLS, TRL_TOOLS, anthropic_run, openai_run, trl_run

DIMENSIONS = ("task_completion", "actions", "efficiency", "overall")
ANSWER = json.dumps(
    {
        "rationale": "A checked the weather twice after an error; B made it up.",
        "choices": {"task_completion": "A", "actions": "A", "efficiency": "B", "overall": "A"},
    }
)


def trajectory_rubric() -> Any:
    return load_rubric(prompts_dir() / "trajectory.toml")


def pair_of(a: list[dict[str, Any]], b: list[dict[str, Any]], tools: Any = None) -> PairContent:
    side_a, side_b = messages(a, "conversation_a"), messages(b, "conversation_b")
    fields = pair_fields(side_a, side_b, None, tools)
    return PairContent(
        instruction=str(fields["instruction"]),
        response_a=str(fields["response_a"]),
        response_b=str(fields["response_b"]),
        conversation_a=side_a,
        conversation_b=side_b,
        turn=1,
        tools=fields["tools"],  # type: ignore[arg-type]
        external_id="run-1",
    )


def weather_pair() -> PairContent:
    return pair_of(
        openai_run("It is 14°C with light rain.", calls=2, error=True),
        openai_run("Sunny, 30°C.", city="Lyon, France"),
        OPENAI_TOOLS,
    )


# ---- the prompt ------------------------------------------------------------------------


def test_the_prompt_shows_each_call_its_arguments_each_result_and_the_final_answer() -> None:
    (system, user) = render(trajectory_rubric(), weather_pair())
    assert system["role"] == "system" and "two runs, A and B, of an agent" in system["content"]
    text = user["content"]
    assert "What is the weather like in Paris today?" in text  # the task, once
    assert text.count("What is the weather like in Paris today?") == 1
    assert "You are a weather assistant." in text
    tool = "- get_weather: Get current temperature for a given location. (parameters: location)"
    assert tool in text
    run_a, run_b = text.split("# Run B")
    run_a = run_a.split("# Run A")[1]
    assert run_a.startswith(" (steps: 2, tool calls: 2, tool errors: 0)")
    call = '→ call get_weather (id call_001) with arguments:\n{\n  "location": "Paris, France"\n}'
    assert call in run_a
    assert "← result of get_weather (id call_001):\nError: service unavailable" in run_a
    assert "← result of get_weather (id call_002):\n14°C, light rain" in run_a
    assert "[Final answer]\nIt is 14°C with light rain." in run_a
    assert '"location": "Lyon, France"' in run_b
    assert "[Final answer]\nSunny, 30°C." in run_b
    assert "left out" not in text.split("# Evaluation")[0]  # nothing clipped
    assert "{{" not in text and "{%" not in text


def test_every_format_reads_as_the_same_kind_of_steps() -> None:
    claude = messages(anthropic_run("It is 15 degrees.", error=True))
    text = trajectory_text(claude)
    assert text.startswith("[Step 1]\nI'll check the current weather in San Francisco.")
    assert "→ call get_weather (id toolu_01A09q90qw90lq917835lq9) with arguments:" in text
    assert '"unit": "celsius"' in text
    assert "— returned an error:\nConnectionError: the weather service is down" in text
    assert text.endswith("[Final answer]\nIt is 15 degrees.")
    assert run_counts(claude) == Counts(1, 1, 1, ("get_weather",), acts=True)
    trl = messages(trl_run("12"))
    text = trajectory_text(trl)
    assert '→ call multiply with arguments:\n{\n  "a": 3,\n  "b": 4\n}' in text
    assert "← result of multiply:\n12" in text  # TRL links a result by the tool's name
    tools = tools_text(json.dumps(TRL_TOOLS), trl, trl)
    assert tools == "- multiply: A function that multiplies two numbers (parameters: a, b)"
    assert tools_text(None, trl, claude) == "- multiply\n- get_weather"  # no definitions: names


def test_a_long_run_is_clipped_to_its_budget_and_says_so() -> None:
    long_result = "row " * 2_000  # 8,000 characters: its middle is left out
    run = openai_run("The answer, whole.", calls=200)
    for message in run:
        if message["role"] == "tool":
            message["content"] = long_result
    side = messages(run)
    text = trajectory_text(side)
    assert len(text) <= SIDE_CHARS
    assert text.endswith("[Final answer]\nThe answer, whole.")
    assert text.startswith("[Step 1]")  # the run's start is kept
    (gap,) = re.findall(r"\[… ([\d,]+) of 200 steps and ([\d,]+) characters left out …\]", text)
    left_out = int(gap[0].replace(",", ""))
    shown = len(re.findall(r"^\[Step \d+", text, re.M))
    assert shown + left_out == 200  # every step (the final answer is none), shown or counted
    assert f"[… {len(long_result) - PART_CHARS:,} characters left out …]" in text
    assert gap_line(3, 40, 12_000) == "[… 3 of 40 steps and 12,000 characters left out …]"
    # The whole prompt: both sides within their budget, well under the cap on a prompt.
    pair = pair_of(run, openai_run("Short."), OPENAI_TOOLS)
    prompt = "".join(m["content"] for m in render(trajectory_rubric(), pair))
    assert 0.9 * SIDE_CHARS < len(prompt) < 2 * SIDE_CHARS + 5_000


def test_a_pair_that_is_no_trajectory_is_a_run_of_no_steps() -> None:
    plain = PairContent("Name a prime.", "7", "Eleven.")
    variables = variables_for(trajectory_rubric(), plain)
    assert variables["trajectory_a"] == "[Final answer]\n7"
    assert (variables["steps_b"], variables["calls_b"], variables["errors_b"]) == (0, 0, 0)
    assert variables["tools"] == ""
    text = render(trajectory_rubric(), plain)[1]["content"]
    assert "## Tools the agent was given" not in text and "## System message" not in text


def test_other_rubrics_get_nothing_new_and_render_as_before() -> None:
    """The trajectory's variables are worked out only for a rubric that reads them; a
    rubric that reads the final answers renders a trajectory pair as any pair."""
    pair = weather_pair()
    for name in ("pair-v2", "just-eval"):
        rubric = load_rubric(prompts_dir() / f"{name}.toml")
        assert "trajectory_a" not in variables_for(rubric, pair)
    rubric = user_rubric("[{{ response_a }}|{{ response_b }}|{{ instruction }}]")
    assert render(rubric, pair)[0]["content"] == (
        "[It is 14°C with light rain.|Sunny, 30°C.|What is the weather like in Paris today?]"
    )
    counts = user_rubric("{{ steps_a }} {{ calls_a }} {{ errors_a }} / {{ steps_b }}")
    assert render(counts, pair)[0]["content"] == "2 2 0 / 1"
    swapped = render(counts, pair.swapped())[0]["content"]
    assert swapped == "1 1 0 / 2"  # the sides change places with their runs


def test_answers_parse_on_every_dimension() -> None:
    rubric = trajectory_rubric()
    assert rubric.dimensions == DIMENSIONS
    parsed = parse_answer(f"Here it is:\n```\n{ANSWER}\n```", rubric.answer, rubric.dimensions)
    assert parsed.ok and parsed.verdicts is not None
    assert parsed.rationale == "A checked the weather twice after an error; B made it up."
    assert {dim: v.value for dim, v in parsed.verdicts.items()} == {
        "task_completion": "A",
        "actions": "A",
        "efficiency": "B",
        "overall": "A",
    }


# ---- what rubric add tries, and what a run is estimated to send -------------------------


def test_rubric_add_tries_a_rubric_that_reads_trajectories_on_a_long_run() -> None:
    rubric = trajectory_rubric()
    sample = sample_pair(rubric)
    assert sample.tools and sample.conversation_a and len(sample.conversation_a) > 80
    text = render(rubric, sample)[1]["content"]
    assert len(re.findall(r"steps and [\d,]+ characters left out", text)) == 2  # both sides
    assert len(text) > SIDE_CHARS
    check_cost(rubric)
    # A template that would send each side ten times is refused before it is added.
    greedy = user_rubric("{% for i in range(10) %}{{ trajectory_a }}{{ trajectory_b }}{% endfor %}")
    with pytest.raises(RubricError, match="rubric not added"):
        check_cost(greedy)
    assert sample_pair(load_rubric(prompts_dir() / "pair-v2.toml")).conversation_a is None


def _import(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    project = new_project(tmp_path)
    proc = tiebreak("import", project, write_jsonl(tmp_path / "runs.jsonl", rows))
    assert proc.returncode == 0, proc.stderr
    return project


def runs() -> list[dict[str, Any]]:
    return [
        {
            "id": "paris",
            "model_a": "agent-v2",
            "model_b": "agent-v1",
            "messages_a": openai_run("It is 14°C with light rain.", calls=2, error=True),
            "messages_b": openai_run("Sunny, 30°C.", city="Lyon, France"),
            "tools": OPENAI_TOOLS,
        },
        {
            "id": "sf",
            "messages_a": anthropic_run("It is 15 degrees."),
            "messages_b": anthropic_run("I could not tell.", error=True),
        },
        {"id": "mul", "messages_a": trl_run("12"), "messages_b": trl_run("13"), "tools": TRL_TOOLS},
    ]


def test_the_run_size_counts_what_a_trajectory_prompt_sends(tmp_path: Path) -> None:
    project = _import(tmp_path, runs())
    save_settings(AppSettings(ask_above=0))  # every run is asked about: its estimate said
    with OpenAIServer(answer=ANSWER) as server:
        paid = ModelProfile(
            name="paid", model=MODEL, base_url=server.base_url, needs_key=False,
            price_in=2.5, price_out=10.0,
        )  # fmt: skip
        save_profile(paid)
        command = [sys.executable, "-m", "desktop", "judge", str(project), "--rubric"]
        command += ["trajectory", "--profile", "paid", "--one-order"]
        refused = subprocess.run(
            command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120
        )
        assert refused.returncode == 1 and "3 requests to test-model" in refused.stderr
        amount = float(refused.stderr.split("about $")[1].split()[0].rstrip(","))
        done = subprocess.run([*command, "--yes"], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        sent = [r.json for r in generations(server)]
    chars = sum(len(m["content"]) for body in sent for m in body["messages"])
    assert chars > 3 * 2_000  # the runs themselves, not their final answers alone
    expected = (chars / 4 * 2.5 + 3 * sent[0]["max_tokens"] * 10.0) / 1e6
    assert amount == pytest.approx(expected, rel=0.02, abs=0.01)


# ---- end to end --------------------------------------------------------------------------


def test_trajectories_are_judged_on_every_dimension_end_to_end(tmp_path: Path) -> None:
    project = _import(tmp_path, runs())
    with OpenAIServer(answer=ANSWER) as server:
        proc = tiebreak(
            "judge", project, "--rubric", "trajectory", "--base-url", server.base_url,
            "--model", MODEL, "--one-order",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        sent = [r.json for r in generations(server)]
    assert len(sent) == 3
    prompts = {m["content"] for body in sent for m in body["messages"] if m["role"] == "user"}
    paris = next(p for p in prompts if "Paris today" in p)
    assert "← result of get_weather (id call_001):\nError: service unavailable" in paris
    assert '"location": "Lyon, France"' in paris
    sf = next(p for p in prompts if "San Francisco" in p)
    assert "— returned an error:\nConnectionError: the weather service is down" in sf
    assert "(steps: 1, tool calls: 1, tool errors: 1)" in sf
    with open_project(project, readonly=True) as store:
        got = results(store)
        assert len(got) == 3 and {r["rubric_name"] for r in got} == {"trajectory"}
        for row in got:
            assert row["status"] == "ok"
            assert row["verdicts"] == {
                "task_completion": "A", "actions": "A", "efficiency": "B", "overall": "A"
            }  # fmt: skip
            pair = get_pair(store, row["pair_id"])
            assert pair is not None and pair.turn == 1
    stats = tiebreak("stats", project, "--rubric", "trajectory", "--json")
    assert stats.returncode == 0, stats.stderr
    (data,) = json.loads(stats.stdout)["rubrics"]
    dims = [d["dimension"] for d in data["overall"]["dimensions"]]
    assert dims == list(DIMENSIONS)


def test_a_project_of_trajectories_opens_on_the_trajectory_rubric(tmp_path: Path) -> None:
    trajectories = _import(tmp_path, runs())
    session = ReviewSession(trajectories, AppSettings(reviewer="ada"))
    try:
        assert session.rubric_name == "trajectory" and session.holds_trajectories()
    finally:
        session.close()
    plain = new_project(tmp_path, "plain.tiebreak")
    rows = [{"instruction": "q", "response_a": "a", "response_b": "b"}]
    assert tiebreak("import", plain, write_jsonl(tmp_path / "plain.jsonl", rows)).returncode == 0
    session = ReviewSession(plain, AppSettings(reviewer="ada"))
    try:
        assert session.rubric_name == "just-eval" and not session.holds_trajectories()
    finally:
        session.close()


def test_messages_in_a_run_are_steps_after_the_task() -> None:
    side = (
        Message("system", "s"),
        Message("user", "task"),
        Message("assistant", "one"),
        Message("user", "a follow-up"),
        Message("assistant", "two"),
    )
    text = trajectory_text(side)
    assert text == ("[Step 1]\none\n\n[User]\na follow-up\n\n[Final answer]\ntwo")


def test_a_persons_verdict_on_two_runs_is_on_the_trajectory_rubric(tmp_path: Path) -> None:
    """A preference file's verdicts: on the trajectory rubric's overall for two runs of an
    agent, on pair-v2 (as before) for two answers, in one file; --rubric names another."""
    rows = [
        {"chosen": trl_run("12"), "rejected": trl_run("13")},
        {
            "chosen": [
                {"role": "user", "content": "Name a prime."},
                {"role": "assistant", "content": "7"},
            ],
            "rejected": [
                {"role": "user", "content": "Name a prime."},
                {"role": "assistant", "content": "8"},
            ],
        },
    ]
    data = write_jsonl(tmp_path / "prefs.jsonl", rows)
    project = new_project(tmp_path)
    proc = tiebreak("import", project, data)
    assert proc.returncode == 0, proc.stderr

    def verdicts(path: Path) -> list[tuple[str, str, str, str]]:
        with open_project(path, readonly=True) as store:
            return store.conn.execute(
                "SELECT p.instruction, h.rubric_name, h.dimension, h.reviewer FROM human_verdicts"
                " h JOIN pairs p ON p.id = h.pair_id ORDER BY h.pair_id"
            ).fetchall()

    assert verdicts(project) == [
        ("What is 3 * 4?", "trajectory", "overall", "trl"),
        ("Name a prime.", "pair-v2", "overall", "trl"),
    ]
    named = new_project(tmp_path, "named.tiebreak")
    assert tiebreak("import", named, data, "--rubric", "mine").returncode == 0
    assert {r[1] for r in verdicts(named)} == {"mine"}
