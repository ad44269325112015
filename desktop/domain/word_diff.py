"""The words that differ between two responses, for marking them side by side.

Word-level, as track-changes views and Prodigy's ``--diff`` are: a number written
``48.55`` against ``48.45`` is one word that differs, so it is marked whole. The words are
compared with difflib's SequenceMatcher with its automatic junk heuristic off (it would
treat every common word, "the", as junk once a text passes 200 words and match nothing
around it). Words the two texts share are not marked; nor is a run of words that only
moved (found, the same words in the same order, among the other side's changes).
Whitespace is never a difference by itself.

Bounded work whatever the texts. The matcher's work is counted as it goes (for each word
it looks at, the places that word occurs on the other side) against a ``budget``: two
texts of a few words repeated in no order would cost it work that grows with the square
of their length, and its estimate before it starts says too little (two texts of 7,800
characters of five words took 0.7 s within the old estimate). Past half of what is left,
the comparison falls back to patience diff's anchors: the words that occur once on each
side, in the order both give them, split the middle into gaps compared the same way; a
gap with no such word, or met once the budget is spent, is marked as one change
(``Diff.whole``), which a reviewer of two long texts of the same few words can still
read. The real AlpacaEval pairs cost at most 300,000 steps, well within ``BUDGET``.

Every position is a Python string index into the text given (code points).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from difflib import Match, SequenceMatcher
from typing import NamedTuple

#: A word: letters and digits, joined by a dot, comma, apostrophe or hyphen between two of
#: them (48.55, 1,000, don't, well-known); a run of one other symbol.
_TOKEN = re.compile(r"\w+(?:[.,'’\-]\w+)*|([^\w\s])\1*")
BUDGET = 1_500_000  # steps at most (about 0.15 s, off the window's thread)
QUICK = 40_000  # steps a comparison may take on the window's thread (a few ms)
MOVE_MIN = 3  # words in a row that count as moved, not changed, when found on the other side


class Segment(NamedTuple):
    start: int
    end: int
    changed: bool


class Diff(NamedTuple):
    a: tuple[Segment, ...]  # the whole of A in order, each part changed or not
    b: tuple[Segment, ...]
    whole: bool = False  # a part too costly to compare word by word is marked as one

    def changes(self, side: str) -> list[tuple[int, int]]:
        """(start, end) of each changed part of ``side`` ("a" or "b")."""
        return [(s.start, s.end) for s in getattr(self, side) if s.changed]


class _OverBudget(Exception):
    pass


class _Work:
    """Steps left to spend; ``spend`` raises once a share given out is gone."""

    def __init__(self, steps: int) -> None:
        self.left = steps
        self.cap = steps  # what the comparison running now may still spend
        self.short = False  # some part was marked whole

    def spend(self, steps: int) -> None:
        self.charge(steps)
        if self.cap < 0:
            raise _OverBudget

    def charge(self, steps: int) -> None:
        """Steps of linear work (a few per word), counted but never stopped half-way."""
        self.left -= steps
        self.cap -= steps


class _Counted(SequenceMatcher[str]):
    """SequenceMatcher that pays for each look for the longest match before it looks: for
    each word of A in the range, the places it occurs in B (what its loop goes over)."""

    def __init__(self, a: Sequence[str], b: Sequence[str], work: _Work) -> None:
        self.work = work
        self._words = a
        self._places = Counter(b)
        super().__init__(None, a, b, autojunk=False)

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> Match:
        ahi = len(self._words) if ahi is None else ahi
        places = self._places
        self.work.spend(ahi - alo + sum(places[w] for w in self._words[alo:ahi]))
        return super().find_longest_match(alo, ahi, blo, bhi)


def _tokens(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    words, spans = [], []
    for m in _TOKEN.finditer(text):
        words.append(m.group())
        spans.append(m.span())
    return words, spans


def word_diff(a: str, b: str, budget: int = BUDGET) -> Diff:
    """Which parts of ``a`` and ``b`` differ, word by word, in at most ``budget`` steps."""
    diff = _diff(a, b, _Work(budget), give_up=False)
    assert diff is not None
    return diff


def quick_diff(a: str, b: str, budget: int = QUICK) -> Diff | None:
    """``word_diff`` when it takes at most ``budget`` steps, else None (and little time)."""
    if len(a) + len(b) > 40 * budget:  # tokenizing alone would take longer
        return None
    return _diff(a, b, _Work(budget), give_up=True)


def _diff(a: str, b: str, work: _Work, *, give_up: bool) -> Diff | None:
    wa, sa = _tokens(a)
    wb, sb = _tokens(b)
    changed_a = [True] * len(wa)
    changed_b = [True] * len(wb)
    try:
        blocks: list[tuple[int, int, int]] = []
        _match(wa, wb, 0, len(wa), 0, len(wb), work, blocks, give_up)
        for i, j, size in blocks:
            changed_a[i : i + size] = [False] * size
            changed_b[j : j + size] = [False] * size
        _unmark_moves(wa, changed_a, wb, changed_b, work, give_up)
    except _OverBudget:
        return None
    return Diff(_segments(len(a), sa, changed_a), _segments(len(b), sb, changed_b), work.short)


def _match(
    wa: list[str],
    wb: list[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    work: _Work,
    blocks: list[tuple[int, int, int]],
    give_up: bool,
) -> None:
    """Add to ``blocks`` the runs of words ``wa[alo:ahi]`` and ``wb[blo:bhi]`` share, as
    (i, j, size); whatever stays outside them is a change."""
    if work.left <= 0:
        if give_up:
            raise _OverBudget
        # (a word against a word, or against nothing, is as precise as it gets)
        work.short = work.short or ahi - alo > 1 or bhi - blo > 1
        return
    start = alo
    while alo < ahi and blo < bhi and wa[alo] == wb[blo]:
        alo, blo = alo + 1, blo + 1
    if alo > start:
        blocks.append((start, blo - (alo - start), alo - start))
    end = ahi
    while ahi > alo and bhi > blo and wa[ahi - 1] == wb[bhi - 1]:
        ahi, bhi = ahi - 1, bhi - 1
    work.charge(end - ahi + alo - start)
    if ahi > alo and bhi > blo:
        _match_middle(wa, wb, alo, ahi, blo, bhi, work, blocks, give_up)
    if end > ahi:
        blocks.append((ahi, bhi, end - ahi))


def _match_middle(
    wa: list[str],
    wb: list[str],
    alo: int,
    ahi: int,
    blo: int,
    bhi: int,
    work: _Work,
    blocks: list[tuple[int, int, int]],
    give_up: bool,
) -> None:
    left = work.left
    work.cap = left if give_up else left // 2  # the rest, for anchors and their gaps
    try:
        matcher = _Counted(wa[alo:ahi], wb[blo:bhi], work)
        found = matcher.get_matching_blocks()
    except _OverBudget:
        if give_up:
            raise
    else:
        blocks.extend((alo + i, blo + j, size) for i, j, size in found if size)
        return
    anchors = _anchors(wa, wb, alo, ahi, blo, bhi, work)
    if not anchors:
        work.short = True  # nothing to hold on to: the middle is one change
        return
    i, j = alo, blo
    for x, y in anchors:
        _match(wa, wb, i, x, j, y, work, blocks, give_up)
        blocks.append((x, y, 1))
        i, j = x + 1, y + 1
    _match(wa, wb, i, ahi, j, bhi, work, blocks, give_up)


def _anchors(
    wa: list[str], wb: list[str], alo: int, ahi: int, blo: int, bhi: int, work: _Work
) -> list[tuple[int, int]]:
    """Patience diff's anchors: the words found exactly once on each side, the longest
    run of them in the same order on both, as (i, j) in order."""
    work.charge(2 * (ahi - alo + bhi - blo))
    count_a = Counter(wa[alo:ahi])
    count_b = Counter(wb[blo:bhi])
    at_b = {w: j for j, w in enumerate(wb[blo:bhi], start=blo) if count_b[w] == 1}
    pairs = [
        (i, at_b[w]) for i, w in enumerate(wa[alo:ahi], start=alo) if count_a[w] == 1 and w in at_b
    ]
    # The longest increasing run of j (patience sorting), in n log n.
    tails: list[int] = []  # the j ending the best run of each length
    ends: list[int] = []  # which pair ends it
    before = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        n = bisect_left(tails, j)
        if n == len(tails):
            tails.append(j)
            ends.append(k)
        else:
            tails[n], ends[n] = j, k
        before[k] = ends[n - 1] if n else -1
    run: list[tuple[int, int]] = []
    k = ends[-1] if ends else -1
    while k >= 0:
        run.append(pairs[k])
        k = before[k]
    return run[::-1]


def _unmark_moves(
    wa: list[str], ca: list[bool], wb: list[str], cb: list[bool], work: _Work, give_up: bool
) -> None:
    """Runs of at least MOVE_MIN changed words that occur, in order, among the other
    side's changed words moved: neither side marks them. Left out, where the budget has
    too little left for it."""
    ia = [i for i, c in enumerate(ca) if c]
    ib = [j for j, c in enumerate(cb) if c]
    if len(ia) < MOVE_MIN or len(ib) < MOVE_MIN or work.left <= 0:
        return
    xa, xb = [wa[i] for i in ia], [wb[j] for j in ib]
    work.cap = work.left
    try:
        found = _Counted(xa, xb, work).get_matching_blocks()
    except _OverBudget:
        if give_up:
            raise
        return
    for i, j, size in found:
        # only words that stand next to each other in the text form a run that moved
        while size >= MOVE_MIN:
            run = 1
            while run < size and ia[i + run] == ia[i] + run and ib[j + run] == ib[j] + run:
                run += 1
            if run >= MOVE_MIN:
                for k in range(run):
                    ca[ia[i + k]] = cb[ib[j + k]] = False
            i, j, size = i + run, j + run, size - run


def _segments(
    length: int, spans: list[tuple[int, int]], changed: list[bool]
) -> tuple[Segment, ...]:
    """The text cut into unchanged and changed parts; a changed part runs from its first
    changed word to its last, the whitespace between them included."""
    out: list[Segment] = []
    pos = 0
    k = 0
    while k < len(spans):
        if not changed[k]:
            k += 1
            continue
        start = spans[k][0]
        while k + 1 < len(spans) and changed[k + 1]:
            k += 1
        end = spans[k][1]
        if start > pos:
            out.append(Segment(pos, start, False))
        out.append(Segment(start, end, True))
        pos = end
        k += 1
    if pos < length or not out:
        out.append(Segment(pos, length, False))
    return tuple(out)
