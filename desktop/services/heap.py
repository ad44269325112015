"""Keeping Python's garbage collector from pausing the window.

A full collection walks every object the collector tracks, holding Python's lock for the
whole walk. Once Qt's bindings, openai and pydantic are loaded that is hundreds of
thousands of objects; one such walk, started by the allocations at the start of a judge
job, froze the window for 78 ms (tests/bench/bench_gui.py, job_event_loop_max_gap_ms).
Objects that live as long as the process are frozen (``gc.freeze``) and never walked
again; what is made later is collected as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def loaded_for_good() -> Iterator[None]:
    """Load what the process keeps until it exits (modules, mostly) without collecting
    while it loads, then freeze everything that exists by then."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
