"""What the window loads for good is frozen out of the collector's full walks
(desktop/services/heap.py); the pause it removed is measured in tests/bench/bench_gui.py."""

from __future__ import annotations

import gc
import sys

import pytest

from desktop.services.heap import hold_collection, loaded_for_good
from tests.test_gui import open_window, project, server  # noqa: F401  (fixtures)


@pytest.fixture(autouse=True)
def _collector_as_found():
    gc.unfreeze()
    yield
    gc.enable()
    gc.unfreeze()


def test_what_loads_inside_is_frozen_and_collection_resumes() -> None:
    with loaded_for_good():
        assert not gc.isenabled()  # no walk while it loads
        kept = [[] for _ in range(1000)]
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept)


def test_a_failed_load_still_settles_and_ends_a_start_up_hold() -> None:
    hold_collection()
    with pytest.raises(ImportError), loaded_for_good():
        import desktop.no_such_module  # noqa: F401
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


@pytest.mark.usefixtures("qapp")
def test_the_window_freezes_its_start_and_the_judge_engine(qtbot, project, server) -> None:  # noqa: F811
    win = open_window(qtbot, project, server)
    try:
        qtbot.waitUntil(lambda: gc.get_freeze_count() > 10_000)  # the first frame settles
        at_first_frame = gc.get_freeze_count()
        win.warm_judge_engine()  # as it runs soon after the first frame
        qtbot.waitUntil(lambda: gc.get_freeze_count() > at_first_frame, timeout=20_000)
        qtbot.waitUntil(gc.isenabled)
        assert "openai" in sys.modules
    finally:
        win.runner.shutdown()
