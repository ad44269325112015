"""A judge's answer built to make the parser backtrack: `tiebreak judge` reads it in linear
time and stores it as an answer (a verdict or a parse failure, the raw text kept), and an
answer of any size, up to 10 MB and past the longest the parser reads, is read within a
bound. Before, "Final answer:" and 16,000 spaces took a minute, and a 60 KB answer hung a
job with Ctrl+C ignored."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import REPO, Hostile
from tests.judging_helpers import MODEL
from tests.openai_server import OpenAIServer

# Each family pumps one character class that two parts of a pattern both accepted, after
# the words that start the pattern, and ends in a character that makes the match fail.
FAMILIES = {
    "a labelled answer": ("Final answer:", " ", "?"),
    "a naming word": ("Response", "\t", "?"),
    "double brackets": ("[[", " ", "?"),
    "a dimension line": ("precision:", " ", "?"),
    "a comma-list item": ("x, precision:", " ", "?, A"),
    "an unclosed JSON string": ('{"a": ["', '\\"', ""),
}
# The rubric whose parser each family aims at (a built-in of each answer kind).
RUBRICS = {
    "a labelled answer": "href-overall",
    "a naming word": "href-overall",
    "double brackets": "href-overall",
    "a dimension line": "href-four",
    "a comma-list item": "href-four",
    "an unclosed JSON string": "just-eval",
}


def hostile_answer(family: str, size: int) -> str:
    head, pump, tail = FAMILIES[family]
    return head + pump * ((size - len(head) - len(tail)) // len(pump)) + tail


@pytest.mark.parametrize("family", list(FAMILIES))
def test_judge_reads_a_hostile_answer_in_linear_time(
    tmp_path: Path, hostile: Hostile, family: str
) -> None:
    project = new_project(tmp_path)
    pair = {"id": "p1", "instruction": "q", "output_1": "a", "output_2": "b", "reference": "r"}
    write_jsonl(tmp_path / "pairs.jsonl", [pair])
    hostile.succeeded(hostile.cli("import", project, tmp_path / "pairs.jsonl"))
    answer = hostile_answer(family, 200_000)  # the old parser: minutes to hours each
    with OpenAIServer(answer=answer) as server:
        start = time.monotonic()
        run = hostile.cli(
            "judge", project, "--rubric", RUBRICS[family], "--base-url", server.base_url,
            "--model", MODEL, timeout=90,
        )  # fmt: skip
        took = time.monotonic() - start
    hostile.succeeded(run)
    assert took < 30, f"took {took:.1f} s"
    conn = sqlite3.connect(project)
    try:
        rows = conn.execute("SELECT status, raw_completion FROM judge_results").fetchall()
    finally:
        conn.close()
    assert [status for status, _ in rows] == ["parse-failure"]
    assert rows[0][1] == answer  # the raw text kept for a human


_SWEEP = """
import json, sys, time
from desktop.domain.parsing import parse_answer
from desktop.domain.rubric import AnswerFormat, AnswerKind
from tests.hostile.test_answer_parsing import FAMILIES, hostile_answer
formats = [
    (AnswerFormat(AnswerKind.SINGLE), ["overall"]),
    (AnswerFormat(AnswerKind.COMMA_LIST), ["precision", "correctness", "format", "overall"]),
    (AnswerFormat(AnswerKind.JSON_CHOICE), ["overall"]),
    (AnswerFormat(AnswerKind.JSON_CHOICES), ["clarity", "depth"]),
]
out = []
for family in FAMILIES:
    for size in (999_000, 10_000_000):
        text = hostile_answer(family, size)
        for answer, dims in formats:
            start = time.perf_counter()
            outcome = parse_answer(text, answer, dims)
            out.append([family, size, answer.kind.value, time.perf_counter() - start,
                        outcome.error])
print(json.dumps(out))
"""


def test_every_parser_reads_10_mb_of_hostile_text_within_a_bound(hostile: Hostile) -> None:
    """Every family through every answer kind, just under the longest answer read and at
    10 MB; a hang would pass the subprocess's timeout."""
    done = subprocess.run(
        [sys.executable, "-c", _SWEEP], cwd=REPO, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr
    slow = []
    for family, size, kind, took, error in json.loads(done.stdout):
        if took > 5:
            slow.append(f"{family} ({kind}, {size:,} characters): {took:.1f} s")
        if size > 1_000_000:
            assert error.startswith("answer too long to read: 10,0"), error
        hostile.held()
    assert not slow, slow
