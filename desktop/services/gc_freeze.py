"""Freezing what the window keeps for good out of the garbage collector's full walks.

A full collection walks every object the collector tracks, holding Python's lock for the
whole walk. Once Qt's bindings, openai and pydantic are loaded that is hundreds of
thousands of objects; one such walk, started by the allocations at the start of a judge
job, froze the window for 78 ms (tests/bench/bench_gui.py, job_event_loop_max_gap_ms).
The window loads the judge engine in the background soon after it shows, through
``load_for_good``: from then on, what was loaded (and the window itself) is never walked
again, and what is made later is collected as usual.
"""

from __future__ import annotations

import gc
import importlib

from desktop.domain.collector import paused


def load_for_good(*modules: str) -> None:
    """Import ``modules``, which stay until the process exits, without collecting while
    they load; then freeze all that exists and collect again."""
    with paused():
        try:
            for name in modules:
                importlib.import_module(name)
        finally:
            gc.freeze()
