"""A preference record is compared where its two sides part: completions that share their
first answer(s) (TRL's ``prompt`` with ``chosen`` ``[same, user, GOOD]`` and ``rejected``
``[same, user, bad]``, OpenAI's outputs alike) are compared at the first answer that
differs, the shared part becoming the context, as TRL's implicit prompt and HH-RLHF are;
the pair shown and the TRL export hold the two answers that differ. A record whose sides
never differ in an answer, in any preference shape, is refused in one line.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, fingerprint


def msgs(*texts: str) -> list[dict[str, str]]:
    """assistant, user, assistant, ... (a completion that starts with an answer)."""
    return [
        {"role": "assistant" if n % 2 == 0 else "user", "content": text}
        for n, text in enumerate(texts)
    ]


PROMPT = [{"role": "user", "content": "Name a colour."}]
SHARED_START = {
    "trl": {
        "prompt": PROMPT,
        "chosen": msgs("Red.", "Another one?", "GOOD: blue."),
        "rejected": msgs("Red.", "Another one?", "bad: red again."),
    },
    "openai-preference": {
        "input": {"messages": PROMPT},
        "preferred_output": msgs("Red.", "Another one?", "GOOD: blue."),
        "non_preferred_output": msgs("Red.", "Another one?", "bad: red again."),
    },
}


def _exported_csv(hostile: Hostile, project: Path, out: Path) -> dict[str, str]:
    hostile.succeeded(hostile.cli("export", project, out))
    with out.open(newline="", encoding="utf-8") as fh:
        (row,) = csv.DictReader(fh)
    return row


@pytest.mark.parametrize("shape", sorted(SHARED_START))
def test_completions_sharing_their_first_answer_are_compared_where_they_part(
    tmp_path: Path, hostile: Hostile, shape: str
) -> None:
    project = new_project(tmp_path)
    data = write_jsonl(tmp_path / "prefs.jsonl", [SHARED_START[shape]])
    run = hostile.cli("import", project, data)
    hostile.succeeded(run)
    assert "1 pairs added, 1 human verdicts added" in run.stdout
    # The pair shown: compared at answer 2, the two answers that differ.
    row = _exported_csv(hostile, project, tmp_path / "pairs.csv")
    assert row["turn"] == "2"
    assert {row["response_a"], row["response_b"]} == {"GOOD: blue.", "bad: red again."}
    assert row["turn_1_a"] == row["turn_1_b"] == "Red."  # the shared answer, as context
    # The preference sits on the GOOD answer, and the TRL export keeps chosen != rejected.
    out = tmp_path / "prefs.trl.jsonl"
    hostile.succeeded(hostile.cli("export", project, out, "--format", "trl"))
    (record,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert record["chosen"] == [{"role": "assistant", "content": "GOOD: blue."}]
    assert record["rejected"] == [{"role": "assistant", "content": "bad: red again."}]
    assert [m["content"] for m in record["prompt"]] == ["Name a colour.", "Red.", "Another one?"]


def _hh(*turns: str) -> str:
    return "".join(
        ("\n\nHuman: " if n % 2 == 0 else "\n\nAssistant: ") + t for n, t in enumerate(turns)
    )


NEVER_PART: dict[str, tuple[dict[str, Any], str]] = {
    "trl standard": (
        {"prompt": "The sky is", "chosen": " blue.", "rejected": " blue."},
        "field 'rejected'",
    ),
    "trl prompt": (
        {"prompt": PROMPT, "chosen": msgs("Red."), "rejected": msgs("Red.")},
        "field 'rejected'",
    ),
    "trl prompt, one longer": (
        {"prompt": PROMPT, "chosen": msgs("Red.", "More?", "Blue."), "rejected": msgs("Red.")},
        "field 'rejected'",
    ),
    "trl implicit": (
        {"chosen": PROMPT + msgs("Red."), "rejected": PROMPT + msgs("Red.")},
        "field 'rejected'",
    ),
    "hh-rlhf": (
        {"chosen": _hh("Hi", "Hello", "Colour?", "Red."), "rejected": _hh("Hi", "Hello")},
        "field 'rejected'",
    ),
    "openai-preference": (
        {
            "input": {"messages": PROMPT},
            "preferred_output": msgs("Red."),
            "non_preferred_output": msgs("Red."),
        },
        "field 'non_preferred_output'",
    ),
}


@pytest.mark.parametrize("case", sorted(NEVER_PART))
def test_sides_that_never_differ_in_an_answer_are_refused(
    tmp_path: Path, hostile: Hostile, case: str
) -> None:
    record, field = NEVER_PART[case]
    project = new_project(tmp_path)
    before = fingerprint(project)
    data = write_jsonl(tmp_path / "prefs.jsonl", [record])
    hostile.refused(
        hostile.cli("import", project, data),
        says=(f"{data} line 1: {field}", "no answer"),
        project=project,
        before=before,
    )
