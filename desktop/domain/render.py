"""Turn a rubric and a pair into the chat messages sent to the judge.

Pair data only ever reaches a template as variables, so a response containing ``{{ }}``,
``{%`` or a fake closing tag arrives byte for byte. Templates run in Jinja's sandbox with
StrictUndefined: a user rubric is someone else's text and must not reach Python internals.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, meta
from jinja2.sandbox import SandboxedEnvironment, SecurityError

from desktop.domain.errors import RubricError
from desktop.domain.pairs import OPTIONAL_FIELDS, Pair
from desktop.domain.rubric import Rubric

#: The only names a rubric template may use.
TEMPLATE_VARIABLES = ("instruction", "response_a", "response_b", "reference", "source", "fewshot")

#: Default cap on one rendered prompt, in characters; a pasted novel is a mistake, not a prompt.
MAX_CHARS = 200_000

_MAX_REPEAT = 1_000_000  # longest string or list a template may build with * or **


class _Environment(SandboxedEnvironment):
    """The sandbox, plus a cap on ``'x' * 10**9``-style memory bombs in user templates."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator_name: str, left: Any, right: Any) -> Any:
        if operator_name == "**":
            if isinstance(right, int) and abs(right) > 100:
                raise SecurityError("exponent too large in a rubric template")
            return operator.pow(left, right)
        for seq, count in ((left, right), (right, left)):
            sized = isinstance(seq, str | list | tuple) and isinstance(count, int)
            if sized and len(seq) * count > _MAX_REPEAT:
                raise SecurityError("repeated text too long in a rubric template")
        return operator.mul(left, right)


ENV = _Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
_ALLOWED_NAMES = frozenset(TEMPLATE_VARIABLES) | frozenset(ENV.globals)


def check_template(source: str) -> None:
    """Raise RubricError (one line, no file name) if a template won't compile or uses an
    unknown variable; callers add where the template came from."""
    try:
        ast = ENV.parse(source)
    except TemplateSyntaxError as exc:
        detail = " ".join((exc.message or "").split())
        raise RubricError(f"template syntax error on line {exc.lineno}: {detail}") from None
    unknown = sorted(meta.find_undeclared_variables(ast) - _ALLOWED_NAMES)
    if unknown:
        raise RubricError(
            f"unknown template variable {unknown[0]!r} (known: {', '.join(TEMPLATE_VARIABLES)})"
        )


def used_variables(source: str) -> frozenset[str]:
    """The template variables a (valid) template reads."""
    return frozenset(meta.find_undeclared_variables(ENV.parse(source)))


def check_rubric(rubric: Rubric) -> None:
    """Check every message template of a rubric; the error names the message."""
    for i, message in enumerate(rubric.messages):
        try:
            check_template(message.content)
        except RubricError as exc:
            raise RubricError(f"rubric {rubric.name}: message {i + 1}: {exc}") from None


@functools.lru_cache(maxsize=64)
def _compiled(rubric: Rubric) -> tuple[tuple[str, Callable[..., Any]], ...]:
    """Compiled templates for a rubric, built once. Keyed by the rubric's value, which
    determines its content_hash, so an equal rubric loaded again reuses the compile."""
    check_rubric(rubric)
    return tuple((m.role, _renderer(ENV.from_string(m.content))) for m in rubric.messages)


def _renderer(template: Template) -> Callable[[dict[str, str]], str]:
    root = template.root_render_func
    new_context = template.new_context

    def run(variables: dict[str, str]) -> str:
        return "".join(root(new_context(variables)))

    return run


def variables_for(rubric: Rubric, pair: Pair, *, fewshot: bool = True) -> dict[str, str]:
    """The template variables for one pair; a field the rubric requires must be present."""
    for name in rubric.requires:
        value = getattr(pair, name)
        if value is None or not value.strip():
            raise RubricError(f"{rubric.name} needs a {name}, but {pair.label} has none")
    variables = {
        "instruction": pair.instruction,
        "response_a": pair.response_a,
        "response_b": pair.response_b,
        "fewshot": (rubric.fewshot or "") if fewshot else "",
    }
    for name in OPTIONAL_FIELDS:
        variables[name] = getattr(pair, name) or ""
    return variables


def render(
    rubric: Rubric, pair: Pair, *, fewshot: bool = True, max_chars: int = MAX_CHARS
) -> list[dict[str, str]]:
    """The judge request's messages for one pair, as ``{"role", "content"}`` dicts."""
    compiled = _compiled(rubric)
    variables = variables_for(rubric, pair, fewshot=fewshot)
    messages = []
    size = 0
    for i, (role, run) in enumerate(compiled):
        try:
            content = run(variables)
        except Exception as exc:  # sandbox, StrictUndefined, a filter's own error: one line
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise RubricError(
                f"{rubric.name}: message {i + 1} cannot render for {pair.label}: {detail}"
            ) from None
        size += len(content)
        messages.append({"role": role, "content": content})
    if size > max_chars:
        raise RubricError(
            f"{rubric.name}: the prompt for {pair.label} is {size:,} characters,"
            f" above the limit of {max_chars:,}"
        )
    return messages
