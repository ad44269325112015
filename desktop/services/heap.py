"""Keeping Python's garbage collector from pausing the window.

A full collection walks every object the collector tracks, holding Python's lock for the
whole walk. Once Qt's bindings, openai and pydantic are loaded that is hundreds of
thousands of objects; one such walk, started by the allocations at the start of a judge
job, froze the window for 78 ms (tests/bench/bench_gui.py, job_event_loop_max_gap_ms).
What lives as long as the process (modules, the window) is frozen out of the walks
(``gc.freeze``); what is made later is collected as usual.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def hold_collection() -> None:
    """At start-up nearly all that is allocated lives for the session, so collecting is
    wasted work: about 2% of the window's start. ``settle`` resumes it."""
    gc.disable()


def settle() -> None:
    """Freeze all that exists now, then collect again (only what is made from here on)."""
    gc.freeze()
    gc.enable()


@contextmanager
def loaded_for_good() -> Iterator[None]:
    """Load what the process keeps until it exits without collecting while it loads;
    then ``settle``."""
    gc.disable()
    try:
        yield
    finally:
        settle()
