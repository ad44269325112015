"""Data files as they are published: gzip (HH-RLHF's ``*.jsonl.gz``), and zstd where this
Python reads it (``compression.zstd`` in 3.14, the ``backports.zstd`` package before).

A file is compressed when its first bytes say so, whatever its name. It is inflated as a
stream, a buffer at a time, never whole; and it may grow to at most ``MAX_RATIO`` times
the compressed bytes read so far (past the first ``RATIO_FLOOR`` bytes, where small files
of repeated text may grow more), so a decompression bomb stops in one line. Damaged or
cut-short data is one line naming the file, raised where it is met, so the import it is
part of rolls back. A plain file is opened as before, with no layer between.
"""

from __future__ import annotations

import gzip
import importlib
import io
import zlib
from pathlib import Path
from types import ModuleType
from typing import IO, Any, Protocol

from desktop.domain.errors import ImportDataError

__all__ = [
    "COMPRESSED_SUFFIXES",
    "MAX_RATIO",
    "RATIO_FLOOR",
    "CompressedDataError",
    "damage",
    "open_binary",
    "open_text",
    "plain_name",
]

#: The names a compressed data file ends in (``data.jsonl.gz``); the content decides.
COMPRESSED_SUFFIXES = (".gz", ".gzip", ".zst", ".zstd")
#: How many times the compressed bytes read so far the output may be, past the floor.
#: Text compresses 3 to 15 times; gzip's own limit is about 1,030.
MAX_RATIO = 100
RATIO_FLOOR = 32 * 2**20

_GZIP = b"\x1f\x8b"
_ZSTD = b"\x28\xb5\x2f\xfd"
_BUFFER = 1 << 16


class CompressedDataError(ImportDataError):
    """The compressed data is damaged, cut short, or inflates too far."""


def plain_name(path: Path) -> Path:
    """The name without its compression suffix (``a.jsonl.gz`` -> ``a.jsonl``), to read
    the format off."""
    if path.suffix.lower() in COMPRESSED_SUFFIXES:
        return path.with_suffix("")
    return path


def open_binary(path: Path) -> IO[bytes]:
    """The file's bytes, inflated where it is compressed. OSError as ``open`` gives it."""
    fh = path.open("rb")
    try:
        head = fh.peek(len(_ZSTD))[: len(_ZSTD)]
        if head.startswith(_GZIP):
            inner: _Decompressor = gzip.GzipFile(fileobj=fh, mode="rb")
            return _inflating(path, fh, "gzip", inner, (EOFError, OSError, zlib.error))
        if head.startswith(_ZSTD):
            zstd = _zstd_module(path)
            inner = zstd.ZstdFile(fh, "rb")
            return _inflating(path, fh, "zstd", inner, (EOFError, OSError, zstd.ZstdError))
    except BaseException:
        fh.close()
        raise
    return fh


def damage(path: Path) -> CompressedDataError | None:
    """What is wrong with a compressed file's data, read through to its end (its checksum
    included); None for a plain file or sound data. Asked on an error's path only: damage
    inflates to garbage that a reader may stumble on before the checksum is reached."""
    if not path.is_file():  # a pipe or a device, refused unopened: never opened here
        return None
    try:
        with open_binary(path) as fh:
            if isinstance(fh, io.BufferedReader) and isinstance(fh.raw, _Inflating):
                while fh.read(_BUFFER):
                    pass
    except CompressedDataError as exc:
        return exc
    except (OSError, ImportDataError):
        pass
    return None


def open_text(path: Path, errors: str) -> IO[str]:
    """The file as UTF-8 text (a byte-order mark dropped, newlines kept as they are)."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8-sig", errors=errors, newline="")


def _zstd_module(path: Path) -> ModuleType:
    """Python 3.14's zstd, or its backport (the same interface), imported only when a
    zstd file is met."""
    for name in ("compression.zstd", "backports.zstd"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImportDataError(
        f"{path}: is zstd-compressed, which this Python cannot read (Python 3.14 can, or"
        " install the backports.zstd package; or decompress it first)"
    )


Errors = tuple[type[BaseException], ...]


class _Decompressor(Protocol):
    """gzip's GzipFile or zstd's ZstdFile, as _Inflating reads it."""

    def read1(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


def _inflating(
    path: Path, raw: IO[bytes], kind: str, inner: _Decompressor, errors: Errors
) -> IO[bytes]:
    return io.BufferedReader(_Inflating(path, raw, kind, inner, errors), _BUFFER)


class _Inflating(io.RawIOBase):
    """A decompressor's output, counted against the compressed bytes read, with its
    errors as one line naming the file."""

    def __init__(
        self, path: Path, raw: IO[bytes], kind: str, inner: _Decompressor, errors: Errors
    ) -> None:
        super().__init__()
        self.path, self.raw, self.kind, self.inner, self.errors = path, raw, kind, inner, errors
        self.out = 0  # bytes given out

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self.inner.read1(len(buffer))
        except self.errors as exc:
            raise self._damaged(exc) from None
        n = len(data)
        buffer[:n] = data
        self.out += n
        if self.out > RATIO_FLOOR and self.out > MAX_RATIO * max(self.raw.tell(), 1):
            raise CompressedDataError(
                f"{self.path}: inflates to over {MAX_RATIO} times its {self.kind}-compressed"
                " size, far beyond what data does (a decompression bomb?); not read"
            )
        return n

    def close(self) -> None:
        if not self.closed:
            try:
                self.inner.close()
            finally:
                self.raw.close()
        super().close()

    def _damaged(self, exc: BaseException) -> CompressedDataError:
        if isinstance(exc, EOFError):
            return CompressedDataError(
                f"{self.path}: the {self.kind} data ends early (the file is cut short)"
            )
        reason = str(exc) or type(exc).__name__
        return CompressedDataError(f"{self.path}: damaged {self.kind} data ({reason})")
