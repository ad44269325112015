"""How long Qt takes to lay a text out, told from the text, so a view shows at once only as
much as it can lay out promptly, and reads markdown only while that is quick.

Measured in a view 620 pixels wide (offscreen, in the GUI thread's own time): a character
takes 0.3 to 0.8 µs in any one script; a line of its own about 4.5 µs more (8,000 short
lines: 36 ms), a tab about 1 µs more, and a change of script from one letter to the next
(Latin to Arabic, Cyrillic to Han, letters to emoji) about 3 µs more, as each change starts
a run Qt shapes apart (16,000 characters alternating Latin and Arabic: 56 ms), and a control
character, shown as its symbol from a font of symbols, two to three times a letter (16,000
NULs and controls: 35 ms, where 16,000 letters of prose take 12). A cost is counted in
characters, each of those as that many more.

Markdown costs more: Qt's markdown reader builds a list in time that grows with the square
of its items (5,000 items: 0.7 s, and the text is read twice), lays a table out at about
0.1 ms a cell (a table of 5,000 columns: 13 s to read and lay out), and a line kept a line
(desktop/ui/markdown_document.py) costs about 15 µs (10,000 of them: 150 ms).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache
from itertools import accumulate, repeat
from operator import add, itemgetter
from typing import NamedTuple

PART = 16_000  # characters of a text shown at once at most
PART_COST = 24_000  # and what they may cost: 10 to 20 ms to lay out
SHORT = 4_000  # a text that costs no more is laid out in a few ms, whatever it holds
LINE_COST = 10  # a line of its own costs as much as this many characters more
_WEIGHTS = {"\n": LINE_COST, "\t": 2}
_CHANGE = 6  # a change of script between two letters
_SPECIAL = re.compile("[\n\t]")
CONTROL_COST = 2  # a control character (its symbol shown: shown_text.py) costs this many more
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+")  # (a run of them: one entry)
# The letters of each script, as blocks of 256 characters of the first plane: a table, not
# a regular expression (compiling one that holds the 27,000 Han characters takes 17 ms).
_SCRIPTS = (
    ((0x00, 0x02), (0x1E, 0x1E)),  # Latin (blocks 0x00 and 0x03 are told apart below)
    ((0x03, 0x03), (0x1F, 0x1F)),  # Greek
    ((0x04, 0x05),),  # Cyrillic, Armenian, Hebrew
    ((0x06, 0x08),),  # Arabic, Syriac, Thaana
    ((0x09, 0x0D),),  # Indic scripts
    ((0x0E, 0x0E),),  # Thai, Lao
    ((0x10, 0x10),),  # Myanmar, Georgian
    ((0x11, 0x11), (0xAC, 0xD7)),  # Hangul
    ((0x30, 0x30),),  # kana
    ((0x34, 0x9F), (0xF9, 0xFA)),  # Han
)
_PAST_THE_FIRST_PLANE = len(_SCRIPTS) + 1  # emoji, and every script there
_BLOCKS = bytearray(256)  # each block's script; 0: no letters (symbols, punctuation)
for _id, _ranges in enumerate(_SCRIPTS, start=1):
    for _first, _last in _ranges:
        _BLOCKS[_first : _last + 1] = bytes([_id]) * (_last - _first + 1)
_LATIN_1 = bytes(map(str.isalpha, map(chr, range(256))))  # block 0x00: Latin if a letter
_GREEK = bytes(0x70) + bytes([2]) * 0x90  # block 0x03: accents, then Greek
_SPLIT = {0x00: _LATIN_1, 0x03: _GREEK}
_IS = {block: bytes(block) + b"\xff" + bytes(255 - block) for block in _SPLIT}
_NONZERO = b"\x00" + b"\xff" * 255
_LETTERS = b" " + bytes(range(0x41, 0x41 + 26)) + b" " * 229  # script n as the nth letter
_CHANGE_RE = re.compile(rb"(?<=([A-Z]))(?!\1)[A-Z]")  # a letter after another script's


def _changes(text: str) -> list[int]:
    """Where a letter follows one of another script, straight after it. Done on bytes, a
    character each, so a text of any script is costed in C's time, not Python's."""
    data = text.encode("utf-32-be", "surrogatepass")
    size = len(text)
    plane, high, low = data[1::4], data[2::4], data[3::4]
    ids = int.from_bytes(high.translate(_BLOCKS), "big")
    for block, table in _SPLIT.items():
        mask = int.from_bytes(high.translate(_IS[block]), "big")
        ids = ids & ~mask | int.from_bytes(low.translate(table), "big") & mask
    beyond = int.from_bytes(plane.translate(_NONZERO), "big")
    if beyond:
        everywhere = int.from_bytes(bytes([_PAST_THE_FIRST_PLANE]) * size, "big")
        ids = ids & ~beyond | everywhere & beyond
    letters = ids.to_bytes(size, "big").translate(_LETTERS)
    return [match.start() for match in _CHANGE_RE.finditer(letters)]


@lru_cache(maxsize=8)  # a text is costed for markdown, then for its first part
def _extra(text: str) -> list[tuple[int, int]]:
    """Where ``text`` costs more than a character, and how much more, in order."""
    found = [(m.start(), _WEIGHTS[m.group()]) for m in _SPECIAL.finditer(text)]
    controls = [(m.start(), CONTROL_COST * (m.end() - m.start())) for m in _CONTROLS.finditer(text)]
    if controls:
        found = sorted(found + controls)
    if _few_changes_at_most(text):
        return found  # (an answer with a dash or an accent here and there)
    found.extend(zip(_changes(text), repeat(_CHANGE)))
    found.sort()
    return found


def _few_changes_at_most(text: str) -> bool:
    """Whether changes of script could matter little: each has a character past ASCII on
    one side, so there are at most twice as many; counting them is skipped when they could
    add no more than an eighth, or leave the text short (``SHORT``) all the same."""
    most = 2 * _CHANGE * (len(text) - len(text.encode("ascii", "ignore")))
    return most <= len(text) // 8 or len(text) + most <= SHORT


@lru_cache(maxsize=16)  # five views of a pair may show one text: costed once
def layout_cost(text: str) -> int:
    return len(text) + sum(map(itemgetter(1), _extra(text)))


@lru_cache(maxsize=16)
def part(text: str, start: int) -> tuple[int, int]:
    """Where the part of ``text`` that starts at ``start`` ends, and its cost: at most
    ``PART`` characters on, costing at most ``PART_COST``, after a line end near its end."""
    window = text[start : start + PART]
    extra = _extra(window)
    positions = list(map(itemgetter(0), extra))
    spent = [0, *accumulate(map(itemgetter(1), extra))]  # before each, and after the last
    # Each extra cost counted while the characters before it and the costs before it leave
    # room (position + spent grows with each): found by bisection, in C's loops.
    counted = bisect_left(list(map(add, positions, spent)), PART_COST)
    end = min(len(window), PART_COST - spent[counted])
    if counted:
        end = min(len(window), max(positions[counted - 1] + 1, end))
    if start + end < len(text):
        line_end = window.rfind("\n", end * 9 // 10, end)
        end = line_end + 1 if line_end >= 0 else end
    return start + end, end + spent[bisect_left(positions, end)]


LIST_ITEMS = 600  # Qt's reader builds a list in time that grows with the square of its items
MARKDOWN_COST = 2 * PART_COST  # about 15 to 40 ms to read and lay out
CELL_COST = 150  # a table cell takes about as long to lay out as this many characters
MARKDOWN_LINE_COST = 20  # and a line, read twice and kept a line, this many more again
_LIST_ITEM = re.compile(r"^[ \t>]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)", re.MULTILINE)
_DASHES = re.compile("-+")


class MarkdownSize(NamedTuple):
    """What laying ``text`` out as markdown would take, counted on the text itself."""

    characters: int
    cost: int  # to read and lay it out, for the layout queue
    lines: int = 0
    list_items: int = 0
    table_cells: int = 0

    def too_big(self) -> str:
        """Why the text is not laid out as markdown ("" when it is), for the reviewer."""
        if self.characters > PART:
            return "too long for markdown"
        if self.list_items > LIST_ITEMS:
            return f"{self.list_items:,} list items, too many for markdown"
        if self.cost <= MARKDOWN_COST:
            return ""
        shares = {
            "table cells": (self.table_cells, CELL_COST * self.table_cells),
            "lines": (self.lines, (LINE_COST + MARKDOWN_LINE_COST) * self.lines),
        }
        what, (count, share) = max(shares.items(), key=lambda item: item[1][1])
        if 2 * share >= self.cost - self.characters:
            return f"{count:,} {what}, too many for markdown"
        return "too many changes of script for markdown"


def markdown_size(text: str) -> MarkdownSize:
    if len(text) > PART:
        return MarkdownSize(len(text), len(text))
    cells = _table_cells(text.split("\n")) if "|" in text else 0
    lines = text.count("\n") + 1
    return MarkdownSize(
        len(text),
        layout_cost(text) + CELL_COST * cells + MARKDOWN_LINE_COST * lines,
        lines,
        len(_LIST_ITEM.findall(text)),
        cells,
    )


def _table_cells(lines: list[str]) -> int:
    """At most how many cells GitHub's tables in ``lines`` have: each delimiter row's
    columns times its rows, the header and every line up to the next blank one."""
    blank_after = [len(lines)] * (len(lines) + 1)  # the first blank line from i on
    for i in range(len(lines) - 1, -1, -1):
        blank_after[i] = i if not lines[i].strip() else blank_after[i + 1]
    cells = 0
    for i, line in enumerate(lines):
        row = line.lstrip(" \t>")
        if "|" in row and "-" in row and not row.strip("|-: \t"):
            cells += len(_DASHES.findall(row)) * (blank_after[i + 1] - i)
    return cells
