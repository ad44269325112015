"""Every numeric option refuses a number outside the range where it means something (zero,
negative, nan, inf, a share of 1 or more) as a usage error: exit 2, the option named, the
project untouched; never exit 1 from deep inside the command (issue 29, item 19)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import new_project
from tests.hostile.conftest import Hostile, fingerprint

STATS = ("stats", "{p}")
RATINGS = ("stats", "{p}", "--ratings")
SAMPLE = ("sample", "{p}", "--size", "3")
REPORT = ("report", "{p}", "{out}")
JUDGE = ("judge", "{p}", "--rubric", "pair-v2")
ADD = ("profile", "add", "x", "--base-url", "http://h/v1", "--model", "m")
GGUF = ("profile", "add", "x", "--gguf", "{p}")

CASES = [
    *((STATS, "--alpha", v) for v in ("0", "1", "nan", "inf", "-0.1", "1.5")),
    ((*STATS, "--by", "model"), "--alpha", "1"),
    (RATINGS, "--alpha", "0"),
    *((REPORT, "--alpha", v) for v in ("0", "1", "nan")),
    *((("sample", "{p}"), "--size", v) for v in ("0", "-1", "2.5", "nan")),
    *((SAMPLE, "--floor", v) for v in ("0", "-1", "1.5", "nan")),
    *((SAMPLE, "--seed", v) for v in ("-1", "nan")),
    *((STATS, "--seed", v) for v in ("-1", "inf")),
    ((*RATINGS, "--rounds", "10"), "--seed", "-1"),
    (REPORT, "--seed", "-1"),
    *((STATS, "--target", v) for v in ("0", "nan", "-2", "100")),
    *((RATINGS, "--anchor", v) for v in ("m=nan", "m=inf", "m=-inf")),
    (RATINGS, "--rounds", "-1"),
    *((JUDGE, "--temperature", v) for v in ("nan", "-1", "inf")),
    (JUDGE, "--samples", "0"),
    (JUDGE, "--concurrency", "nan"),
    *((GGUF, "--n-ctx", v) for v in ("0", "-1", "nan")),
    (GGUF, "--threads", "0"),
    (ADD, "--timeout", "nan"),
    (ADD, "--concurrency", "-1"),
    *((("queue", "{p}"), "--low-confidence", v) for v in ("nan", "inf")),
    (("queue", "{p}"), "--limit", "nan"),
    (STATS, "--limit", "inf"),
]


@pytest.mark.parametrize(
    ("words", "option", "value"), CASES, ids=[f"{c[0][0]} {c[1]} {c[2]}" for c in CASES]
)
def test_a_number_out_of_range_is_a_usage_error(
    tmp_path: Path, hostile: Hostile, words: tuple[str, ...], option: str, value: str
) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    out = tmp_path / "r.html"
    args = [w.replace("{p}", str(project)).replace("{out}", str(out)) for w in words]
    run = hostile.main(*args, option, value)
    hostile.refused(run, code=2, says=(f"argument {option}:",), project=project, before=before)
    assert run.lines[0].startswith("usage: ") and f"error: argument {option}:" in run.lines[-1]
    assert not out.exists()
