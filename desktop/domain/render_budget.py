"""What rendering one prompt may cost: a time limit and a limit on the text produced, both
enforced while the template runs, not after.

A user rubric is someone else's code. A loop with an empty body emits nothing, so counting
the output cannot stop ``{% for i in range(100000) %}{% for j in range(100000) %}`` — every
loop's iterable is therefore wrapped (at parse time) so that it checks the clock as it
goes, and so does every call and filter. Every piece of text a template produces, in the
prompt or inside a macro or ``{% set %}`` block, is counted as it is produced (through the
code generator), so a loop that emits text stops at the limit instead of growing memory
until the process dies. The few operations that multiply text in one step (``join``,
``replace``, ``indent``, ``wordwrap``, ``expandtabs``, a wide format width, a size given as
a number) are refused before they run when their result would pass the limit.

The same checks ask ``stop()``, so a cancelled job (Ctrl+C) leaves a render at once.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from jinja2 import nodes
from jinja2.compiler import CodeGenerator
from jinja2.sandbox import SecurityError

from desktop.domain.errors import RubricError

#: Seconds one prompt may take to render; a built-in rubric takes well under a millisecond.
RENDER_SECONDS = 1.0
#: Text a template may produce while rendering one prompt, as a multiple of the prompt's
#: own limit (macros and set blocks produce text that is then output again).
PRODUCED_FACTOR = 4
LOOP_FILTER = "_budget_loop"
_TEXT = "text of {:,} characters"
_WIDTH = "a width of {:,} characters"
_CHECK_EVERY = 64  # loop iterations between two looks at the clock
# A format field a million characters wide (or precise), in %-style or {}-style.
_WIDE_FIELD = re.compile(r"%[-#0 +]*\d*\.?\d{7,}|\{[^{}]*:[^{}]*\d{7,}[^{}]*\}")
_WIDTH_FROM_VALUE = re.compile(r"%[-#0 +]*\*|%[-#0 +]*\d*\.\*|\{[^{}]*:[^{}]*\{")


class RenderTooSlow(RubricError):
    """A template that takes longer than its budget: it would on every pair."""


class RenderStopped(Exception):
    """The job was cancelled while a prompt was rendering; not a fault of the rubric."""


@dataclass
class Budget:
    deadline: float
    seconds: float
    max_produced: int
    stop: Callable[[], bool] | None
    produced: int = 0

    def check(self) -> None:
        if self.stop is not None and self.stop():
            raise RenderStopped
        if time.monotonic() > self.deadline:
            raise RenderTooSlow(f"takes longer than {self.seconds:g} s to render")

    def size(self, length: int, what: str = "text of {:,} characters") -> None:
        """Refuse ``what`` (a phrase around the length) past the limit of produced text."""
        if length > self.max_produced:
            raise SecurityError(
                f"it builds {what.format(length)}, above the limit of {self.max_produced:,}"
            )


_CURRENT: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("render_budget")


@contextlib.contextmanager
def budget(
    max_chars: int, *, seconds: float = RENDER_SECONDS, stop: Callable[[], bool] | None = None
) -> Iterator[Budget]:
    """Render under a budget (on this thread or task only)."""
    current = Budget(time.monotonic() + seconds, seconds, max_chars * PRODUCED_FACTOR, stop)
    token = _CURRENT.set(current)
    try:
        yield current
    finally:
        _CURRENT.reset(token)


def under_budget() -> bool:
    return _CURRENT.get(None) is not None


def _active() -> Budget:
    current = _CURRENT.get(None)
    if current is None:  # every render runs under a budget: this is a programming error
        raise RuntimeError("a rubric template ran outside render()")
    return current


def count_text(text: str) -> str:
    """Called by generated template code for every piece of text it produces. Only the
    size: the time is looked at by loops, calls and filters, the only ways to spend it."""
    current = _active()
    current.produced += len(text)
    if current.produced > current.max_produced:
        current.size(current.produced)
    return text


def checked_loop(iterable: Iterable[Any]) -> Iterator[Any]:
    """The iterable of a template's ``for`` loop, looking at the clock as it goes."""
    current = _active()
    current.check()
    for n, item in enumerate(iterable, start=1):
        if n % _CHECK_EVERY == 0:
            current.check()
        yield item


class BudgetCodeGenerator(CodeGenerator):
    """Jinja's code generator, with every piece of output passed through ``count_text``."""

    def _output_const_repr(self, group: Iterable[Any]) -> str:
        return f"environment.count_text({super()._output_const_repr(group)})"

    def _output_child_pre(self, node: nodes.Expr, frame: Any, finalize: Any) -> None:
        self.write("environment.count_text(")
        super()._output_child_pre(node, frame, finalize)

    def _output_child_post(self, node: nodes.Expr, frame: Any, finalize: Any) -> None:
        super()._output_child_post(node, frame, finalize)
        self.write(")")


