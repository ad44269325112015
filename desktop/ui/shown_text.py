"""What a view shows of a text as plain characters, and the way back to the text itself.

Qt finds where to wrap a line by looking ahead to its next break opportunity, from every
line it starts: a run with none (99,999 letters, NULs, dashes, no-break spaces) is laid
out in time that grows with the square of its length (12 s for 100,000 letters). So a run
longer than ``RUN`` characters gets a zero-width space every ``STEP`` characters, for
display only: it wraps at the edge, as Qt wraps a shorter run that does not fit a line,
but in time that grows with its length alone. Control characters, which Qt draws as
identical boxes or not at all, are shown as their symbols (NUL as ␀, ESC as ␛), one for
one, where a font has them; a CR LF line end is one line break. Every position shown maps
back to the text, so a copy gives back exactly the characters selected, as the text has
them (a zero-width space the text itself holds included).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from typing import NamedTuple

RUN = 500  # characters without a break opportunity shown as they are
STEP = 8  # a break so often in a longer run: its lines end at most this far from the edge
BREAK = "\u200b"  # zero-width space: a break opportunity that draws nothing
_RUN = re.compile(f"[^ \\t\\n\\r\\u2028\\u2029{BREAK}]{{{RUN + 1},}}")
_LINE_END = re.compile("\r\n")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two places each in Qt's UTF-16 text
_JOINERS = frozenset("\u200c\u200d") | frozenset(map(chr, range(0xFE00, 0xFE10)))
# C0 controls but tab and line feed, and DEL, as the Control Pictures block draws them;
# a lone CR is a line break, as Qt shows it.
_PICTURES = {c: 0x2400 + c for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)}
_PICTURES.update({0x0D: 0x0A, 0x7F: 0x2421})


def shown_char(char: str) -> str:
    """The character a view shows for ``char`` (a control's symbol, NUL as ␀), so what
    is searched is marked as shown."""
    return char.translate(_PICTURES)


def _attached(text: str, position: int) -> bool:
    """Whether a break before ``position`` would split what is drawn as one character (a
    letter and its accents, an emoji and its modifiers or joiners)."""
    if position >= len(text):
        return False
    following, before = text[position], text[position - 1]
    if following < "\u0300" and before < "\u0300":  # no accent, joiner or modifier here
        return False
    import unicodedata  # loaded when a long run is first shown (half a megabyte)

    return (
        before in _JOINERS
        or following in _JOINERS
        or unicodedata.category(following)[0] == "M"
        or "\U0001f3fb" <= following <= "\U0001f3ff"  # skin tones
    )


def has_long_run(text: str) -> bool:
    """Whether ``text`` has a run that gets breaks. Asked of markdown's source: markdown
    takes marks out of a run and puts nothing between two of its characters; only an
    image grows (``![]()`` is shown as ``[image]``), so a run of at most ``RUN`` in the
    source is shown at most 7/5 as long, still quick to lay out."""
    return _RUN.search(text) is not None


def break_points(text: str) -> list[int]:
    """Where in ``text`` a break goes: every ``STEP`` characters of a run longer than
    ``RUN``, moved on (a few characters at most) so no drawn character is split."""
    points = []
    for run in _RUN.finditer(text):
        position, end = run.start() + STEP, run.end()
        while position < end:
            for _ in range(16):  # an accent a thousand deep is split all the same
                if not _attached(text, position):
                    break
                position += 1
            if position < end:
                points.append(position)
            position += STEP
    return points


class Shown(NamedTuple):
    """The characters shown for ``source[start:end]``, and where each came from.

    ``keys`` are shown positions from which the way back shifts by the matching entry of
    ``shifts`` (summed): +1 past a line end shown as one character for two, -1 past a
    break that is not in the text."""

    text: str
    source: str
    start: int
    end: int
    keys: tuple[int, ...] = ()
    shifts: tuple[int, ...] = ()

    def original(self, position: int) -> int:
        """The place in ``source`` of shown ``position`` (a break: of what follows it)."""
        passed = bisect_right(self.keys, position)
        return self.start + position + (self.shifts[passed - 1] if passed else 0)

    def copied(self, start: int, end: int) -> str:
        """The text behind shown positions ``start`` to ``end``, exactly as the text has it.
        The positions are a document's (UTF-16: an emoji takes two)."""
        astral = [m.start() + i for i, m in enumerate(_ASTRAL.finditer(self.text))]
        start, end = (p - bisect_left(astral, p) for p in (start, end))
        return self.source[self.original(start) : self.original(end)]


def utf16_positions(text: str, positions: list[int]) -> list[int]:
    """Where ``positions`` in ``text`` are in a Qt document holding it (an emoji takes two
    places there)."""
    astral = [m.start() for m in _ASTRAL.finditer(text)]
    return [p + bisect_left(astral, p) for p in positions] if astral else positions


def plain(source: str, start: int = 0, end: int | None = None) -> Shown:
    """``source[start:end]`` as a plain view shows it (see the module's docstring)."""
    end = len(source) if end is None else end
    piece = source[start:end]
    edits: list[tuple[int, int]] = []  # (shown position from which, shift)
    if "\r\n" in piece:
        removed = [m.start() for m in _LINE_END.finditer(piece)]
        piece = piece.replace("\r\n", "\n")
        edits = [(at - i + 1, 1) for i, at in enumerate(removed)]  # after the shown "\n"
    points = break_points(piece)
    if points:
        pieces, last = [], 0
        for point in points:
            pieces.append(piece[last:point])
            last = point
        pieces.append(piece[last:])
        piece = BREAK.join(pieces)
        # Each break moves what follows it on by one; a line end's edit moves as well.
        moved = [(at + bisect_right(points, at - 1), shift) for at, shift in edits]
        breaks = [(point + i + 1, -1) for i, point in enumerate(points)]
        edits = sorted(moved + breaks)
    keys: list[int] = []
    shifts: list[int] = []
    total = 0
    for at, shift in edits:
        total += shift
        if keys and keys[-1] == at:
            shifts[-1] = total
        else:
            keys.append(at)
            shifts.append(total)
    return Shown(piece.translate(_PICTURES), source, start, end, tuple(keys), tuple(shifts))
