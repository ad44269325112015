"""What the window loads for good is frozen out of the collector's full walks
(desktop/services/gc_freeze.py); the pause it removed is measured in tests/bench/bench_gui.py."""

from __future__ import annotations

import gc
import sys

import pytest

from desktop.services.gc_freeze import load_for_good
from tests.gui_helpers import open_window


@pytest.fixture(autouse=True)
def _collector_as_found():
    gc.unfreeze()
    yield
    gc.enable()
    gc.unfreeze()


def test_what_loads_is_frozen_and_collection_resumes(tmp_path, monkeypatch) -> None:
    (tmp_path / "kept_module.py").write_text(
        "import gc\nCOLLECTING = gc.isenabled()\nKEPT = [[] for _ in range(1000)]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "kept_module", raising=False)
    load_for_good("kept_module")
    kept = sys.modules["kept_module"]
    assert kept.COLLECTING is False  # no walk while it loads
    assert gc.isenabled()
    assert gc.get_freeze_count() >= len(kept.KEPT)


def test_a_failed_load_still_freezes_and_collects_again() -> None:
    with pytest.raises(ImportError):
        load_for_good("desktop.no_such_module")
    assert gc.isenabled()
    assert gc.get_freeze_count() > 0


@pytest.mark.usefixtures("qapp")
def test_the_window_loads_the_judge_engine_for_good(qtbot, project, server) -> None:
    win = open_window(qtbot, project, server)
    try:
        # Soon after the first frame, openai and the judge engine load in the background.
        qtbot.waitUntil(lambda: gc.get_freeze_count() > 10_000, timeout=20_000)
        qtbot.waitUntil(gc.isenabled)
        assert "openai" in sys.modules and "desktop.services.judging" in sys.modules
    finally:
        win.context.runner.shutdown()
