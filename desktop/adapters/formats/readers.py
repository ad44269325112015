"""Read records from the physical formats a data file may have (CSV, TSV, JSONL, JSON),
each of them plain or compressed (``compressed.py``), each record with the place it came
from.

A record is ``(where, fields)``: ``where`` is how an error names it ("data.csv line 7",
"data.json line 40 (record 12)"), so every import error points at the exact spot. Every
format is read as a stream, one record at a time. Text that is not UTF-8 is refused with
the line, and the field, of its first bad byte. What the records mean (plain pairs, an
AlpacaEval annotation, ...) is no concern of this module: that is an import shape's
(``domain/import_shapes``).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from desktop.adapters.file_kinds import refuse_special
from desktop.adapters.formats.compressed import (
    COMPRESSED_SUFFIXES,
    CompressedDataError,
    damage,
    open_binary,
    open_text,
    plain_name,
)
from desktop.adapters.formats.csv_reader import Record, read_csv
from desktop.adapters.formats.json_stream import (
    DECODER,
    BadValue,
    JsonError,
    decode_error,
    failing_member,
    iter_array,
)
from desktop.domain.errors import ImportDataError
from desktop.domain.numerals import Numeral

__all__ = [
    "DATA_SUFFIXES",
    "FORMATS",
    "Record",
    "in_batches",
    "is_data_file",
    "member_with",
    "read_records",
    "sniff_format",
]

# What undecodable bytes become when read with errors="surrogateescape".
_ESCAPED = re.compile("[\udc80-\udcff]")


@dataclass(frozen=True)
class Format:
    """A physical format: the file names that mark it and how its records are read."""

    name: str
    suffixes: tuple[str, ...]
    # (path, the open file, how undecodable bytes are read) -> records
    read: Callable[[Path, Any, str], Iterator[Record]]
    binary: bool = False  # opened as bytes: the reader decodes, and knows each line
    # A file of this suffix may still hold another format: its first bytes decide.
    suffix_decides: bool = True


def _read_csv(path: Path, fh: IO[str], errors: str) -> Iterator[Record]:
    return read_csv(path, fh)  # tabs where the name or the first line says so


def _read_tsv(path: Path, fh: IO[str], errors: str) -> Iterator[Record]:
    return read_csv(path, fh, tabs=True)


def _read_jsonl(path: Path, fh: IO[str], errors: str) -> Iterator[Record]:
    for number, line in enumerate(fh, start=1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            value = DECODER.decode(line)
        except BadValue as exc:
            place = f", column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
            member = failing_member(line, 0)
            field = f" in field {member!r}" if member is not None else ""
            raise ImportDataError(f"{where}{place}{field}: {decode_error(exc)}") from None
        if not isinstance(value, dict):
            raise ImportDataError(f"{where}: expected a JSON object, got {_kind(value)}")
        yield where, value


def _read_json(path: Path, raw: IO[bytes], errors: str) -> Iterator[Record]:
    try:
        for number, line, value in iter_array(raw, errors):
            where = f"{path} line {line} (record {number})"
            if not isinstance(value, dict):
                raise ImportDataError(f"{where}: expected a JSON object, got {_kind(value)}")
            yield where, value
    except JsonError as exc:
        record = f" (record {exc.record})" if exc.record is not None else ""
        field = f" in field {exc.member!r}" if exc.member is not None else ""
        raise ImportDataError(
            f"{path} line {exc.line}, column {exc.column}{record}{field}: {exc.what}"
        ) from None


# The physical formats, by name: ``--format`` takes these names, and a folder's data files
# are the files with these suffixes.
_TABLE = {
    f.name: f
    for f in (
        Format("csv", (".csv",), _read_csv),
        Format("tsv", (".tsv",), _read_tsv),
        Format("jsonl", (".jsonl", ".ndjson"), _read_jsonl),
        Format("json", (".json",), _read_json, binary=True, suffix_decides=False),
    )
}
FORMATS = tuple(_TABLE)
DATA_SUFFIXES = tuple(s for f in _TABLE.values() for s in f.suffixes)
_BY_SUFFIX = {s: f.name for f in _TABLE.values() if f.suffix_decides for s in f.suffixes}


def is_data_file(name: str) -> bool:
    """Whether a file of this name, under a folder, is read as data: a data suffix, or one
    followed by a compression suffix (``test.jsonl.gz``)."""
    name = name.lower()
    return name.endswith(DATA_SUFFIXES) or (
        name.endswith(COMPRESSED_SUFFIXES) and plain_name(Path(name)).name.endswith(DATA_SUFFIXES)
    )


def sniff_format(path: Path) -> str:
    """Guess the format from the name (a compression suffix left out), then from the first
    non-blank character (of the inflated text, where the file is compressed)."""
    suffix = plain_name(path).suffix.lower()
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    refuse_special(path, expected="a data file", error=ImportDataError)
    try:
        with open_binary(path) as fh:
            head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except OSError as exc:
        raise ImportDataError(f"{path}: cannot be read ({exc.strerror})") from None
    if head.startswith(b"["):
        return "json"
    if head.startswith(b"{"):
        # One object per line is JSONL; one object spanning lines is JSON.
        first_line = head.split(b"\n", 1)[0].strip()
        return "jsonl" if first_line.endswith(b"}") else "json"
    if suffix == ".json":
        return "json"
    return "csv"


def in_batches(first: Record, rest: Iterator[Record], size: int) -> Iterator[list[Record]]:
    """The records in lists of ``size`` (the last may be shorter), the first one included:
    callers read it ahead to learn the file's shape."""
    records = itertools.chain((first,), rest)
    while batch := list(itertools.islice(records, size)):
        yield batch


