"""A GGUF model file's header, read without loading the model: what ``tiebreak models``
lists and what a GGUF profile is checked against before a server is started for it.

Why not ``gguf.GGUFReader`` (llama.cpp's own package): it turns every vocabulary entry into
a numpy view, which took 2.1 s for the 135M bundled model's 49,152 tokens, and it brings
requests, tqdm and PyYAML along. This reader steps over arrays by their lengths (16 ms for
the same header) and keeps the short ones; ``tests/test_gguf_header.py`` checks what it
reads against ``gguf``'s reader, on the bundled model and on files ``gguf``'s writer made.

Format (llama.cpp's ``docs/gguf.md``): "GGUF", a version (1 to 3), the tensor and key-value
counts, the key-value pairs, one info per tensor (name, dimensions, type, offset), then the
tensors' data, aligned to ``general.alignment`` (32 by default). All little-endian.
"""

from __future__ import annotations

import mmap
import os
import stat
import struct
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from desktop.adapters.file_kinds import kind_of_mode, refuse_special
from desktop.domain.errors import TiebreakError
from desktop.domain.gguf_types import FILE_TYPES, WEIGHT_TYPES, parameter_label, tensor_bytes

MAGIC = b"GGUF"
DEFAULT_ALIGNMENT = 32
# Arrays up to this length are kept (a model's languages, its stop tokens); longer ones (the
# vocabulary, its merges and scores) only counted.
KEPT_ARRAY = 64
# Strings up to this length are kept (a chat template is tens of kilobytes); longer ones
# (a whole tokenizer.json, some files carry one) are stepped over.
KEPT_STRING = 1 << 20

# What a header may claim, beyond which it is refused before anything is read: a damaged or
# hostile file's counts and lengths are never believed. Each limit is far above any real
# model's, and each count is also bounded by the bytes left in the file (a sparse file's
# size is no bound: its holes read as zeros).
MAX_KEY = (1 << 16) - 1  # bytes of a key (GGUF's own limit, docs/gguf.md)
MAX_TENSOR_NAME = 63  # bytes of a tensor's name (llama.cpp's GGML_MAX_NAME is 64, with NUL)
MAX_DIMS = 4  # llama.cpp's GGML_MAX_DIMS
MAX_KEY_VALUES = 1 << 16  # real files have under a hundred
MAX_TENSORS = 1 << 17  # real files have a few thousand at most
MAX_ARRAY = 1 << 21  # elements of one array: the largest vocabularies are about 262,000
# Values read one by one in all (strings stepped over, a short array's items, each value):
# a bound on the time, where each count alone is bounded but many of them are not.
MAX_STEPS = 1 << 22
KEPT_TOTAL = 16 << 20  # bytes of strings kept in all; past it, strings are stepped over
# The fewest bytes one entry takes: a key-value pair (a key's length, its type, a one-byte
# value), a tensor's info (a name's length, its dimension count, type and offset).
_MIN_KEY_VALUE = 8 + 4 + 1
_MIN_TENSOR = 8 + 4 + 4 + 8

# GGUF value type -> struct format of one value (8 string, 9 array: read apart)
_SCALARS = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING, _ARRAY = 8, 9
_ELEMENT_BYTES = {**{kind: struct.calcsize(fmt) for kind, fmt in _SCALARS.items()}, _STRING: 8}
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")


def _named(key: str) -> str:
    """A key as a message names it: quoted, and cut short (a key may be 65,535 bytes)."""
    return repr(key) if len(key) <= 80 else repr(key[:80]) + "…"


class GgufError(TiebreakError):
    """The file is not a GGUF model llama.cpp could load; the message names it."""


#: A header value as kept: a number, a string or a short array of them; None where it was
#: stepped over (too long to keep).
GgufValue = int | float | str | list["GgufValue"] | None


@dataclass(frozen=True)
class GgufHeader:
    path: Path
    version: int
    file_size: int
    metadata: dict[str, GgufValue]  # scalars, strings and short arrays
    array_lengths: dict[str, int]  # every array, by key: its number of elements
    tensor_count: int
    parameters: int  # elements in all tensors together
    tensor_types: dict[str, int] = field(default_factory=dict)  # type name -> tensors
    data_offset: int = 0
    expected_size: int = 0  # where the last tensor's data ends

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", "unknown"))

    @property
    def name(self) -> str:
        """The model's name as its file says, else the file's name."""
        named = self.metadata.get("general.name")
        return str(named) if named else self.path.stem

    def arch_value(self, key: str) -> GgufValue:
        """A per-architecture setting such as ``context_length`` (``llama.context_length``)."""
        return self.metadata.get(f"{self.architecture}.{key}")

    @property
    def context_length(self) -> int | None:
        value = self.arch_value("context_length")
        return int(value) if isinstance(value, int) else None

    @property
    def quantization(self) -> str:
        """The type the file is published as (``general.file_type``), else the commonest
        type among its tensors."""
        file_type = self.metadata.get("general.file_type")
        if isinstance(file_type, int) and file_type in FILE_TYPES:
            return FILE_TYPES[file_type]
        if self.tensor_types:
            return max(self.tensor_types.items(), key=lambda item: item[1])[0]
        return "unknown"

    @property
    def parameter_label(self) -> str:
        return parameter_label(self.parameters)

    @property
    def chat_template(self) -> str | None:
        value = self.metadata.get("tokenizer.chat_template")
        return value if isinstance(value, str) else None

    def kv_bytes_per_token(self) -> int | None:
        """Bytes of llama.cpp's key-value cache (16-bit keys and values) per token of
        context, from the model's shape; None where its header does not say."""
        layers = self._count("block_count")
        heads = self._count("attention.head_count")
        given_kv = self.arch_value("attention.head_count_kv")  # none or 0: as many as heads
        kv_heads = self._count("attention.head_count_kv") if given_kv else heads
        width = self._count("embedding_length")
        if layers is None or heads is None or kv_heads is None or width is None:
            return None
        key_width = self._count("attention.key_length") or width // heads
        value_width = self._count("attention.value_length") or width // heads
        return int(layers * kv_heads * (key_width + value_width) * 2)

    def _count(self, key: str) -> int | None:
        value = self.arch_value(key)
        return value if isinstance(value, int) and value > 0 else None


