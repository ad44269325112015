"""The files one import reads: a data file, or every data file under a folder.

Under a folder, a data file is any file whose name ends in .csv, .tsv, .json, .jsonl or
.ndjson, or one of these and .gz or .zst (``test.jsonl.gz``), at any depth, in path order;
names starting with "." (and what is inside such folders) are left out, and so are links
to folders. A data file whose records name no pair (no instruction and two responses, such
as AlpacaEval's ``model_outputs.json``, one output per record) or that holds no record is
skipped and named in the report; a data file that cannot be read (a named pipe or a device
among them, refused unopened; damaged compressed data), or has a bad record, stops the
whole import.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from desktop.adapters.file_kinds import refuse_special
from desktop.adapters.formats.inspect_logs import is_inspect_log
from desktop.adapters.formats.readers import (
    DATA_SUFFIXES,
    Record,
    is_data_file,
    member_with,
    read_records,
    sniff_format,
)
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes import FASTCHAT, Columns, Shape, detect
from desktop.services.fastchat_source import fastchat_source, is_fastchat_folder

_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass
class Source:
    path: Path
    fmt: str  # a physical format (readers.FORMATS)
    first: Record  # read ahead to learn the file's kind and columns
    rest: Iterator[Record]
    shape: Shape  # the kind of its records: named by the user, else its first record's
    columns: Columns


class Sources:
    """The sources of one import, each opened only when the one before is done. ``fmt``
    and ``shape``: as the user named them, None to find them in each file."""

    def __init__(
        self,
        path: Path,
        fmt: str | None,
        shape: Shape | None,
        mapping: Mapping[str, str],
        pair_with: str | None = None,
    ) -> None:
        if not (path.is_file() or path.is_dir()):
            refuse_special(path, expected="a data file or a folder", error=ImportDataError)
            raise ImportDataError(f"{path}: no such file or folder")
        if path.is_file() and is_inspect_log(path):
            raise ImportDataError(
                f"{path}: an Inspect AI eval log, not a data file; two runs of one task import"
                " as pairs with --runs LOG_A LOG_B (in the window: File > Import two Inspect AI"
                " runs)"
            )
        self.path, self.fmt, self.shape, self.mapping = path, fmt, shape, mapping
        self.fastchat = path.is_dir() and shape in (None, FASTCHAT) and is_fastchat_folder(path)
        if shape is FASTCHAT and not self.fastchat:
            raise ImportDataError(
                f"{path}: not a FastChat folder (question.jsonl and model_answer/ in it)"
            )
        if pair_with is not None and not self.fastchat:
            raise ImportDataError(
                f"{path}: --pair-with pairs the models of a FastChat folder (question.jsonl"
                " and model_answer/ in it); this is not one"
            )
        self.pair_with = pair_with
        self.count = 0
        self.skipped: list[str] = []  # under a folder: files without pairs

    def __iter__(self) -> Iterator[Source]:
        if self.fastchat:
            records = fastchat_source(self.path, self.pair_with)
            first = next(records, None)
            if first is None:
                raise ImportDataError(f"{self.path}: no questions to pair")
            self.count += 1
            columns = FASTCHAT.columns(first[1].keys(), self.mapping, first[0])
            yield Source(self.path, "jsonl", first, records, FASTCHAT, columns)
            return
        if self.path.is_dir():
            yield from self._folder()
            return
        source = self._open(self.path, in_folder=False)
        assert source is not None  # a file by itself is never skipped
        self.count += 1
        yield source

    def _folder(self) -> Iterator[Source]:
        files = data_files(self.path)
        if not files:
            raise ImportDataError(
                f"{self.path}: no data files in the folder (looked for"
                f" {', '.join(DATA_SUFFIXES)}, each also as .gz or .zst)"
            )
        for file in files:
            source = self._open(file, in_folder=True)
            if source is not None:
                self.count += 1
                yield source
        if not self.count:
            raise ImportDataError(
                f"{self.path}: no file in the folder holds pairs (skipped {self.skipped[0]}"
                + (", ..." if len(self.skipped) > 1 else "")
                + ")"
            )

    def _open(self, path: Path, *, in_folder: bool) -> Source | None:
        fmt = self.fmt or sniff_format(path)
        records = read_records(path, fmt)
        first = next(records, None)
        if first is None:
            if in_folder:
                self.skipped.append(path.relative_to(self.path).as_posix())
                return None
            raise ImportDataError(f"{path}: no records to import")
        shape = self.shape or detect(first[1])
        try:
            columns = shape.columns(first[1].keys(), self.mapping, first[0])
        except ImportDataError:
            if not in_folder:
                raise
            self.skipped.append(path.relative_to(self.path).as_posix())
            return None
        return Source(path, fmt, first, records, shape, columns)


def data_files(folder: Path) -> list[Path]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        found += [
            Path(root, name) for name in files if not name.startswith(".") and is_data_file(name)
        ]
    return sorted(found, key=lambda p: p.relative_to(folder).parts)


def unstorable_text(batch: list[Record]) -> ImportDataError | None:
    """The record and field of a batch that hold a lone surrogate (a JSON escape such as
    "\\ud800" that is half of a character): no text SQLite can store."""
    for where, fields in batch:
        found = member_with(fields, _SURROGATE)
        if found is not None:
            member, char = found
            return ImportDataError(
                f"{where}: field {member!r} holds a lone surrogate (\\u{ord(char):04x}),"
                " half of a character, which is not text"
            )
    return None
