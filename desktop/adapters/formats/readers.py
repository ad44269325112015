"""Read records from CSV, JSONL and JSON files, each with the place it came from.

A record is ``(where, fields)``: ``where`` is how an error names it ("data.csv line 7",
"data.json line 40 (record 12)"), so every import error points at the exact spot. Every
format is read as a stream, one record at a time. Text that is not UTF-8 is refused with
the line, and the field, of its first bad byte.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop.adapters.file_kinds import refuse_special
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

__all__ = ["FORMATS", "Record", "in_batches", "member_with", "read_records", "sniff_format"]

FORMATS = ("csv", "jsonl", "json")
# What undecodable bytes become when read with errors="surrogateescape".
_ESCAPED = re.compile("[\udc80-\udcff]")


def sniff_format(path: Path) -> str:
    """Guess the format from the name, then from the first non-blank character."""
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
    refuse_special(path, expected="a data file", error=ImportDataError)
    try:
        with path.open("rb") as fh:
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
    fields: dict[str, Any], pattern: re.Pattern[str], *, names: bool = True
) -> tuple[str, str] | None:
    """(member, the text found) for the first member whose value (at any depth) or, with
    ``names``, whose name holds text matching ``pattern``."""
    for key, value in fields.items():
        found = (_search(key, pattern) if names else None) or _search(value, pattern)
        if found is not None:
            return key, found
    return None


def _search(value: Any, pattern: re.Pattern[str]) -> str | None:
    if isinstance(value, str):
        match = pattern.search(value)
        return match.group() if match else None
    items: Any = ()
    if isinstance(value, dict):
        items = itertools.chain.from_iterable(value.items())
    elif isinstance(value, list):
        items = value
    return next((f for f in (_search(v, pattern) for v in items) if f is not None), None)


def _checked(path: Path, fmt: str) -> Iterator[Record]:
    try:
        yield from _records(path, fmt, "strict")
    except UnicodeDecodeError:
        raise _not_utf8(path, fmt) from None


def _records(path: Path, fmt: str, errors: str) -> Iterator[Record]:
    refuse_special(path, expected="a data file", error=ImportDataError)  # never opened
    try:
        if fmt == "json":
            fh: Any = path.open("rb")
        else:
            fh = path.open("r", encoding="utf-8-sig", errors=errors, newline="")
    except OSError as exc:
        raise ImportDataError(f"{path}: cannot be read ({exc.strerror})") from None
    with fh:
        if fmt == "csv":
            yield from read_csv(path, fh)
        elif fmt == "jsonl":
            yield from _read_jsonl(path, fh)
        else:
            yield from _read_json(path, fh, errors)


def _read_jsonl(path: Path, fh: Any) -> Iterator[Record]:
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


def _read_json(path: Path, raw: Any, errors: str) -> Iterator[Record]:
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


def _kind(value: Any) -> str:
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
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                return number, exc.start + 1, raw[exc.start]
    return 1, 1, 0
