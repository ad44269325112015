"""`tiebreak judges` and `stats --by model` given what they cannot use: one line, the
project unchanged."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, fingerprint


def _alpaca(tmp_path: Path) -> Path:
    project = new_project(tmp_path)
    rows = [{"instruction": "q", "output_1": "a", "output_2": "b", "preference": 1.75}]
    data = write_jsonl(tmp_path / "a.jsonl", rows)
    Hostile("setup").cli("import", project, data)
    return project


def test_by_model_with_a_judge_that_never_answered(tmp_path: Path, hostile: Hostile) -> None:
    project = _alpaca(tmp_path)
    before = fingerprint(project)
    run = hostile.cli("stats", project, "--by", "model", "--judge-model", "nobody")
    hostile.refused(run, says="judge 'nobody' has no answers", project=project, before=before)


def test_by_model_with_an_unknown_rubric(tmp_path: Path, hostile: Hostile) -> None:
    project = _alpaca(tmp_path)
    before = fingerprint(project)
    run = hostile.cli("stats", project, "--by", "model", "--rubric", "nope")
    hostile.refused(run, says="no verdicts for rubric 'nope'", project=project, before=before)


def test_by_something_else_is_a_usage_error(tmp_path: Path, hostile: Hostile) -> None:
    project = _alpaca(tmp_path)
    before = fingerprint(project)
    run = hostile.cli("stats", project, "--by", "category")
    hostile.refused(run, code=2, project=project, before=before)


def test_judges_of_a_file_that_is_no_project(tmp_path: Path, hostile: Hostile) -> None:
    junk = tmp_path / "x.tiebreak"
    junk.write_bytes(b"\x00" * 64)
    before = fingerprint(junk)
    run = hostile.cli("judges", junk)
    hostile.refused(run, says="not a Tiebreak project", project=junk, before=before)


def test_judges_of_a_read_only_project(tmp_path: Path, hostile: Hostile) -> None:
    project = _alpaca(tmp_path)
    before = fingerprint(project)
    project.chmod(0o444)
    try:
        hostile.succeeded(hostile.cli("judges", project))
    finally:
        project.chmod(0o644)
    assert fingerprint(project) == before
