"""What the window loads for good is frozen out of the collector's full walks
(desktop/services/heap.py); the pause it removed is measured in tests/bench/bench_gui.py."""

from __future__ import annotations

import gc
import sys

import pytest

from desktop.services.heap import loaded_for_good
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


def test_a_failed_load_still_freezes_and_a_disabled_collector_stays_off() -> None:
    gc.disable()
    with pytest.raises(ImportError), loaded_for_good():
        import desktop.no_such_module  # noqa: F401
    assert not gc.isenabled()
    assert gc.get_freeze_count() > 0


@pytest.mark.usefixtures("qapp")
def test_the_window_freezes_the_judge_engine_once_loaded(qtbot, project, server) -> None:  # noqa: F811
    win = open_window(qtbot, project, server)
    try:
        win.warm_judge_engine()  # as it runs once the first frame is painted
        qtbot.waitUntil(lambda: gc.get_freeze_count() > 0, timeout=20_000)
        qtbot.waitUntil(gc.isenabled)
        frozen = gc.get_freeze_count()
        assert "openai" in sys.modules
        assert frozen > 10_000  # the bindings, openai and the window: not just a few
    finally:
        win.runner.shutdown()
