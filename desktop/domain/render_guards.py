"""The checks each operation of a template passes before it runs, and the charge for what
it built after: operators, calls (methods, macros, globals), filters and tests.

Before: the budget's clock; every value handed to the operation measured (Python prints,
compares and hashes it in C); and for the operations that make something bigger than what
they are given (a repeat, a product, a width, a join, a format, an indent, ``tojson``,
``sum``), the size of the result worked out and refused past the limit. After: the result
charged to the memory allowance, and refused if it is past a value's limit anyway.
"""

from __future__ import annotations

import functools
import operator
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from jinja2.utils import generate_lorem_ipsum

from desktop.domain.render_budget import Budget, active, checked_loop
from desktop.domain.render_sizes import (
    check_int,
    format_size,
    is_int,
    percent_size,
    shape,
)

_TEXT = "text of {:,} characters"
_ITEMS = "a list of {:,} items"
_WIDTH = "a width of {:,} characters"
_SEQUENCES = (str, bytes, list, tuple)
# Upper bounds of how much longer a filter's text is than its input's: escaping (&quot;),
# JSON escapes (\u003c), links around words; checked against this many times the limit
# before it runs, and the result against the limit itself.
_GROWTH = {"escape": 6, "e": 6, "forceescape": 6, "xmlattr": 6, "tojson": 6, "urlize": 20}
_STEP_FACTOR = 8
# Binary operators a template may use; every one is checked (none is folded at compile time).
BINOPS = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
}


def _int_bits(op: str, left: int, right: int) -> int:
    a, b = abs(left).bit_length(), abs(right).bit_length()
    if op in ("+", "-"):
        return max(a, b) + 1
    if op == "*":
        return a + b
    if op == "**":
        return 1 if right < 0 or abs(left) <= 1 else a * right
    return a  # // and %: no bigger than the left side (or, for %, the right)


def checked_binop(op: str, left: Any, right: Any) -> Any:
    """``left op right`` once its result is known to fit: an integer's bits, a repeated
    or joined sequence's length, a ``%`` format's text."""
    current = active()
    current.tick()
    if type(left) is int and type(right) is int:  # the common case: small numbers
        bits = _int_bits(op, left, right)
        if bits <= 64:
            return BINOPS[op](left, right)
        check_int(bits)
    elif op == "%" and isinstance(left, str):
        current.size(percent_size(left, right, current.max_produced))
    elif op == "+" and isinstance(left, _SEQUENCES) and isinstance(right, _SEQUENCES):
        current.size(len(left) + len(right), _TEXT if isinstance(left, str) else _ITEMS)
    elif op == "*":
        for seq, count in ((left, right), (right, left)):
            if isinstance(seq, _SEQUENCES) and is_int(count):
                current.size(len(seq) * max(count, 0), _TEXT if isinstance(seq, str) else _ITEMS)
    return checked_result(BINOPS[op](left, right))


def checked_result(value: Any, current: Budget | None = None) -> Any:
    """What an operation built: past a value's limit it is refused; its memory is charged."""
    current = current or active()
    kind = type(value)
    if kind is str or isinstance(value, str | bytes):
        if len(value) > current.max_produced:
            current.size(len(value))
    elif isinstance(value, list | tuple | dict | set):
        current.size(len(value), _ITEMS)
    elif kind is int:
        check_int(value.bit_length())
    current.add(sys.getsizeof(value))
    return value


_PLAIN = frozenset((str, int, float, bool, type(None)))  # measured in O(1)


def _measure_all(current: Budget, args: Iterable[Any], kwargs: Mapping[str, Any]) -> None:
    for value in (*args, *kwargs.values()):
        if type(value) not in _PLAIN:
            current.measure(value)


def _widths(current: Budget, args: Iterable[Any], kwargs: Mapping[str, Any]) -> None:
    """Any number given to a method or filter may be a width or a count: none may pass
    the limit (``'x'.center(10**9)``, ``(1).to_bytes(10**9)``, ``batch(10**9, 'x')``)."""
    for number in (*args, *kwargs.values()):
        if is_int(number):
            current.size(abs(number), _WIDTH)


