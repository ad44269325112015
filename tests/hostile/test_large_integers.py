"""An integer a person or a file gives that SQLite cannot hold (beyond 64 bits), or digits
``int`` refuses ("²"), never reaches SQLite as an "unexpected OverflowError": a seed is a
usage error, a row number names no pair (issue 29, item 14)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop import api
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, fingerprint

HUGE = str(2**80)
BEYOND = str(2**63)  # one past SQLite's largest integer


def _project(tmp_path: Path) -> Path:
    project = new_project(tmp_path)
    rows = [
        {"instruction": f"q{i}", "output_1": "a", "output_2": f"b{i}", "preference": 1.75}
        for i in range(6)
    ]
    assert (
        Hostile("setup").cli("import", project, write_jsonl(tmp_path / "a.jsonl", rows)).code == 0
    )
    return project


@pytest.mark.parametrize(
    "words",
    [
        ("sample", "{p}", "--size", "2", "--seed", HUGE),
        ("sample", "{p}", "--size", "2", "--seed", BEYOND),
        ("stats", "{p}", "--seed", HUGE),
        ("stats", "{p}", "--ratings", "--rounds", "5", "--seed", HUGE),
        ("report", "{p}", "{out}", "--seed", HUGE),
        ("stats", "{p}", "--limit", HUGE),
        ("queue", "{p}", "--limit", HUGE),
        ("judge", "{p}", "--rubric", "pair-v2", "--limit", HUGE),
        ("batch", "export", "{p}", "--rubric", "pair-v2", "{out}", "--limit", HUGE),
    ],
    ids=lambda words: " ".join(words[:1] + words[-2:-1]),
)
def test_a_number_beyond_sqlite_is_a_usage_error(
    tmp_path: Path, hostile: Hostile, words: tuple[str, ...]
) -> None:
    project = _project(tmp_path)
    before = fingerprint(project)
    out = tmp_path / "out.html"
    args = [w.replace("{p}", str(project)).replace("{out}", str(out)) for w in words]
    run = hostile.cli(*args, cwd=tmp_path)
    hostile.refused(run, code=2, says=f"argument {words[-2]}:", project=project, before=before)
    assert "OverflowError" not in run.stderr and not out.exists()


@pytest.mark.parametrize("ref", [f"#{HUGE}", HUGE, f"#{BEYOND}", "#²", "²", "#" + "٣" * 30])
def test_a_row_number_beyond_sqlite_names_no_pair(
    tmp_path: Path, hostile: Hostile, ref: str
) -> None:
    project = _project(tmp_path)
    before = fingerprint(project)
    run = hostile.cli("override", project, ref, "overall", "A", "--rubric", "alpaca-eval")
    hostile.refused(run, says="no pair with id", project=project, before=before)
    with api.open_project(project) as store, pytest.raises(api.TiebreakError, match="no pair"):
        api.override(store, ref, rubric="alpaca-eval", dimension="overall", verdict="A")
    assert fingerprint(project) == before


def test_a_batch_line_naming_a_row_beyond_sqlite(tmp_path: Path, hostile: Hostile) -> None:
    project = _project(tmp_path)
    before = fingerprint(project)
    results = tmp_path / "results.jsonl"
    for pair in (HUGE, "²"):
        line = {"custom_id": f"tb:t1:{pair}:AB", "response": {"status_code": 200, "body": {}}}
        results.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
        run = hostile.cli("batch", "import", project, results)
        hostile.refused(
            run, says="was not written by tiebreak batch export", project=project, before=before
        )


def test_a_saved_position_beyond_sqlite_opens_at_the_start(tmp_path: Path) -> None:
    """The window reopens a project at the pair it left, a setting in the file."""
    from desktop.adapters.store import open_project
    from desktop.services.app_settings import AppSettings
    from desktop.services.review_position import saved_position
    from desktop.services.session import ReviewSession

    project = _project(tmp_path)
    for saved in (HUGE, "²"):
        with open_project(project) as store:
            store.set_setting("position", saved)
        session = ReviewSession(project, AppSettings(reviewer="ada"))
        try:
            assert saved_position(session.store) is None
        finally:
            session.close()
