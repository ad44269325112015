"""Read records from CSV, JSONL and JSON files, each with the place it came from.

A record is ``(where, fields)``: ``where`` is how an error names it ("data.csv line 7",
"data.json record 12"), so every import error points at the exact spot.
"""

from __future__ import annotations

import csv
import itertools
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from desktop.domain.errors import ImportDataError

Record = tuple[str, dict[str, Any]]
FORMATS = ("csv", "jsonl", "json")

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def sniff_format(path: Path) -> str:
    """Guess the format from the name, then from the first non-blank character."""
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix in (".jsonl", ".ndjson"):
        return "jsonl"
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
    if fmt == "csv":
        return _read_csv(path)
    if fmt == "jsonl":
        return _read_jsonl(path)
    if fmt == "json":
        return _read_json(path)
    raise ImportDataError(f"{path}: unknown format {fmt!r} (known: {', '.join(FORMATS)})")


def _open_text(path: Path, **kwargs: Any) -> Any:
    try:
        return path.open("r", encoding="utf-8-sig", **kwargs)
    except OSError as exc:
        raise ImportDataError(f"{path}: cannot be read ({exc.strerror})") from None


def _read_csv(path: Path) -> Iterator[Record]:
    with _open_text(path, newline="") as fh:
        try:
            sample = fh.read(65536)
            fh.seek(0)
            dialect: Any = (
                csv.excel_tab
                if (
                    path.suffix.lower() == ".tsv"
                    or ("\t" in sample.split("\n", 1)[0] and "," not in sample.split("\n", 1)[0])
                )
                else csv.excel
            )
            reader = csv.reader(fh, dialect)
            header = next(reader, None)
            if not header:
                raise ImportDataError(f"{path}: empty file, no header row")
            header = [h.strip() for h in header]
            dupes = {h for h in header if header.count(h) > 1 and h}
            if dupes:
                raise ImportDataError(f"{path} line 1: column {sorted(dupes)[0]!r} appears twice")
            for row in reader:
                line = reader.line_num
                if not row or (len(row) == 1 and not row[0].strip()):
                    continue
                if len(row) > len(header):
                    raise ImportDataError(
                        f"{path} line {line}: {len(row)} cells but the header has {len(header)}"
                    )
                yield f"{path} line {line}", dict(zip(header, row, strict=False))
        except UnicodeDecodeError as exc:
            raise ImportDataError(
                f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None
        except csv.Error as exc:
            raise ImportDataError(f"{path} line {reader.line_num}: {exc}") from None


def _read_jsonl(path: Path) -> Iterator[Record]:
    with _open_text(path) as fh:
        try:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ImportDataError(
                        f"{path} line {number}: not valid JSON ({exc.msg}, column {exc.colno})"
                    ) from None
                if not isinstance(value, dict):
                    raise ImportDataError(f"{path} line {number}: expected a JSON object")
                yield f"{path} line {number}", value
        except UnicodeDecodeError as exc:
            raise ImportDataError(
                f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None


def _read_json(path: Path) -> Iterator[Record]:
    with _open_text(path) as fh:
        try:
            data = json.load(fh)
        except json.JSONDecodeError as exc:
            raise ImportDataError(
                f"{path} line {exc.lineno}: not valid JSON ({exc.msg}, column {exc.colno})"
            ) from None
        except UnicodeDecodeError as exc:
            raise ImportDataError(
                f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
            ) from None
    if isinstance(data, dict):
        # {"data": [...]} / {"rows": [...]}: one list of objects inside an object.
        lists = [v for v in data.values() if isinstance(v, list)]
        if len(lists) != 1:
            raise ImportDataError(f"{path}: expected a JSON array of objects")
        data = lists[0]
    if not isinstance(data, list):
        raise ImportDataError(f"{path}: expected a JSON array of objects")
    for index, value in enumerate(data, start=1):
        if not isinstance(value, dict):
            raise ImportDataError(f"{path} record {index}: expected a JSON object")
        yield f"{path} record {index}", value
