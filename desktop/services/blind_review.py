"""Blind review: which judge verdicts the reviewer has not seen, and so which verdicts of
theirs are blind.

A verdict is stored with mode ``blind`` only when it was given in blind mode with the
judge's verdict on that dimension never shown to that reviewer: not on screen in this
window (leaving blind mode shows it, giving your verdict shows it, so does the raw
completion) nor in an earlier one, and no earlier verdict of theirs on it (the judge
showed once that one was given). Any judge's verdict counts: one seen from another judge
is known too. The figures' agreement per mode (``stats.by_mode``) reads that mode, so its
``blind`` row holds only verdicts given without a judge's answer known.

What was shown is kept per project (``judge_seen``, adapters/store/judge_seen.py): each
pair, rubric, reviewer, dimension and judge, with when it was first shown. Rows are
collected here as the window shows verdicts and written in batches: with the reviewer's
next verdict (in its transaction), by the window off the GUI thread every few seconds
(``unsaved`` / ``saved``), and when the project closes. A read-only project keeps them in
memory only. Where the project has no record (a window before this one was kept), what
was shown then is not known.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from desktop.adapters.store import open_project
from desktop.adapters.store.judge_seen import Seen as Seen  # the rows the window keeps
from desktop.adapters.store.judge_seen import record_seen, seen_dimensions
from desktop.adapters.store.pair_reader import PairQuery, read_pair
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.rubrics import now
from desktop.domain.verdicts import Verdict
from desktop.services.pair_verdicts import PairVerdicts

BLIND, SEEN = "blind", "gui"  # the modes of a verdict given in the window

_Where = tuple[int, str, str]  # pair, rubric, reviewer
_Known = tuple[int, str, str, str]  # and dimension
_Row = tuple[int, str, str, str, str]  # and judge


class BlindReview:
    """What the judge has shown the reviewer, per pair, rubric and dimension: in this
    window, and (read once per pair) in earlier ones."""

    def __init__(self) -> None:
        self._seen: set[_Known] = set()
        self._read: set[_Where] = set()  # read from the project already
        self._noted: set[_Row] = set()  # in the project, or on the way there
        self._unsaved: dict[_Row, str] = {}  # not yet written: when first shown

    def _known(self, store: ProjectStore, pair_id: int, rubric: str, reviewer: str) -> None:
        where = (pair_id, rubric, reviewer)
        if where not in self._read:
            self._read.add(where)
            for dim in seen_dimensions(store, pair_id, rubric, reviewer):
                self._seen.add((*where, dim))

    def was_seen(
        self, store: ProjectStore, pair_id: int, rubric: str, reviewer: str, dimension: str
    ) -> bool:
        """Whether some judge's verdict on ``dimension`` was ever shown to ``reviewer``."""
        self._known(store, pair_id, rubric, reviewer)
        return (pair_id, rubric, reviewer, dimension) in self._seen

    def hidden(
        self,
        store: ProjectStore,
        pair_id: int,
        rubric: str,
        reviewer: str,
        views: PairVerdicts,
        *,
        blind: bool,
    ) -> frozenset[str]:
        """The dimensions whose judge verdict (and other reviewers') stays hidden now: in
        blind mode, where the reviewer has no verdict and no judge's was ever shown."""
        if not blind:
            return frozenset()
        self._known(store, pair_id, rubric, reviewer)
        return frozenset(
            dim
            for dim in views.dimensions
            if dim not in views.mine and (pair_id, rubric, reviewer, dim) not in self._seen
        )

    def shown(
        self,
        pair_id: int,
        rubric: str,
        reviewer: str,
        judge: str,
        views: PairVerdicts,
        hidden: frozenset[str],
    ) -> None:
        """The judge's verdicts outside ``hidden`` are on screen: seen from now on."""
        for dim, view in views.dimensions.items():
            if view.judge is not None and dim not in hidden:
                self._note((pair_id, rubric, reviewer, dim, judge))

    def reveal(
        self, pair_id: int, rubric: str, reviewer: str, judge: str, dimensions: tuple[str, ...]
    ) -> None:
        """Every dimension's judge verdict was shown another way (the raw completion)."""
        for dim in dimensions:
            self._note((pair_id, rubric, reviewer, dim, judge))

    def _note(self, row: _Row) -> None:
        self._seen.add(row[:4])
        if row not in self._noted:
            self._noted.add(row)
            self._unsaved[row] = now()

    def mode(
        self,
        store: ProjectStore,
        pair_id: int,
        rubric: str,
        dimension: str,
        reviewer: str,
        verdict: Verdict | None,
        *,
        blind: bool,
    ) -> str | None:
        """The mode of a verdict given now: blind only with the judge's verdict never
        seen. The same verdict again (a note riding on it) keeps the mode it was given
        with."""
        record = read_pair(store, PairQuery(rubric, columns=("id",)), pair_id)
        earlier = next(
            (
                review
                for review in (record.reviews if record else ())
                if review.dimension == dimension and review.reviewer == reviewer
            ),
            None,
        )
        if earlier is not None and earlier.verdict == verdict:
            return earlier.mode
        if not blind or earlier is not None:
            return SEEN
        return SEEN if self.was_seen(store, pair_id, rubric, reviewer, dimension) else BLIND

    # ---- kept in the project ----------------------------------------------------------
    def unsaved(self) -> list[Seen]:
        """What was shown and is not in the project yet."""
        return [Seen(*row, shown_at) for row, shown_at in self._unsaved.items()]

    def saved(self, rows: list[Seen]) -> None:
        """``rows`` are in the project now."""
        for row in rows:
            key = (row.pair_id, row.rubric, row.reviewer, row.dimension, row.judge)
            self._unsaved.pop(key, None)  # (a verdict's write may have taken it first)

    @contextmanager
    def saving(self, store: ProjectStore) -> Iterator[None]:
        """One transaction that writes what was shown with the caller's writes (a
        verdict); kept as unsaved if it does not commit."""
        rows = self.unsaved()
        with store.transaction():
            if rows:
                record_seen(store, rows)
            yield
        self.saved(rows)

    def save_work(
        self, store: ProjectStore, still_held: Callable[[], None]
    ) -> tuple[list[Seen], Callable[[Callable[[object], None], threading.Event], None]] | None:
        """The rows not yet written, and the work that writes them on a connection of its
        own (a worker thread's; ``still_held`` refuses a file moved meanwhile); None when
        there is nothing to write or the project may not be written. The caller says
        ``saved(rows)`` once the work is done."""
        rows = self.unsaved()
        if not rows or store.readonly or store.lost is not None:
            return None
        path = store.path

        def work(progress: Callable[[object], None], cancel: threading.Event) -> None:
            still_held()
            with open_project(path) as own:
                record_seen(own, rows)

        return rows, work

    def save(self, store: ProjectStore) -> None:
        """Write what was shown, where the project may be written (closing it, say)."""
        if self._unsaved and not store.readonly and store.lost is None:
            with self.saving(store):
                pass
