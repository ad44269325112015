"""Read the objects of a JSON array one at a time, so memory stays flat however big the file.

``json.load`` of a 107k-record AlpacaEval results file took 3.19 GB; this reader holds one
record (and a read-ahead window) at a time, and knows the line each record starts on, so
an error names the line and the record. It is the standard library's own decoder
(``raw_decode``) run over a growing window of the text: ijson, the usual library for this,
was measured and left out: it names no line, turns a lone surrogate into "?" without a
word, and 100,000 nested ``[`` (100 KB) made it allocate gigabytes until it was killed.

A file may be an array of objects, or an object with exactly one array of objects among
its values (``{"data": [...]}``).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import IO

from desktop.domain.numerals import Numeral

CHUNK = 1 << 18  # bytes read at a time; doubled while one value is larger
_WS = re.compile(r"[ \t\n\r]*")


def _skip(text: str, i: int) -> int:
    """Past the white space at ``i``."""
    space = _WS.match(text, i)  # it matches even nothing
    return space.end() if space else i


class DuplicateMember(ValueError):
    """One object names the same member twice: which of the two was meant is unknown."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise DuplicateMember(name)
            seen.add(name)
    return obj


# The standard decoder keeps the last of two members of one name without a word, and
# reads 1.50 as 1.5: a number is kept as the text the file wrote (a Numeral).
DECODER = json.JSONDecoder(object_pairs_hook=_unique, parse_float=Numeral, parse_int=Numeral)
# Errors of a value that cannot be read: bad JSON, nesting too deep, a member twice.
BadValue = (json.JSONDecodeError, RecursionError, DuplicateMember)
# A decode error this close to the end of the window may only mean the value goes on.
_NEAR_END = 16


class NestedTooDeeply(ValueError):
    """JSON nested deeper than Python's decoder goes."""


def loads_whole(data: bytes | str) -> object:
    """``json.loads`` of a small document read whole (an Ollama manifest, a server's model
    list): nesting too deep for Python's decoder is a ValueError that says so
    (:class:`NestedTooDeeply`), as bad JSON is, never a RecursionError."""
    try:
        return json.loads(data)
    except RecursionError:
        raise NestedTooDeeply(decode_error(RecursionError())) from None


class JsonError(Exception):
    """Bad JSON at ``line``, ``column``: what, and the record and member it was in where
    known."""

    def __init__(self, what: str, line: int, column: int, member: str | None) -> None:
        super().__init__(what)
        self.what, self.line, self.column, self.member = what, line, column, member
        self.record: int | None = None


def decode_error(exc: json.JSONDecodeError | RecursionError | DuplicateMember) -> str:
    """What went wrong, as the one-line reason of an import error."""
    if isinstance(exc, RecursionError):
        return "nested too deeply (more than about 900 levels of [ and {)"
    if isinstance(exc, DuplicateMember):
        return f"{exc.name!r} appears twice in one object"
    if exc.pos >= len(exc.doc.rstrip()):
        return f"not valid JSON ({exc.msg}; it ends in the middle of a value: cut short?)"
    return f"not valid JSON ({exc.msg})"


def failing_member(text: str, start: int) -> str | None:
    """The name of the top-level member of the object at ``start`` whose value does not
    decode (or after which the object is broken); None outside an object or member."""
    try:
        i = _skip(text, start)
        if text[i : i + 1] != "{":
            return None
        i += 1
        while True:
            i = _skip(text, i)
            key, i = DECODER.raw_decode(text, i)
            if not isinstance(key, str):
                return None
            i = _skip(text, i)
            if text[i : i + 1] != ":":
                return key
            i = _skip(text, i + 1)
            try:
                _, i = DECODER.raw_decode(text, i)
            except BadValue:
                return key
            i = _skip(text, i)
            if text[i : i + 1] != ",":
                return None if text[i : i + 1] == "}" else key
            i += 1
    except BadValue:
        return None


