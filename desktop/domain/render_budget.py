"""What rendering one prompt may cost: time, the text produced and the memory built, all
enforced while the template runs, not after.

A user rubric is someone else's code. A loop with an empty body emits nothing, so counting
the output cannot stop ``{% for i in range(100000) %}{% for j in range(100000) %}`` — every
loop's iterable is therefore wrapped (at parse time) so that it checks the clock as it
goes, and so does every call, filter and operator. Every piece of text a template produces,
in the prompt or inside a macro or ``{% set %}`` block, is counted as it is produced
(through the code generator). Every value it builds (an operator's, a call's, a filter's,
a literal's, a slice's) is charged to a memory allowance as it is made, so no loop can
grow memory until the process dies.

One step of Python's C code cannot be stopped half-way by the clock or by Ctrl+C, so every
step that could be big is measured before it runs (``render_sizes``, ``render_guards``):
an integer's bits, a repeat's or a join's or a format's length, the text a nested value
prints as (a list shared many times inside another prints many times over), how deep it
nests (Python compares, hashes and prints nested values recursively in C). Past the limit
the step is refused, and never started.

The same checks ask ``stop()``, so a cancelled job (Ctrl+C) leaves a render at once.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from jinja2 import nodes
from jinja2.compiler import CodeGenerator, operators, optimizeconst

from desktop.domain.errors import RubricError
from desktop.domain.render_sizes import TooBig, shape

#: Seconds one prompt may take to render; a built-in rubric takes well under a millisecond.
RENDER_SECONDS = 1.0
#: Text a template may produce while rendering one prompt, as a multiple of the prompt's
#: own limit (macros and set blocks produce text that is then output again). No one value
#: it builds may be longer either (characters of text, items of a list).
PRODUCED_FACTOR = 4
#: Memory the values a template builds may take while rendering one prompt, added up as
#: each is made (whether it is kept or not): a few hundred times what a prompt needs.
BUILT_BYTES = 64 * 2**20
LOOP_FILTER = "_budget_loop"
_CHECK_EVERY = 64  # loop iterations or operations between two looks at the clock


class RenderOverBudget(RubricError):
    """A template past its budget of time or memory on a real pair: it would be on every
    pair, so a job stops rather than spend the budget again on each."""


class RenderTooSlow(RenderOverBudget):
    """A template that takes longer than its budget."""


class RenderTooBig(RenderOverBudget):
    """A template that would build more than its budget allows."""


class RenderStopped(Exception):
    """The job was cancelled while a prompt was rendering; not a fault of the rubric."""


@dataclass
class Budget:
    deadline: float
    seconds: float
    max_produced: int
    stop: Callable[[], bool] | None
    produced: int = 0
    built: int = 0
    ticks: int = 0

    def tick(self) -> None:
        """One more operation: the clock is looked at every ``_CHECK_EVERY`` of them (each
        is bounded before it runs, so between two looks little time can pass)."""
        self.ticks += 1
        if not self.ticks % _CHECK_EVERY:
            self.check()

    def check(self) -> None:
        if self.stop is not None and self.stop():
            raise RenderStopped
        if time.monotonic() > self.deadline:
            raise RenderTooSlow(f"takes longer than {self.seconds:g} s to render")

    def size(self, length: int, what: str = "text of {:,} characters") -> None:
        """Refuse ``what`` (a phrase around the length) past the limit of one value."""
        if length > self.max_produced:
            raise TooBig(
                f"it builds {what.format(length)}, above the limit of {self.max_produced:,}"
            )

    def measure(self, value: object, limit: int | None = None) -> int:
        """The text ``value`` prints as, refused past ``limit`` (one value's) before it is
        built; deep or widely shared values are walked with the clock checked."""
        return shape(value, self.max_produced if limit is None else limit, self.check).text

    def charge(self, value: object) -> None:
        self.add(sys.getsizeof(value))

    def add(self, size: int) -> None:
        """``size`` more bytes built (a list grown in place, a value made)."""
        self.built += max(0, size)
        if self.built > BUILT_BYTES:
            raise TooBig(
                f"the values it builds take more than {BUILT_BYTES // 2**20} MB in all,"
                " above the limit (text or a list grown in a loop?)"
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


def active() -> Budget:
    current = _CURRENT.get(None)
    if current is None:  # every render runs under a budget: this is a programming error
        raise RuntimeError("a rubric template ran outside render()")
    return current


# ---- called by the generated template code --------------------------------------------


def count_text(text: str) -> str:
    """Every piece of text the template produces, after it is made (``measured`` bounded
    it before). Only the size: the time is looked at by loops, calls and operators."""
    current = active()
    current.produced += len(text)
    if current.produced > current.max_produced:
        current.size(current.produced)
    return text


def measured(value: Any) -> Any:
    """A value about to be output: its text must fit in what is left of the budget."""
    current = active()
    left = current.max_produced - current.produced
    if type(value) is str:
        if len(value) > left:
            current.size(current.produced + len(value))
    else:
        current.measure(value, left)
    return value


def compared(value: Any) -> Any:
    """A value about to be compared or hashed (``==``, ``in``, a dict key), which Python
    does recursively in C: its size and depth must be within the budget."""
    if type(value) not in (str, int, float, bool):
        active().measure(value)
    return value


def charged(value: Any) -> Any:
    """A value just built (a literal, a slice): its memory is charged."""
    active().charge(value)
    return value


def checked_concat(join: Callable[[Iterable[Any]], str], items: tuple[Any, ...]) -> str:
    """``a ~ b ~ c``: the joined text's length is known before it is built."""
    current = active()
    current.tick()
    current.size(sum(current.measure(item) for item in items))
    text = join(items)
    current.charge(text)
    return text


def checked_loop(iterable: Iterable[Any]) -> Iterator[Any]:
    """The iterable of a template's ``for`` loop, looking at the clock as it goes."""
    current = active()
    current.check()
    for n, item in enumerate(iterable, start=1):
        if n % _CHECK_EVERY == 0:
            current.check()
        yield item


class BudgetCodeGenerator(CodeGenerator):
    """Jinja's code generator, with every piece of output counted and measured, every
    ``~`` measured, every compared value and dict key measured, and every literal and
    slice charged."""

    def _output_const_repr(self, group: Iterable[Any]) -> str:
        return f"environment.count_text({super()._output_const_repr(group)})"

    def _output_child_pre(self, node: nodes.Expr, frame: Any, finalize: Any) -> None:
        self.write("environment.count_text(")
        super()._output_child_pre(node, frame, finalize)
        self.write("environment.measured(")

    def _output_child_post(self, node: nodes.Expr, frame: Any, finalize: Any) -> None:
        self.write(")")
        super()._output_child_post(node, frame, finalize)
        self.write(")")

    @optimizeconst
    def visit_Concat(self, node: nodes.Concat, frame: Any) -> None:
        self.write("environment.checked_concat(")
        if frame.eval_ctx.volatile:
            self.write("(markup_join if context.eval_ctx.volatile else str_join), (")
        else:
            self.write("markup_join, (" if frame.eval_ctx.autoescape else "str_join, (")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")

    @optimizeconst
    def visit_Compare(self, node: nodes.Compare, frame: Any) -> None:
        self.write("(environment.compared(")
        self.visit(node.expr, frame)
        self.write(")")
        for op in node.ops:
            self.visit(op, frame)
        self.write(")")

    def visit_Operand(self, node: nodes.Operand, frame: Any) -> None:
        self.write(f" {operators[node.op]} environment.compared(")
        self.visit(node.expr, frame)
        self.write(")")

    def visit_Dict(self, node: nodes.Dict, frame: Any) -> None:
        self.write("environment.charged({")
        for idx, item in enumerate(node.items):
            if idx:
                self.write(", ")
            self.write("environment.compared(")
            self.visit(item.key, frame)
            self.write("): ")
            self.visit(item.value, frame)
        self.write("})")

    def visit_List(self, node: nodes.List, frame: Any) -> None:
        self.write("environment.charged(")
        super().visit_List(node, frame)
        self.write(")")

    def visit_Tuple(self, node: nodes.Tuple, frame: Any) -> None:
        if node.ctx != "load":  # a target of {% for a, b in ... %} or {% set a, b = ... %}
            super().visit_Tuple(node, frame)
            return
        self.write("environment.charged(")
        super().visit_Tuple(node, frame)
        self.write(")")

    @optimizeconst
    def visit_Getitem(self, node: nodes.Getitem, frame: Any) -> None:
        if not isinstance(node.arg, nodes.Slice):  # environment.getitem measures the key
            super().visit_Getitem(node, frame)
            return
        self.write("environment.charged(")  # a slice copies
        super().visit_Getitem(node, frame)
        self.write(")")


def wrap_loops(template: nodes.Template) -> nodes.Template:
    """Make every ``for`` loop iterate through ``checked_loop``."""
    for loop in list(template.find_all(nodes.For)):
        loop.iter = nodes.Filter(loop.iter, LOOP_FILTER, [], [], None, None, lineno=loop.lineno)
    return template