def wrap_loops(template: nodes.Template) -> nodes.Template:
    """Make every ``for`` loop iterate through ``checked_loop``."""
    for loop in list(template.find_all(nodes.For)):
        loop.iter = nodes.Filter(loop.iter, LOOP_FILTER, [], [], None, None, lineno=loop.lineno)
    return template


# ---- operations that multiply text in one step: refused before they run --------------


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str) else len(str(value))


def _join_size(items: list[Any], separator: Any) -> int:
    return sum(map(_length, items)) + _length(separator) * max(0, len(items) - 1)


def _replace_size(text: str, old: Any, new: Any, count: Any = None) -> int:
    old, new = str(old), str(new)
    hits = len(text) + 1 if old == "" else text.count(old)
    if isinstance(count, int) and count >= 0:
        hits = min(hits, count)
    return len(text) + hits * max(0, len(new) - len(old))


def _numbers(args: Iterable[Any]) -> Iterator[int]:
    return (a for a in args if isinstance(a, int) and not isinstance(a, bool))


def check_sizes(name: str, value: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a filter or string method call whose result would pass the budget; ``value``
    is the text it works on, ``args`` and ``kwargs`` the rest."""
    current = _active()
    current.check()
    text = value if isinstance(value, str) else None
    if name in ("format", "format_map"):  # the numbers are values to show, not sizes
        if text is not None:
            checked_format(text, (*args, *kwargs.values()))
        return
    for number in _numbers([*args, *kwargs.values()]):
        current.size(abs(number), _WIDTH)
    if name == "replace" and text is not None and args:
        current.size(_replace_size(text, *args[:3]))
    elif name == "indent" and text is not None:
        prefix = kwargs.get("width", args[0] if args else 4)
        width = len(str(prefix)) if isinstance(prefix, str) else 0
        current.size(len(text) + (text.count("\n") + 1) * width)
    elif name == "wordwrap" and text is not None:
        wrap = kwargs.get("wrapstring", args[2] if len(args) > 2 else None) or "\n"
        width = kwargs.get("width", args[0] if args else 79)
        breaks = len(text) // max(1, width if isinstance(width, int) else 1) + text.count("\n")
        current.size(len(text) + breaks * len(str(wrap)))
    elif name == "expandtabs" and text is not None:
        size = args[0] if args else kwargs.get("tabsize", 8)
        tabs = text.count("\t") * (size if isinstance(size, int) else 8)
        current.size(len(text) + tabs)


def checked_join(items: Iterable[Any], separator: Any) -> list[Any]:
    """The items of a join, once its result is known to fit."""
    listed = list(checked_loop(items))
    _active().size(_join_size(listed, separator))
    return listed


def checked_result(value: Any) -> Any:
    """A call's result: text or a list past the budget is refused."""
    if isinstance(value, str | list | tuple | dict):
        _active().size(len(value), _TEXT if isinstance(value, str) else "a list of {:,} items")
    return value


def guarded_filter(name: str, run: Callable[..., Any]) -> Callable[..., Any]:
    """A filter that checks the budget before it runs and its result after."""
    passed = getattr(run, "jinja_pass_arg", None)
    skip = 1 if passed is not None else 0  # the context, eval context or environment

    @functools.wraps(run)
    def filtered(*args: Any, **kwargs: Any) -> Any:
        value, rest = (args[skip], args[skip + 1 :]) if len(args) > skip else (None, ())
        if name == "join" and value is not None:
            separator = kwargs.get("d", rest[0] if rest else "")
            args = (*args[:skip], checked_join(value, separator), *rest)
            rest = ()
        check_sizes(name, value, rest, kwargs)
        return checked_result(run(*args, **kwargs))

    return filtered


def method_name(obj: Any) -> tuple[Any, str]:
    """The object a bound method belongs to, and the method's name."""
    target = getattr(obj, "__wrapped__", obj)
    return getattr(target, "__self__", None), getattr(target, "__name__", "")


def checked_call(call: Callable[[], Any], obj: Any, args: tuple[Any, ...], kwargs: dict) -> Any:
    """A call from template code: the budget first (and a string method's sizes), the
    result after."""
    owner, name = method_name(obj)
    if isinstance(owner, str):
        if name == "join" and args:
            joined = checked_join(args[0], owner)
            return checked_result(obj(joined))
        check_sizes(name, owner, args, kwargs)
    else:
        _active().check()
    return checked_result(call())


def checked_format(text: str, values: Iterable[Any]) -> None:
    """``text % values`` or ``text.format(...)``: a field a million characters wide, or a
    width taken from a number (``%*s``, ``{:{w}}``) past the budget, is refused."""
    if _WIDE_FIELD.search(text):
        raise SecurityError("a format field too wide")
    if _WIDTH_FROM_VALUE.search(text):
        for number in _numbers(values):
            _active().size(abs(number), _WIDTH)
