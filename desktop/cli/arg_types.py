"""Argument types for numeric options: a value that makes no sense is a usage error (exit 2,
argparse's own message naming the option), never a crash deep inside a command."""

from __future__ import annotations

import argparse
import math


def _number(text: str, kind: type[int] | type[float]) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
    return value


def positive_int(text: str) -> int:
    """1 or more: a count of workers, pairs or rows where none would do nothing."""
    value = int(_number(text, int))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {text}")
    return value


def count_or_all(text: str) -> int:
    """0 or more, for a list's length where 0 has a meaning of its own (none, or all)."""
    value = int(_number(text, int))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def price(text: str) -> float:
    """Dollars per million tokens: 0 (a free server) or more."""
    value = float(_number(text, float))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def positive_float(text: str) -> float:
    """A finite number of seconds above 0."""
    value = float(_number(text, float))
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be above 0, not {text}")
    return value


def probability(text: str) -> float:
    """A share from 0 to 1."""
    value = float(_number(text, float))
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, not {text}")
    return value


def temperature(text: str) -> float:
    """A sampling temperature: 0 to 2, as OpenAI's API takes it."""
    value = float(_number(text, float))
    if not 0 <= value <= 2:
        raise argparse.ArgumentTypeError(f"must be between 0 and 2, not {text}")
    return value
