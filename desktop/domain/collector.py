"""The garbage collector paused while many objects that hold no cycles are made at once.

Reading a side of 10,000 messages makes 20,000 dicts and tuples, and every 700 of them
start a collection; where the heap holds much the collector has not frozen (a test run,
a window before its start-up is over), one of those is a full walk: a read of 6 ms took
40 ms. What is read holds no cycle, so nothing is lost by collecting it later (as
Mercurial's ``util.nogc`` does for the same reason).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No collection inside; the collector as it was after (left off if it was off, as a
    caller that turned it off itself, or another thread inside ``paused``, meant)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
