"""Read the rows of a CSV (or TSV) file as records named by the line they start on.

Every row must have as many cells as the header: a short row is as wrong as a long one
(a cell that moved would put text under the wrong column). Quotes are read strictly, so
a quote that is never closed, which would swallow the rest of the file, is an error that
names the line and column where it opened.
"""

from __future__ import annotations

import csv
import itertools
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from desktop.adapters.formats.compressed import open_text, plain_name
from desktop.domain.errors import ImportDataError

Record = tuple[str, dict[str, object]]

csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def read_csv(path: Path, fh: IO[str], *, tabs: bool | None = None) -> Iterator[Record]:
    """``tabs`` True reads TSV, False CSV; None takes tabs where the name ends in .tsv or
    the first line has tabs and no comma."""
    # The first line is read ahead, not sought back to: an inflating stream cannot seek.
    first_line = fh.readline()
    if tabs is None:
        tabs = plain_name(path).suffix.lower() == ".tsv" or (
            "\t" in first_line and "," not in first_line
        )
    dialect: type[csv.Dialect] = csv.excel_tab if tabs else csv.excel
    reader = csv.reader(itertools.chain((first_line,), fh), dialect, strict=True)
    header: list[str] = []
    start = 1
    try:
        header = _names(path, [h.strip() for h in next(reader, [])])
        while True:
            start = reader.line_num + 1
            row = next(reader, None)
            if row is None:
                return
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) != len(header):
                raise ImportDataError(
                    f"{path} line {start}: {len(row)} cells but the header has {len(header)}"
                    f" ({_columns(header)})"
                )
            yield f"{path} line {start}", dict(zip(header, row, strict=True))
    except csv.Error as exc:
        raise _quote_error(path, dialect, header, start, reader.line_num, str(exc)) from None


def _names(path: Path, header: list[str]) -> list[str]:
    """The header's column names; a column without one is named by its place
    ("column 4"), so two unnamed columns are two members of a record, not one."""
    if not header:
        raise ImportDataError(f"{path}: empty file, no header row")
    named = set(header)
    names: list[str] = []
    for number, name in enumerate(header, start=1):
        if not name:
            name = f"column {number}"
            if name in named:
                raise ImportDataError(
                    f"{path} line 1: column {number} has no name, and another column is"
                    f" named {name!r}; name it"
                )
        elif name in names:
            raise ImportDataError(f"{path} line 1: column {name!r} appears twice")
        names.append(name)
    return names


def _columns(header: list[str]) -> str:
    shown = ", ".join(repr(h) for h in header[:6])
    return shown + (", ..." if len(header) > 6 else "")


def _quote_error(
    path: Path, dialect: type[csv.Dialect], header: list[str], start: int, end: int, reason: str
) -> ImportDataError:
    """Name the line and column of a quoting fault between lines ``start`` and ``end``."""
    with open_text(path, "replace") as fh:
        text = "".join(itertools.islice(fh, start - 1, end))
    cell, line = _fault(text, dialect.delimiter)
    column = f" (column {header[cell]!r})" if cell < len(header) and header[cell] else ""
    if "end of data" in reason:
        return ImportDataError(
            f"{path} line {start + line}{column}: a quoted cell is never closed"
            " (its opening quote is unmatched up to the end of the file)"
        )
    if "expected after" in reason:
        return ImportDataError(
            f"{path} line {start + line}{column}: text after the closing quote of a cell"
            ' (a quote inside a quoted cell is written twice: "")'
        )
    return ImportDataError(f"{path} line {end}{column}: not valid CSV ({reason})")


def _fault(text: str, delimiter: str) -> tuple[int, int]:
    """(cell index, line offset) of the first quoting fault in one record's text."""
    i, cell, n = 0, 0, len(text)
    while i < n:
        if text[i] == '"':
            opened = i
            i += 1
            while True:
                j = text.find('"', i)
                if j < 0:
                    return cell, text.count("\n", 0, opened)
                if text.startswith('""', j):
                    i = j + 2
                    continue
                i = j + 1
                break
            if i < n and text[i] not in (delimiter, "\r", "\n"):
                return cell, text.count("\n", 0, i)
        else:
            while i < n and text[i] not in (delimiter, "\r", "\n"):
                i += 1
        if i < n and text[i] == delimiter:
            cell += 1
            i += 1
        else:
            return cell, text.count("\n", 0, i)
    return cell, 0