class _Reader:
    def __init__(self, data: mmap.mmap | bytes, path: Path) -> None:
        self.data, self.path, self.pos, self.size = data, path, 0, len(data)
        self.steps, self.kept = MAX_STEPS, KEPT_TOTAL  # what is left of each budget

    def step(self, count: int = 1) -> None:
        self.steps -= count
        if self.steps < 0:
            raise GgufError(
                f"{self.path}: its header holds more than {MAX_STEPS:,} values in all, more"
                " than any model's; a damaged file?"
            )

    def cut_short(self) -> GgufError:
        return GgufError(
            f"{self.path}: the file is cut short in its header ({self.size:,} bytes);"
            " download it again"
        )

    def skip(self, count: int) -> None:
        self.pos += count
        if self.pos > self.size:
            raise self.cut_short()

    def left(self) -> int:
        return self.size - self.pos

    def claimed(self, count: int, what: str, limit: int, each: int) -> int:
        """``count`` of ``what`` as the header claims it, refused beyond ``limit`` or
        beyond what the bytes left could hold at ``each`` bytes apiece."""
        if count > limit:
            raise GgufError(
                f"{self.path}: its header claims {count:,} {what}, more than any model has"
                f" ({limit:,}); a damaged file?"
            )
        if count * each > self.left():
            raise self.cut_short()
        return count

    def u32(self) -> int:
        if self.pos + 4 > self.size:
            raise self.cut_short()
        value = _U32.unpack_from(self.data, self.pos)[0]
        self.pos += 4
        return int(value)

    def u64(self) -> int:
        if self.pos + 8 > self.size:
            raise self.cut_short()
        value = _U64.unpack_from(self.data, self.pos)[0]
        self.pos += 8
        return int(value)

    def string(self, limit: int | None = None, what: str = "") -> str | None:
        """The string here. A name (a key, a tensor's: ``limit`` given) is refused beyond
        ``limit`` bytes; a value longer than is kept is stepped over (None)."""
        length = self.u64()
        if limit is not None and length > limit:
            raise GgufError(
                f"{self.path}: its header claims {what} of {length:,} bytes, more than"
                f" GGUF allows ({limit:,}); a damaged file?"
            )
        start = self.pos
        self.skip(length)
        if limit is None and length > min(KEPT_STRING, self.kept):
            return None  # a value: stepped over
        self.kept -= length
        if self.kept < 0:  # names: each one short, but not all of them together
            raise GgufError(
                f"{self.path}: its header's names take more than {KEPT_TOTAL >> 20} MiB,"
                " more than any model's; a damaged file?"
            )
        return bytes(self.data[start : self.pos]).decode("utf-8", errors="replace")

    def name(self, limit: int, what: str) -> str:
        text = self.string(limit, what)
        assert text is not None  # a name is never stepped over
        return text

    def scalar(self, kind: int) -> int | float:
        fmt = _SCALARS.get(kind)
        if fmt is None:
            raise GgufError(f"{self.path}: unknown GGUF value type {kind}; not a model file?")
        width = struct.calcsize(fmt)
        if self.pos + width > self.size:
            raise self.cut_short()
        value = struct.unpack_from(fmt, self.data, self.pos)[0]
        self.pos += width
        return value

    def value(self, kind: int, key: str, lengths: dict[str, int]) -> GgufValue:
        self.step()
        if kind == _STRING:
            return self.string()
        if kind != _ARRAY:
            return self.scalar(kind)
        item, count = self.u32(), self.u64()
        if item == _ARRAY:  # llama.cpp refuses them; read, they nest without end
            raise GgufError(
                f"{self.path}: {_named(key)} is an array of arrays, which llama.cpp does not read;"
                " a damaged file?"
            )
        if item not in _ELEMENT_BYTES:
            raise GgufError(f"{self.path}: unknown GGUF value type {item}; not a model file?")
        count = self.claimed(count, f"elements in {_named(key)}", MAX_ARRAY, _ELEMENT_BYTES[item])
        lengths[key] = count
        if count <= KEPT_ARRAY:
            return [self.value(item, key + "[]", {}) for _ in range(count)]
        if item == _STRING:  # the vocabulary: step over each entry by its length
            self.step(count)
            data, pos, size, unpack = self.data, self.pos, self.size, _U64.unpack_from
            for _ in range(count):
                if pos + 8 > size:
                    raise self.cut_short()
                pos += 8 + unpack(data, pos)[0]
            self.pos = pos
            if pos > size:
                raise self.cut_short()
        else:
            self.skip(count * _ELEMENT_BYTES[item])
        return None