def read_records(path: Path, fmt: str) -> Iterator[Record]:
    if fmt not in FORMATS:
        raise ImportDataError(f"{path}: unknown format {fmt!r} (known: {', '.join(FORMATS)})")
    return _checked(path, fmt)


def member_with(
    fields: Mapping[str, object], pattern: re.Pattern[str], *, names: bool = True
) -> tuple[str, str] | None:
    """(member, the text found) for the first member whose value (at any depth) or, with
    ``names``, whose name holds text matching ``pattern``."""
    for key, value in fields.items():
        found = (_search(key, pattern) if names else None) or _search(value, pattern)
        if found is not None:
            return key, found
    return None


def _search(value: object, pattern: re.Pattern[str]) -> str | None:
    if isinstance(value, str):
        match = pattern.search(value)
        return match.group() if match else None
    items: Iterable[object] = ()
    if isinstance(value, dict):
        items = itertools.chain.from_iterable(value.items())
    elif isinstance(value, list):
        items = value
    return next((f for f in (_search(v, pattern) for v in items) if f is not None), None)


def _checked(path: Path, fmt: str) -> Iterator[Record]:
    try:
        yield from _records(path, fmt, "strict")
    except UnicodeDecodeError:
        raise damage(path) or _not_utf8(path, fmt) from None
    except CompressedDataError:
        raise
    except ImportDataError:
        # Damaged compressed data inflates to garbage a reader may trip on first.
        found = damage(path)
        if found is None:
            raise
        raise found from None


def _records(path: Path, fmt: str, errors: str) -> Iterator[Record]:
    refuse_special(path, expected="a data file", error=ImportDataError)  # never opened
    form = _TABLE[fmt]
    try:
        fh: Any = open_binary(path) if form.binary else open_text(path, errors)
    except OSError as exc:
        raise ImportDataError(f"{path}: cannot be read ({exc.strerror})") from None
    with fh:
        yield from form.read(path, fh, errors)


def _kind(value: object) -> str:
    if isinstance(value, Numeral):
        return "a number"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return {list: "an array", str: "text", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )


def _not_utf8(path: Path, fmt: str) -> ImportDataError:
    """The line of the first byte that is not UTF-8, and the record and field it is in
    where the file reads that far with the byte escaped (the error path only)."""
    line, column, byte = _first_bad_byte(path)
    bad = f"0x{byte:02x} at byte {column} of line {line}"
    try:
        for where, fields in _records(path, fmt, "surrogateescape"):
            found = member_with(fields, _ESCAPED, names=False)
            if found is not None:
                return ImportDataError(f"{where}: field {found[0]!r} is not UTF-8 text ({bad})")
    except (ImportDataError, UnicodeError):
        pass
    return ImportDataError(f"{path} line {line}: not UTF-8 text (0x{byte:02x} at byte {column})")


def _first_bad_byte(path: Path) -> tuple[int, int, int]:
    """(line, byte of that line from 1, the byte's value) of the first byte that UTF-8
    cannot decode."""
    with open_binary(path) as fh:
        for number, raw in enumerate(fh, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return number, exc.start + 1, raw[exc.start]
    return 1, 1, 0
