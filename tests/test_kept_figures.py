"""Figures computed once per state of the project: a second look at an unchanged project is
answered from what was kept, any write that moves a figure is seen (the project's data
version, migration m015), and the computing runs in a process of its own that reports its
errors in one line, ends when cancelled and is started again when next needed."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.adapters.store.revision import data_version
from desktop.domain.errors import TiebreakError
from desktop.domain.verdicts import Verdict
from desktop.services.child_process import Cancelled, ChildProcess
from desktop.services.figure_sources import DEFAULT_ALPHA
from desktop.services.importing import import_file
from desktop.services.kept_figures import KeptFigures
from desktop.services.overrides import override
from tests.helpers import write_jsonl
from tests.test_report import RUBRIC, judged  # noqa: F401  (the fixture)


def _version(project: Path) -> tuple[int, int]:
    with open_project(project, readonly=True) as store:
        return data_version(store.conn)


def _review(project: Path, pair: str, verdict: Verdict) -> None:
    with open_project(project) as store:
        override(store, find_pair(store, pair), rubric=RUBRIC, dimension="overall",
                 verdict=verdict, reviewer="bo", note=None, mode="cli")  # fmt: skip


def test_every_write_that_moves_a_figure_changes_the_data_version(judged: Path) -> None:  # noqa: F811
    before = _version(judged)
    with open_project(judged) as store:
        store.set_setting("position", "3")  # the pair last shown: no figure moves
    assert _version(judged) == before
    _review(judged, "p2", Verdict.B)
    reviewed = _version(judged)
    assert reviewed != before
    with open_project(judged) as store:
        store.conn.execute("UPDATE judge_results SET status = status")  # a result rewritten
        store.conn.commit()
    assert _version(judged) != reviewed
    rewritten = _version(judged)
    row = {"id": "new", "instruction": "q", "response_a": "a", "response_b": "b"}
    with open_project(judged) as store:
        import_file(store, write_jsonl(judged.parent / "more.jsonl", [row]))
    assert _version(judged) != rewritten


def test_an_unchanged_project_gives_the_figures_kept_and_a_verdict_new_ones(
    judged: Path,  # noqa: F811
) -> None:
    kept = KeptFigures()
    try:
        asked = {"alpha": DEFAULT_ALPHA, "width": 40.0, "cancel": threading.Event()}
        first = kept.figures(judged, RUBRIC, "both", **asked)
        assert "20 reviewed" in first.heading
        start = time.perf_counter()
        again = kept.figures(judged, RUBRIC, "both", **asked)
        assert again is first and time.perf_counter() - start < 0.5
        wider = kept.figures(judged, RUBRIC, "both", **{**asked, "width": 60.0})
        assert wider.width == 60.0 and wider.source is first.source  # drawn again, not computed
        _review(judged, "p2", Verdict.B)
        after = kept.figures(judged, RUBRIC, "both", **asked)
        assert after is not first and "21 reviewed" in after.heading
    finally:
        kept.close()


def _refuses() -> None:
    raise TiebreakError("p.tiebreak: no rubric 'x'")


def _crashes() -> None:
    os._exit(3)


def _sleeps(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def test_the_child_reports_errors_in_one_line_and_comes_back_after_a_crash() -> None:
    child = ChildProcess()
    never = threading.Event()
    try:
        pid = child.run(_sleeps, 0.0, cancel=never)
        assert pid != os.getpid()
        with pytest.raises(TiebreakError, match=r"^p\.tiebreak: no rubric 'x'$"):
            child.run(_refuses, cancel=never)
        assert child.run(_sleeps, 0.0, cancel=never) == pid  # the same process, kept
        with pytest.raises(TiebreakError, match=r"ended \(exit code 3\)"):
            child.run(_crashes, cancel=never)
        assert child.run(_sleeps, 0.0, cancel=never) not in (pid, os.getpid())
    finally:
        child.close()


def test_cancelled_work_ends_the_child_at_once() -> None:
    child = ChildProcess()
    cancel = threading.Event()
    try:
        timer = threading.Timer(0.5, cancel.set)
        timer.start()
        start = time.perf_counter()
        with pytest.raises(Cancelled):
            child.run(_sleeps, 60.0, cancel=cancel)
        assert time.perf_counter() - start < 10
        assert isinstance(child.run(_sleeps, 0.0, cancel=threading.Event()), int)
    finally:
        child.close()
