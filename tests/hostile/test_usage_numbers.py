"""Numbers that make no sense are usage errors (exit 2, the option named), caught before a
command opens the project: never an "unexpected ValueError", never silently accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import new_project
from tests.hostile.conftest import Hostile, fingerprint

CASES = [
    (("judge", "{p}", "--rubric", "href-overall", "--concurrency", "-5"), "--concurrency"),
    (("judge", "{p}", "--rubric", "href-overall", "--concurrency", "0"), "--concurrency"),
    (("judge", "{p}", "--rubric", "href-overall", "--limit", "0"), "--limit"),
    (("judge", "{p}", "--rubric", "href-overall", "--limit", "-1"), "--limit"),
    (
        ("batch", "export", "{p}", "--rubric", "href-overall", "out.jsonl", "--limit", "0"),
        "--limit",
    ),
    (("batch", "submit", "{p}", "--rubric", "href-overall", "--poll", "0"), "--poll"),
    (("batch", "submit", "{p}", "--rubric", "href-overall", "--poll", "nan"), "--poll"),
    (
        ("profile", "add", "x", "--base-url", "http://h/v1", "--model", "m", "--concurrency", "0"),
        "--concurrency",
    ),
    (
        ("profile", "add", "x", "--base-url", "http://h/v1", "--model", "m", "--timeout", "-1"),
        "--timeout",
    ),
    (
        ("profile", "add", "x", "--base-url", "http://h/v1", "--model", "m", "--timeout", "inf"),
        "--timeout",
    ),
    (("queue", "{p}", "--limit", "-3"), "--limit"),
    (("queue", "{p}", "--low-confidence", "1.5"), "--low-confidence"),
    (("queue", "{p}", "--low-confidence", "-0.1"), "--low-confidence"),
    (("stats", "{p}", "--limit", "-1"), "--limit"),
]


@pytest.mark.parametrize(
    ("words", "option"), CASES, ids=[" ".join(c[0][:1] + c[0][-2:]) for c in CASES]
)
def test_a_senseless_number_is_a_usage_error(
    tmp_path: Path, hostile: Hostile, words: tuple[str, ...], option: str
) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    args = [w.replace("{p}", str(project)) for w in words]
    run = hostile.cli(*args, cwd=tmp_path)
    hostile.refused(run, code=2, says=(f"argument {option}:",), project=project, before=before)
    assert "unexpected" not in run.stderr
    assert not (tmp_path / "out.jsonl").exists()