class _Window:
    """The unread part of a file, decoded, with the line and column of every position.
    Bytes are read and decoded in large blocks (a third faster than a text file's read)."""

    def __init__(self, raw: IO[bytes], errors: str) -> None:
        self.raw = raw
        self.decoder = codecs.getincrementaldecoder("utf-8-sig")(errors)
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.line = 1  # the line of buf[pos]
        self.line_begin = 0  # where that line begins in buf (negative: before the window)

    def more(self, at_least: int = 0) -> bool:
        """Read on; False at the end of the file (positions in the window then still hold)."""
        while not self.eof:
            data = self.raw.read(max(at_least, CHUNK))
            self.eof = not data
            text = self.decoder.decode(data, final=self.eof)
            if text:
                if self.pos:
                    self.buf = self.buf[self.pos :]
                    self.line_begin -= self.pos
                    self.pos = 0
                self.buf += text
                return True
        return False

    def advance(self, end: int) -> None:
        newlines = self.buf.count("\n", self.pos, end)
        if newlines:
            self.line += newlines
            self.line_begin = self.buf.rfind("\n", self.pos, end) + 1
        self.pos = end

    def peek(self) -> str:
        """The next character that is not white space ("" at the end of the file)."""
        while True:
            self.advance(_skip(self.buf, self.pos))
            if self.pos < len(self.buf):
                return self.buf[self.pos]
            if not self.more():
                return ""

    def place(self, index: int) -> tuple[int, int]:
        """Line and column (from 1) of ``buf[index]``, at or after ``pos``."""
        line = self.line + self.buf.count("\n", self.pos, index)
        newline = self.buf.rfind("\n", self.pos, index)
        begin = newline + 1 if newline >= 0 else self.line_begin
        return line, index - begin + 1

    def fail(self, what: str, index: int | None = None, member: str | None = None) -> JsonError:
        line, column = self.place(self.pos if index is None else index)
        return JsonError(what, line, column, member)

    def expect(self, char: str, what: str) -> None:
        found = self.peek()
        if found != char:
            raise self.fail(f"expected {what}, found {_shown(found)}")
        self.advance(self.pos + 1)

    def value(self, *, peeked: bool = False) -> object:
        """Decode the JSON value that starts at the next non-space character (at ``pos``
        if the caller has just ``peeked``)."""
        if not peeked:
            self.peek()
        want = CHUNK
        while True:
            try:
                value, end = DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                cut = (
                    exc.msg.startswith("Unterminated string")
                    or exc.pos >= len(self.buf) - _NEAR_END
                )
                if cut and self.more(want):
                    want *= 2
                    continue
                member = failing_member(self.buf, self.pos)
                raise self.fail(decode_error(exc), exc.pos, member) from None
            except (RecursionError, DuplicateMember) as exc:  # reading on cannot help
                member = failing_member(self.buf, self.pos)
                raise self.fail(decode_error(exc), None, member) from None
            # A number that ends with the window may go on in the next read.
            if end == len(self.buf) and self.more(want):
                want *= 2
                continue
            self.advance(end)
            return value


def _shown(char: str) -> str:
    return "the end of the file" if not char else repr(char)


def iter_array(raw: IO[bytes], errors: str = "strict") -> Iterator[tuple[int, int, object]]:
    """(record number, line it starts on, value) for each element of the array in a UTF-8
    file. Raises JsonError, with the line and column, for anything that is not an array
    (or an object holding exactly one), and UnicodeDecodeError for bytes that are not
    UTF-8 (``errors`` as for ``bytes.decode``)."""
    window = _Window(raw, errors)
    first = window.peek()
    if first == "[":
        yield from _elements(window)
    elif first == "{":
        yield from _wrapped(window)
    else:
        raise window.fail(f"expected a JSON array of objects, found {_shown(first)}")
    if window.peek():
        raise window.fail("unexpected data after the end of the JSON array")


def _elements(window: _Window) -> Iterator[tuple[int, int, object]]:
    window.expect("[", "'['")
    number = 0
    while (char := window.peek()) != "]":
        if number:
            if char != ",":
                raise window.fail(
                    f"expected ',' or ']' after record {number}, found {_shown(char)}"
                )
            window.pos += 1  # a comma holds no newline
            window.peek()
        number += 1
        line = window.line
        try:
            value = window.value(peeked=True)
        except JsonError as exc:
            exc.record = number
            raise
        yield number, line, value
    window.advance(window.pos + 1)


def _wrapped(window: _Window) -> Iterator[tuple[int, int, object]]:
    """``{"meta": ..., "data": [...]}``: the elements of its one array."""
    window.expect("{", "'{'")
    found: str | None = None
    members = 0
    while (char := window.peek()) != "}":
        if members:
            if char != ",":
                raise window.fail(f"expected ',' or '}}', found {_shown(char)}")
            window.advance(window.pos + 1)
        members += 1
        if window.peek() != '"':
            raise window.fail(f"expected a member name, found {_shown(window.peek())}")
        key = str(window.value())  # a string: it opened with '"'
        window.expect(":", "':'")
        if window.peek() != "[":
            window.value()
        elif found is not None:
            raise window.fail(f"expected one array of records, found two ({found!r}, {key!r})")
        else:
            found = key
            yield from _elements(window)
    window.advance(window.pos + 1)
    if found is None:
        raise window.fail("expected a JSON array of objects, found an object without one")
