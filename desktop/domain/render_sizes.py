"""How big a value or an operation would be, worked out before it is built.

One step of Python's C code (``str(x)``, ``a * b``, ``'%s' % x``, a hash, a comparison)
cannot be interrupted by the render budget's clock or by Ctrl+C, so its size must be known
before it runs. These figures are upper bounds, within a small factor, of what the step
builds: the text a value prints as (a list shared a million times inside another prints a
million times over), an integer's bits, the result of a format.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from dataclasses import dataclass
from typing import Any, TypeGuard

from jinja2.sandbox import SecurityError
from jinja2.utils import Namespace

#: The largest integer a template may build, in bits (about 19,700 digits): past this,
#: multiplying, dividing and printing get slow in one uninterruptible step.
INT_BITS = 65_536
#: Values nested deeper than this are refused: Python's repr, comparison and hashing of
#: them recurse in C (hashing a tuple nested 300,000 deep crashes the interpreter).
MAX_DEPTH = 100
_CHECK_EVERY = 4096  # values walked between two looks at the clock
_OTHER = 64  # the text of a function, macro, range, loop or undefined value: short
_CONTAINERS = (list, tuple, dict, set, frozenset, Namespace, KeysView, ValuesView, ItemsView)


class TooBig(SecurityError):
    """A value or step past the budget; the message says what and the limit."""


@dataclass
class Shape:
    """What a value's text costs: characters, values inside it, and the sum of their
    depths (the indentation ``tojson(indent=...)`` or ``pprint`` adds)."""

    text: int
    values: int = 0
    depths: int = 0


def is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def int_digits(value: int) -> int:
    return value.bit_length() * 30103 // 100000 + 2


def check_int(bits: int) -> None:
    if bits > INT_BITS:
        raise TooBig(f"it builds an integer of {bits:,} bits, above the limit of {INT_BITS:,}")


def _leaf(value: object) -> int | None:
    """The text size of a value with nothing inside it; None for a container."""
    if isinstance(value, str):
        return len(value) + 2  # quoted inside a container
    if isinstance(value, bool) or value is None:
        return 5
    if isinstance(value, int):
        return int_digits(value)
    if isinstance(value, float):
        return 24
    if isinstance(value, bytes):
        return 4 * len(value) + 3
    if isinstance(value, _CONTAINERS):
        return None
    return _OTHER


def _children(value: Any) -> Iterator[Any]:
    if isinstance(value, Namespace):
        value = object.__getattribute__(value, "_Namespace__attrs")
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield item
    else:
        yield from value


def shape(value: object, limit: int, check: Callable[[], None] | None = None) -> Shape:
    """The text ``value`` prints as, measured by walking it (a shared value is walked
    once); TooBig as soon as it passes ``limit`` characters or ``MAX_DEPTH`` levels."""
    leaf = len(value) if isinstance(value, str) else _leaf(value)
    if leaf is not None:
        if leaf > limit:
            raise TooBig(f"it builds text of {leaf:,} characters, above the limit of {limit:,}")
        return Shape(leaf)
    done: dict[int, Shape] = {}
    walked = 0
    # A frame: the container, its children still to walk, and its shape so far.
    stack: list[tuple[object, Iterator[Any], Shape]] = [(value, _children(value), Shape(2))]
    open_ids = {id(value)}
    while stack:
        node, children, acc = stack[-1]
        for child in children:
            walked += 1
            if check is not None and walked % _CHECK_EVERY == 0:
                check()
            size = _leaf(child)
            if size is not None:
                sub = Shape(size)
            elif id(child) in done:
                sub = done[id(child)]
            elif id(child) in open_ids:
                sub = Shape(5)  # a value inside itself prints as [...]
            else:
                if len(stack) >= MAX_DEPTH:
                    raise TooBig(f"it nests values more than {MAX_DEPTH} deep")
                stack.append((child, _children(child), Shape(2)))
                open_ids.add(id(child))
                break
            _add(acc, sub, limit)
        else:
            stack.pop()
            open_ids.discard(id(node))
            done[id(node)] = acc
            if stack:
                _add(stack[-1][2], acc, limit)
    return done[id(value)]


def _add(parent: Shape, child: Shape, limit: int) -> None:
    parent.text += child.text + 2
    parent.values += child.values + 1
    parent.depths += child.depths + child.values + 1  # one level deeper inside the parent
    if parent.text > limit:
        raise TooBig(f"it builds a value longer than the limit of {limit:,} characters as text")


def text_size(value: object, limit: int, check: Callable[[], None] | None = None) -> int:
    return shape(value, limit, check).text


# ---- formats -----------------------------------------------------------------------------

_PERCENT = re.compile(
    r"%(?:\((?P<key>[^)]*)\))?[-#0 +]*(?P<width>\*|\d+)?(?:\.(?P<prec>\*|\d*))?[hlL]?(?P<conv>.)",
    re.S,
)
_FLOAT_CONVERSIONS = frozenset("eEfFgG")
_DIGITS = re.compile(r"\d+")


def _number(text: str) -> int:
    """A width or precision written in a format; a longer one than any machine takes
    counts as past every limit."""
    return int(text) if len(text) < 19 else 10**18


def _value_size(value: object, conversion: str, limit: int) -> int:
    if conversion in _FLOAT_CONVERSIONS and isinstance(value, int | float):
        return 330  # the integer part of the largest float, in fixed notation
    if conversion in "diuoxX" and isinstance(value, float):
        return 330
    return text_size(value, limit)


def percent_size(fmt: str, values: object, limit: int) -> int:
    """An upper bound of ``len(fmt % values)``."""
    if isinstance(values, tuple):
        positional: Iterator[Any] = iter(values)
    else:
        positional = iter((values,))
    mapping = values if isinstance(values, Mapping) else {}
    total = len(fmt)
    for directive in _PERCENT.finditer(fmt):
        conversion = directive["conv"]
        if conversion == "%":
            continue
        sizes = []
        for part in ("width", "prec"):
            written = directive[part]
            if written == "*":
                given = next(positional, 0)
                sizes.append(abs(given) if is_int(given) else 0)
            elif written:
                sizes.append(_number(written))
        key = directive["key"]
        value = mapping.get(key) if key is not None else next(positional, None)
        sizes.append(_value_size(value, conversion, limit))
        total += sum(sizes)
        if total > limit:
            break
    return total


def _field_value(
    name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any], auto: list[int]
) -> Any:
    """The argument a ``str.format`` field names (before any ``.attr`` or ``[key]``)."""
    first = re.split(r"[.\[]", name, maxsplit=1)[0]
    if first == "":
        index, auto[0] = auto[0], auto[0] + 1
        return args[index] if index < len(args) else None
    if first.isdigit():
        index = _number(first)
        return args[index] if index < len(args) else None
    return kwargs.get(first)


def format_size(fmt: str, args: tuple[Any, ...], kwargs: Mapping[str, Any], limit: int) -> int:
    """An upper bound of ``len(fmt.format(*args, **kwargs))``; a format that Python
    would refuse counts as its own length (the call then fails as it would anyway)."""
    total = 0
    auto = [0]
    try:
        for literal, name, spec, conversion in string.Formatter().parse(fmt):
            total += len(literal)
            if name is None:
                continue
            value = _field_value(name, args, kwargs, auto)
            size = text_size(value, limit)
            if name.strip("0123456789") != "":  # .attr or [key]: part of it, or a method
                size = max(size, _OTHER)
            if conversion is None and isinstance(value, int | float):
                size = max(size, 330)
            widths = [_number(d) for d in _DIGITS.findall(spec or "")]
            for inner in re.findall(r"\{([^{}]*)\}", spec or ""):
                given = _field_value(inner.split("!")[0].split(":")[0], args, kwargs, auto)
                if is_int(given):
                    widths.append(abs(given))
                elif isinstance(given, str):
                    widths.extend(_number(d) for d in _DIGITS.findall(given))
            total += size + sum(widths)
            if total > limit:
                break
    except ValueError:
        return len(fmt)
    return total