def read_header(path: Path, *, real: Path | None = None) -> GgufHeader:
    """The header of the GGUF file at ``path``; GgufError (one line naming the file) where
    it is not one, is cut short, or cannot be read. A pipe or a device is refused before it
    is opened (opening a pipe waits for a writer), and checked again once open, without
    waiting, in case the name changed hands between the two.

    ``real``: where ``path`` was found to lead (a listing checks that a link stays inside
    its model folder): that file is read, and not through a link, while messages and the
    header still name ``path``."""
    target = real or path
    refuse_special(target, expected="a GGUF model file", error=GgufError)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    if real is not None:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        raise GgufError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    try:
        with open(fd, "rb", closefd=False) as handle:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise GgufError(f"{path}: is {kind_of_mode(mode)}, not a GGUF model file")
            size = handle.seek(0, 2)
            if size < 4:
                raise GgufError(f"{path}: not a GGUF model file ({size} bytes)")
            with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as data:
                return _parse(data, path, size)
    except OSError as exc:
        raise GgufError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    finally:
        os.close(fd)


def _parse(data: mmap.mmap, path: Path, size: int) -> GgufHeader:
    if data[:4] != MAGIC:
        # what it starts with is not said: a listing must never show a file's bytes
        raise GgufError(f"{path}: not a GGUF model file (it does not start with 'GGUF')")
    reader = _Reader(data, path)
    reader.skip(4)
    version = reader.u32()
    if version not in (1, 2, 3):
        raise GgufError(f"{path}: GGUF version {version} is not one llama.cpp reads (1 to 3)")
    count = reader.u32 if version == 1 else reader.u64
    tensor_count, kv_count = count(), count()
    reader.claimed(kv_count, "key-value pairs", MAX_KEY_VALUES, _MIN_KEY_VALUE)
    reader.claimed(tensor_count, "tensors", MAX_TENSORS, _MIN_TENSOR)
    metadata: dict[str, GgufValue] = {}
    lengths: dict[str, int] = {}
    for _ in range(kv_count):
        key = reader.name(MAX_KEY, "a key")
        if key in metadata or key in lengths:  # llama.cpp refuses a file with a key twice
            raise GgufError(
                f"{path}: the key {_named(key)} is in its header twice; a damaged file?"
            )
        value = reader.value(reader.u32(), key, lengths)
        if value is not None or key not in lengths:
            metadata[key] = value
    reader.claimed(tensor_count, "tensors", MAX_TENSORS, _MIN_TENSOR)
    parameters, end = 0, 0
    types: Counter[str] = Counter()
    names: set[str] = set()
    for _ in range(tensor_count):
        name = reader.name(MAX_TENSOR_NAME, "a tensor name")
        if name in names:  # as llama.cpp refuses it (a sparse file's holes name all '')
            raise GgufError(f"{path}: the tensor {name!r} is in its header twice; a damaged file?")
        names.add(name)
        ndims = reader.u32()
        if ndims > MAX_DIMS:
            raise GgufError(
                f"{path}: its tensor {name!r} claims {ndims:,} dimensions (llama.cpp reads up"
                f" to {MAX_DIMS}); a damaged file?"
            )
        dims = [count() for _ in range(ndims)]
        kind, offset = reader.u32(), reader.u64()
        elements = 1
        for dim in dims:
            elements *= dim
        parameters += elements
        types[WEIGHT_TYPES.get(kind, (f"type {kind}",))[0]] += 1
        end = max(end, offset + (tensor_bytes(kind, elements) or 0))
    if tensor_count == 0:
        raise GgufError(f"{path}: holds no weights (a vocabulary or adapter file, not a model)")
    alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
    if not isinstance(alignment, int) or alignment <= 0:
        alignment = DEFAULT_ALIGNMENT
    data_offset = -(-reader.pos // alignment) * alignment
    header = GgufHeader(
        path=path,
        version=version,
        file_size=size,
        metadata=metadata,
        array_lengths=lengths,
        tensor_count=tensor_count,
        parameters=parameters,
        tensor_types=dict(types),
        data_offset=data_offset,
        expected_size=data_offset + end,
    )
    if size < header.expected_size:
        raise GgufError(
            f"{path}: the file is cut short ({size:,} of {header.expected_size:,} bytes);"
            " download it again"
        )
    return header
