"""Each pair's answers measured once (``domain.answer_measures``) and kept in the project
(``adapters.store.answer_measures``), so a figure over a large project reads a few integers
a pair, not every answer's text again: the bias figures (lengths, lists) and style control
(tokens, headers, lists, bold).

``measure_backlog`` measures every pair without measures, after a large import, in the
process of its own that builds the search index (``tiebreak index``): a chunk is read and
measured outside any transaction and written in a short one, so the window's writes never
wait on the tokenizer. ``styles_of`` and ``answers_of`` are what the figures ask: the kept
measures, and the rest measured there and then (a project opened read-only, a small
import, a file of an older release), each text once while the process runs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

from desktop.adapters.store.answer_measures import (
    keep,
    kept_answers,
    kept_styles,
    texts_of,
    unmeasured,
)
from desktop.adapters.store.project import ProjectStore
from desktop.domain.answer_measures import Measures, Style, measure
from desktop.domain.judge_biases import Answer, answer

#: Pairs measured per chunk: about half a second of tokenizing, then one short write.
CHUNK = 500
#: Answers measured where they were asked for and kept while the process runs, by
#: tokenizer and the text's hash (64 bits: two texts alike in it among a million are once
#: in 10^7); past this many, they start again.
KEEP_COUNTED = 1_000_000
_COUNTED: dict[str, dict[int, Measures]] = {}


class Measurer:
    """Answers' measures by the tokenizer this machine has (``adapters.tokenizer``)."""

    def __init__(self) -> None:
        from desktop.adapters.tokenizer import token_counter

        self.tokenizer, self._tokens = token_counter()
        self._counted = _COUNTED.setdefault(self.tokenizer, {})

    def of(self, text: str) -> Measures:
        key = hash(text)
        found = self._counted.get(key)
        if found is None:
            found = measure(text, self._tokens)
            if len(self._counted) >= KEEP_COUNTED:
                self._counted.clear()
            self._counted[key] = found
        return found

    def fresh(self, text: str) -> Measures:
        """Measured now, not looked up: what is written to the file is never a hash's."""
        return measure(text, self._tokens)


def _wanted(ids: Collection[int]) -> Collection[int] | None:
    """Many ids are read as all rows (one scan, not a seek each)."""
    return None if len(ids) > 50_000 else ids


def styles_of(
    store: ProjectStore, ids: Collection[int], measurer: Measurer | None = None
) -> dict[int, tuple[Style, Style]]:
    """A's and B's style counts of the pairs ``ids`` (those that exist): kept where the
    project has them by this tokenizer, else measured from the texts."""
    measurer = measurer or Measurer()
    if not ids:
        return {}
    out = kept_styles(store.conn, measurer.tokenizer, _wanted(ids))
    missing = [i for i in ids if i not in out]
    for pid, a, b in texts_of(store.conn, missing):
        out[pid] = (measurer.of(a).style, measurer.of(b).style)
    return out


def answers_of(store: ProjectStore, ids: Collection[int]) -> dict[int, tuple[Answer, Answer]]:
    """A's and B's lengths and list marks (the bias figures' ``Answer``) of the pairs
    ``ids``: kept where the project has them, else read from the texts (no tokenizing)."""
    if not ids:
        return {}
    out = kept_answers(store.conn, _wanted(ids))
    missing = [i for i in ids if i not in out]
    for pid, a, b in texts_of(store.conn, missing):
        out[pid] = (answer(a), answer(b))
    return out


def measure_backlog(
    store: ProjectStore, *, chunk: int = CHUNK, progress: Callable[[int], None] | None = None
) -> int:
    """Measure and keep every pair without measures by this machine's tokenizer, ``chunk``
    a transaction; returns how many pairs were measured. A pair whose answers changed, or
    that was deleted, between the read and the write gets no row (the write checks)."""
    measurer = Measurer()
    store.settle_every(5.0)
    total, after = 0, 0
    while True:
        with store.watched_read() as conn:  # a copy over the file reads as damage here
            rows = unmeasured(conn, measurer.tokenizer, after, chunk)
        if not rows:
            break
        done = [(pid, a, b, measurer.fresh(a), measurer.fresh(b)) for pid, a, b in rows]
        with store.transaction() as conn:
            total += keep(conn, measurer.tokenizer, done)
        after = rows[-1][0]
        if progress:
            progress(total)
    store.checkpoint()
    return total