def _join_size(current: Budget, items: list[Any], separator: Any) -> int:
    sizes = sum(current.measure(item) for item in items)
    return sizes + current.measure(separator) * max(0, len(items) - 1)


def checked_join(items: Iterable[Any], separator: Any) -> list[Any]:
    """The items of a join, once its result is known to fit."""
    current = active()
    listed = list(checked_loop(items))
    current.size(_join_size(current, listed, separator))
    return listed


def _replace_size(text: str, old: Any, new: Any, count: Any = None) -> int:
    old, new = str(old), str(new)
    hits = len(text) + 1 if old == "" else text.count(old)
    if is_int(count) and count >= 0:
        hits = min(hits, count)
    return len(text) + hits * max(0, len(new) - len(old))


def _text_sizes(
    current: Budget, name: str, text: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """The length of what a string method or a filter on text would build."""
    lines = text.count("\n") + 1
    if name == "replace" and args:
        current.size(_replace_size(text, *args[:3]))
    elif name == "indent":
        prefix = kwargs.get("width", args[0] if args else 4)
        width = len(prefix) if isinstance(prefix, str) else prefix if is_int(prefix) else 0
        current.size(len(text) + lines * width)
    elif name == "wordwrap":
        wrap = kwargs.get("wrapstring", args[2] if len(args) > 2 else None) or "\n"
        width = kwargs.get("width", args[0] if args else 79)
        breaks = len(text) // max(1, width if is_int(width) else 1) + lines
        current.size(len(text) + breaks * len(str(wrap)))
    elif name == "expandtabs":
        size = args[0] if args else kwargs.get("tabsize", 8)
        current.size(len(text) + text.count("\t") * (size if is_int(size) else 8))
    elif name == "translate" and args and isinstance(args[0], Mapping | list | tuple | str):
        table = args[0].values() if isinstance(args[0], Mapping) else args[0]
        longest = max((current.measure(v) for v in table), default=1)
        current.size(len(text) * max(1, longest))


def check_sizes(name: str, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a filter or method call whose result would pass the budget; ``value`` is
    what it works on (the string a method belongs to, a filter's input), ``args`` and
    ``kwargs`` the rest."""
    current = active()
    current.tick()
    _measure_all(current, (value,), kwargs)
    _measure_all(current, args, {})
    if name in ("format", "format_map") and isinstance(value, str):
        if name == "format_map":
            current.size(format_size(value, (), args[0] if args else {}, current.max_produced))
        else:  # the format filter is %-style; the method is {}-style
            current.size(format_size(value, args, kwargs, current.max_produced))
        return
    _widths(current, args, kwargs)
    if isinstance(value, str):
        _text_sizes(current, name, value, args, kwargs)
    if name in _GROWTH or name in ("tojson", "pprint"):
        _check_growth(current, name, value, args, kwargs)


def _check_growth(
    current: Budget, name: str, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """Filters whose text is a bounded multiple of their input's, plus indentation."""
    limit = current.max_produced * _STEP_FACTOR
    measured = shape(value, limit, current.check)
    size = measured.text * _GROWTH.get(name, 2)
    if name in ("tojson", "pprint"):
        indent = kwargs.get("indent", args[0] if args else None) if name == "tojson" else 1
        width = len(indent) if isinstance(indent, str) else indent if is_int(indent) else 0
        size += measured.values * 2 + measured.depths * width
    if size > limit:
        current.size(size)


def _format_filter_size(
    current: Budget, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    if isinstance(value, str):
        current.size(percent_size(value, kwargs or args, current.max_produced))


def _sum_items(current: Budget, items: list[Any], start: Any) -> None:
    """``sum`` of lists copies the growing total at every step, in C: its length and the
    copying are known before it runs."""
    if not isinstance(start, list | tuple):
        return
    total, work = len(start), 0
    for item in items:
        total += len(item) if isinstance(item, _SEQUENCES) else 1
        work += total
    current.size(total, _ITEMS)
    current.size(work // _STEP_FACTOR, "copies of {:,} items (summing lists)")


# Filters with a size of their own to work out; the others only measure what they are given.
_SIZED_FILTERS = frozenset(
    ("join", "sum", "format", "replace", "indent", "wordwrap", "tojson", "pprint", *_GROWTH)
)


def guarded_filter(name: str, run: Callable[..., Any]) -> Callable[..., Any]:
    """A filter that checks the budget before it runs and its result after."""
    passed = getattr(run, "jinja_pass_arg", None)
    skip = 1 if passed is not None else 0  # the context, eval context or environment
    if name not in _SIZED_FILTERS:

        @functools.wraps(run)
        def plain(*args: Any, **kwargs: Any) -> Any:
            current = active()
            current.tick()
            for n, value in enumerate(args[skip:]):
                if type(value) not in _PLAIN:
                    current.measure(value)
                elif n and type(value) is int and abs(value) > current.max_produced:
                    current.size(abs(value), _WIDTH)  # a width or a count (batch, center)
            if kwargs:
                _measure_all(current, (), kwargs)
                _widths(current, (), kwargs)
            return checked_result(run(*args, **kwargs), current)

        return plain

    @functools.wraps(run)
    def filtered(*args: Any, **kwargs: Any) -> Any:
        value, rest = (args[skip], args[skip + 1 :]) if len(args) > skip else (None, ())
        current = active()
        if name == "join" and value is not None:
            separator = kwargs.get("d", rest[0] if rest else "")
            args = (*args[:skip], checked_join(value, separator), *rest)
            rest = ()
        elif name == "sum" and value is not None and "attribute" not in kwargs:
            value = list(checked_loop(value))
            _sum_items(current, value, kwargs.get("start", rest[1] if len(rest) > 1 else 0))
            args = (*args[:skip], value, *rest)
        if name == "format":
            current.tick()
            _measure_all(current, (value, *rest), kwargs)
            _format_filter_size(current, value, rest, kwargs)
        else:
            check_sizes(name, value, rest, kwargs)
        return checked_result(run(*args, **kwargs), current)

    return filtered


def guarded_test(run: Callable[..., Any]) -> Callable[..., Any]:
    """A test (``is divisibleby``, ``is in``): its values measured before it compares."""

    @functools.wraps(run)
    def tested(*args: Any, **kwargs: Any) -> Any:
        current = active()
        current.tick()
        _measure_all(current, args, kwargs)
        return run(*args, **kwargs)

    return tested


def method_name(obj: Any) -> tuple[Any, str]:
    """The object a bound method belongs to, and the method's name."""
    target = getattr(obj, "__wrapped__", obj)
    return getattr(target, "__self__", None), getattr(target, "__name__", "")


_GROWS = (list, dict, set)  # mutable containers a method can grow
_COMPARES = frozenset(("sort", "index", "count", "remove"))


def checked_call(
    call: Callable[[], Any], obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    """A call from template code: the budget first (its arguments measured, a method's
    sizes), the result after."""
    current = active()
    owner, name = method_name(obj)
    if isinstance(owner, str) and name == "join" and args:
        joined = checked_join(args[0], owner)
        return checked_result(obj(joined))
    if isinstance(owner, str | bytes | int):
        check_sizes(name, owner, args, kwargs)
    else:
        current.tick()
        _measure_all(current, args, kwargs)
        if obj is generate_lorem_ipsum:
            _lipsum_size(current, args, kwargs)
    grows = isinstance(owner, _GROWS)
    if grows:
        if name in _COMPARES:
            current.measure(owner)
        if name == "extend" and args and hasattr(args[0], "__len__"):
            current.size(len(owner) + len(args[0]), _ITEMS)
        before = owner.__sizeof__()
    result = checked_result(call())
    if grows:
        current.size(len(owner), _ITEMS)
        current.add(owner.__sizeof__() - before)
    return result


def _lipsum_size(current: Budget, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """``lipsum(n, html, min, max)``: n paragraphs of up to ``max`` words."""
    names = ("n", "html", "min", "max")
    given = {**dict(zip(names, args, strict=False)), **kwargs}
    n, most = given.get("n", 5), given.get("max", 100)
    if is_int(n) and is_int(most):
        current.size(max(n, 0) * max(most, 0) * 12)
