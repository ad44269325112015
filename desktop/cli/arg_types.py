"""Argument types for numeric options: a value that makes no sense is a usage error (exit 2,
argparse's own message naming the option), never a crash deep inside a command.

Every numeric option is one :class:`Number`: its kind and the range where it means
something (nan, inf and numbers too large for SQLite are outside every range)."""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

from desktop.domain.base_urls import shown_url, url_problem
from desktop.domain.limits import (
    MAX_CONCURRENCY,
    MAX_CONTEXT,
    MAX_PRICE,
    MAX_RATING,
    MAX_ROUNDS,
    MAX_SAMPLES,
    MAX_SECONDS,
    MAX_THREADS,
    SQLITE_MAX,
)


@dataclass(frozen=True)
class Number:
    """An option's number from ``low`` to ``high``; ``above``: ``low`` itself is refused,
    ``below``: ``high`` itself is."""

    kind: type[int] | type[float]
    low: float
    high: float
    above: bool = False
    below: bool = False

    def __call__(self, text: str) -> int | float:
        value = self.parse(text)
        low_ok = value > self.low if self.above else value >= self.low
        high_ok = value < self.high if self.below else value <= self.high
        if not high_ok and self.high >= SQLITE_MAX:
            raise argparse.ArgumentTypeError(f"must be at most {SQLITE_MAX:,}, not {text[:40]}")
        if not (low_ok and high_ok):
            raise argparse.ArgumentTypeError(f"must be {self.range_text()}, not {text[:40]}")
        return value

    def parse(self, text: str) -> int | float:
        """The number ``text`` writes, finite; the range not yet checked."""
        try:
            value = self.kind(text)
        except ValueError:
            if text.strip().lstrip("+-").isascii() and text.strip().lstrip("+-").isdigit():
                raise argparse.ArgumentTypeError(f"far too large: {text[:40]}...") from None
            what = "a whole number" if self.kind is int else "a number"
            raise argparse.ArgumentTypeError(f"not {what}: {text[:40]!r}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"not a finite number: {text!r}")
        return value

    def range_text(self) -> str:
        """The range in words: "1 or more", "from 0 to 1", "above 0 and below 1"."""
        low, high = _shown(self.low), _shown(self.high)
        top = f"below {high}" if self.below else f"at most {high}"
        if self.above:
            return f"above {low} and {top}"
        if self.high >= SQLITE_MAX:
            return f"{low} or more"
        return f"at least {low} and {top}" if self.below else f"from {low} to {high}"

    @property
    def __name__(self) -> str:  # argparse names a type in its messages
        return self.kind.__name__


def _shown(x: float) -> str:
    return f"{int(x):,}" if x == int(x) else f"{x:g}"


def _int(low: int, high: int = SQLITE_MAX) -> Number:
    return Number(int, low, high)


# Counts. A count of pairs or rows is bounded only by what SQLite can hold.
positive_int = _int(1)  # workers, pairs or rows, where none would do nothing
count_or_all = _int(0)  # a list's length, where 0 has a meaning of its own (none, or all)
seed = _int(0)  # a random seed: numpy's are not negative, a sample's is stored
samples = _int(1, MAX_SAMPLES)
rounds = _int(0, MAX_ROUNDS)  # 0: no bootstrap
resamples = _int(1, MAX_ROUNDS)  # a bootstrap that must be drawn (a paired one)
concurrency = _int(1, MAX_CONCURRENCY)
context_tokens = _int(1, MAX_CONTEXT)
threads = _int(1, MAX_THREADS)

# Shares and scales.
probability = Number(float, 0, 1)  # a share from 0 to 1
alpha = Number(float, 0, 1, above=True, below=True)  # an interval at level 1 - alpha
floor = Number(float, 0, 1, above=True)  # a chance relative to another's
temperature = Number(float, 0, 2)  # sampling temperature, as OpenAI's API takes it
seconds = Number(float, 0, MAX_SECONDS, above=True)  # a timeout or a pause
percentage_points = Number(float, 0, 100, above=True, below=True)
rating = Number(float, -MAX_RATING, MAX_RATING)
price = Number(float, 0, MAX_PRICE)  # dollars per million tokens: 0 (a free server) or more


def points(text: str) -> float:
    """A half-width in points of a percentage, "±2", "+-2" or "2", as a share (0.02)."""
    value = text.strip().removeprefix("±").removeprefix("+-").removesuffix("%")
    try:
        percentage_points.parse(value)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"not a number of points: {text!r}") from None
    try:
        return float(percentage_points(value)) / 100
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"a half-width {percentage_points.range_text()} points, not {text!r}"
        ) from None


def anchor(text: str) -> tuple[str, float]:
    """MODEL=RATING: the last '=' parts them (a model's name may hold one)."""
    model, sep, given = text.rpartition("=")
    if not sep or not model:
        raise argparse.ArgumentTypeError(f"expected MODEL=RATING, such as gpt-4=1200, not {text!r}")
    try:
        value = float(rating(given))
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"the rating in {text!r}: {exc}") from None
    return model, value


def base_url(text: str) -> str:
    """A server's base URL that can be asked (``domain.base_urls.url_problem``); shown
    without a password it holds."""
    problem = url_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"{shown_url(text)[:200]!r} is no server's URL: {problem}")
    return text
