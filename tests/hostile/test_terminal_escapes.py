"""Escape sequences in pair data reach the terminal as text, never as commands: every
control character but newline and tab is shown as ``\\xNN``, and JSON stays valid JSON
that round-trips the data exactly."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.cli.terminal import json_text, shown
from desktop.domain.results import Status
from desktop.services.importing import import_file
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, Run, fingerprint
from tests.stats_helpers import add_rubric, judge

EVIL_ID = "\x1b]0;pwned\x07\x1b[2Jp1"
EVIL_CATEGORY = "math\x9b2J\x7f\r"
EVIL_MODEL = "judge\x1b[31m"
DIM = "overall\x9b1m"
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def evil_project(tmp_path: Path) -> Path:
    project = new_project(tmp_path)
    rows = [
        {
            "id": EVIL_ID,
            "category": EVIL_CATEGORY,
            "instruction": "i",
            "output_1": "a",
            "output_2": "bb",
        },
        {
            "id": "plain",
            "category": EVIL_CATEGORY,
            "instruction": "j",
            "output_1": "c",
            "output_2": "d",
        },
    ]
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(store, "r", (DIM,))
        judge(store, 1, model=EVIL_MODEL, conf={DIM: 0.4}, **{DIM: "A"})
        judge(
            store,
            2,
            model=EVIL_MODEL,
            status=Status.PARSE_FAILURE,
        )
    return project


def _clean(run: Run) -> None:
    for stream in (run.stdout, run.stderr):
        found = RAW_CONTROL.findall(stream.replace("\n", "").replace("\t", ""))
        assert not found, f"raw control characters {found!r} in {stream!r}"


def test_override_shows_the_id_escaped(evil_project: Path, hostile: Hostile) -> None:
    run = hostile.cli("override", evil_project, EVIL_ID, DIM, "B", "--rubric", "r")
    hostile.succeeded(run)
    _clean(run)
    assert shown(EVIL_ID) in run.stdout
    assert "\\x1b]0;pwned\\x07\\x1b[2J" in run.stdout


def test_stats_and_queue_show_data_escaped(evil_project: Path, hostile: Hostile) -> None:
    hostile.cli("override", evil_project, "plain", DIM, "A", "--rubric", "r")
    for words in (("stats", "--rubric", "r"), ("queue", "--rubric", "r")):
        run = hostile.cli(words[0], evil_project, *words[1:])
        hostile.succeeded(run)
        _clean(run)
        assert "overall\\x9b1m" in run.stdout, run.stdout


def test_json_output_is_valid_and_exact(evil_project: Path, hostile: Hostile) -> None:
    run = hostile.cli("queue", evil_project, "--rubric", "r", "--json")
    hostile.succeeded(run)
    _clean(run)
    dims = {d for item in json.loads(run.stdout) for d in item["dimensions"]}
    assert dims == {DIM}  # escaped JSON's way: the data round-trips exactly
    run = hostile.cli("stats", evil_project, "--rubric", "r", "--json")
    hostile.succeeded(run)
    _clean(run)
    strings: set[str] = set()
    json.loads(run.stdout, object_hook=lambda o: strings.update(map(str, o.values())) or o)
    assert {EVIL_CATEGORY, EVIL_MODEL} <= strings


def test_an_error_line_shows_data_escaped(evil_project: Path, hostile: Hostile) -> None:
    missing = evil_project.parent / "x\x1b]0;pwned\x07.tiebreak"
    run = hostile.cli("stats", missing)
    hostile.refused(run, says="x\\x1b]0;pwned\\x07.tiebreak: no such project")
    _clean(run)
    assert not missing.exists()


def test_an_unknown_id_is_named_escaped(evil_project: Path, hostile: Hostile) -> None:
    before = fingerprint(evil_project)
    run = hostile.cli("override", evil_project, EVIL_ID + "x", DIM, "B", "--rubric", "r")
    hostile.refused(run, says="\\x1b]0;pwned\\x07", project=evil_project, before=before)
    _clean(run)


def test_a_usage_error_shows_the_word_escaped(tmp_path: Path, hostile: Hostile) -> None:
    run = hostile.cli("judge", new_project(tmp_path), "--rubric", "r", "--limit", "\x1b[2J")
    hostile.refused(run, code=2, says="--limit")
    _clean(run)


def test_json_text_escapes_c1_and_del_the_json_way() -> None:
    text = json_text({"k": "a\x9bb\x7fc\x1bd\n"})
    assert not RAW_CONTROL.search(text.replace("\n", ""))
    assert json.loads(text) == {"k": "a\x9bb\x7fc\x1bd\n"}
