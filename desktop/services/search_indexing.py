"""Building the search index for the pairs a large import left out of it
(``search_backlog``): after the import has returned, in a process of its own, a chunk a
transaction, so the one who imported waits for the pairs alone and the window's writes
queue behind a chunk at most, never behind the whole index.

Each chunk commits on its own and moves the backlog past itself: an indexer stopped
anywhere (a crash, Ctrl+C, the file moved or replaced, which the store detects as any
writer's) loses nothing, and the next one goes on from there. Two indexers on one file
take turns and never index a pair twice. While the index is behind, the search reads
the pairs outside it whole and finds every match (``search_index``).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.search_backlog import first_unindexed, index_some

#: Pairs indexed per transaction: about a tenth of a second of 2 KB pairs, so another
#: writer (a verdict key in the window) waits that long at most.
CHUNK = 4000


def index_backlog(
    store: ProjectStore, *, chunk: int = CHUNK, progress: Callable[[int], None] | None = None
) -> int:
    """Index every pair outside the search index, ``chunk`` a transaction; returns how
    many were indexed (0: the index held them all)."""
    store.settle_every(5.0)  # the log copied into the file every few seconds, not per chunk
    total = 0
    while first_unindexed(store.conn) is not None:
        with store.transaction() as conn:
            total += index_some(conn, chunk)
        if progress:
            progress(total)
    store.checkpoint()
    return total


def index_in_background(project: Path) -> subprocess.Popen[bytes]:
    """Start ``tiebreak index PROJECT`` in a process of its own, which outlives this one
    (the command line returns, the window may close) and says nothing."""
    return subprocess.Popen(
        [sys.executable, "-m", "desktop", "index", "--quiet", str(project)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )
