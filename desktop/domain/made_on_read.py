"""A sequence whose items are made when first read and kept: a conversation's turns and a
trajectory's rows, of which the window shows a few, so showing a pair of 10,000 messages
costs what pairing them up does, not what making every item would."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar, overload

T = TypeVar("T")


class MadeOnRead(Sequence[T]):
    """``count`` items, each made by ``make(index)`` when first read, and kept."""

    def __init__(self, count: int, make: Callable[[int], T]) -> None:
        self._count = count
        self._make = make
        self._made: dict[int, T] = {}

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(self._count)))
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(index)
        item = self._made.get(index)
        if item is None:
            item = self._made[index] = self._make(index)
        return item

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return len(other) == self._count and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._count})"
