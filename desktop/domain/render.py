"""Turn a rubric and a pair into the chat messages sent to the judge.

Pair data only ever reaches a template as variables, so a response containing ``{{ }}``,
``{%`` or a fake closing tag arrives byte for byte. Templates run in Jinja's sandbox with
StrictUndefined: a user rubric is someone else's text and must not reach Python internals,
and under a budget of time, produced text and memory (desktop/domain/render_budget.py),
so it cannot spin or fill memory either.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, meta, nodes
from jinja2.sandbox import SandboxedEnvironment

from desktop.domain import render_budget as cost
from desktop.domain import render_guards as guards
from desktop.domain import template_variables
from desktop.domain.conversations import Message
from desktop.domain.errors import RubricError
from desktop.domain.pairs import PairContent
from desktop.domain.render_budget import (
    RENDER_SECONDS,
    RenderOverBudget,
    RenderStopped,
    RenderTooBig,
    RenderTooSlow,
)
from desktop.domain.render_sizes import TooBig
from desktop.domain.rubric import Rubric

__all__ = [
    "RENDER_SECONDS",
    "RenderOverBudget",
    "RenderStopped",
    "RenderTooBig",
    "RenderTooSlow",
    "check_cost",
    "render",
]

#: The only names a rubric template may use (and the per-turn ones, ``question_1`` ...).
TEMPLATE_VARIABLES = template_variables.TEMPLATE_VARIABLES

#: Default cap on one rendered prompt, in characters; a pasted novel is a mistake, not a prompt.
MAX_CHARS = 200_000

_TOO_DEEP = "template nested too deeply (blocks, brackets or operators inside each other)"


class _Template(Template):
    """A template rendered on its own (not through render()) gets the default budget."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        if cost.under_budget():
            return super().render(*args, **kwargs)
        with cost.budget(MAX_CHARS):
            return super().render(*args, **kwargs)


class _Environment(SandboxedEnvironment):
    """The sandbox, plus the render budget: loops, operators, calls, filters, tests,
    comparisons and output all check it as they run, and nothing big is built in one
    step without its size known first (desktop/domain/render_budget.py)."""

    intercepted_binops = frozenset(guards.BINOPS)
    code_generator_class = cost.BudgetCodeGenerator
    template_class = _Template
    # called by the generated code
    count_text = staticmethod(cost.count_text)
    measured = staticmethod(cost.measured)
    compared = staticmethod(cost.compared)
    charged = staticmethod(cost.charged)
    checked_concat = staticmethod(cost.checked_concat)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.filters = {name: guards.guarded_filter(name, f) for name, f in self.filters.items()}
        self.filters[cost.LOOP_FILTER] = cost.checked_loop
        # jinja2 leaves Environment.tests unannotated: its default tests infer as
        # dict[str, function], which mypy does not take for a callable.
        self.tests = {name: guards.guarded_test(f) for name, f in self.tests.items()}  # type: ignore[arg-type]

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        return cost.wrap_loops(super()._parse(source, name, filename))

    def call(self, context: Any, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        return guards.checked_call(
            lambda: super(_Environment, self).call(context, obj, *args, **kwargs),
            obj,
            args,
            kwargs,
        )

    def call_binop(self, context: Any, operator_name: str, left: Any, right: Any) -> Any:
        return guards.checked_binop(operator_name, left, right)

    def getitem(self, obj: Any, argument: Any) -> Any:
        return super().getitem(obj, cost.compared(argument))  # a dict hashes the key


ENV = _Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
_GLOBALS = frozenset(ENV.globals)


def check_template(source: str) -> None:
    """Raise RubricError (one line, no file name) if a template won't compile or uses an
    unknown variable; callers add where the template came from."""
    try:
        ast = ENV.parse(source)
    except TemplateSyntaxError as exc:
        detail = " ".join((exc.message or "").split())
        raise RubricError(f"template syntax error on line {exc.lineno}: {detail}") from None
    except RecursionError:  # Jinja's parser descends once per level of nesting
        raise RubricError(_TOO_DEEP) from None
    names = meta.find_undeclared_variables(ast) - _GLOBALS
    unknown = sorted(n for n in names if not template_variables.is_known(n))
    if unknown:
        raise RubricError(
            f"unknown template variable {unknown[0]!r} (known: {template_variables.KNOWN})"
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
    compiled = []
    for i, message in enumerate(rubric.messages):
        try:
            template = ENV.from_string(message.content)
        except (RecursionError, SyntaxError):  # Python's compiler limits nesting too
            raise RubricError(f"rubric {rubric.name}: message {i + 1}: {_TOO_DEEP}") from None
        compiled.append((message.role, _renderer(template)))
    return tuple(compiled)


def _renderer(template: Template) -> Callable[[dict[str, Any]], str]:
    root = template.root_render_func
    new_context = template.new_context

    def run(variables: dict[str, Any]) -> str:
        return "".join(root(new_context(variables)))

    return run


@functools.lru_cache(maxsize=64)
def _used(rubric: Rubric) -> frozenset[str]:
    return frozenset().union(*(used_variables(m.content) for m in rubric.messages))


def variables_for(rubric: Rubric, pair: PairContent, *, fewshot: bool = True) -> dict[str, Any]:
    """The template variables for one pair (``template_variables``); a field the rubric
    requires, or a turn its templates read, must be present."""
    return template_variables.variables_for(
        rubric.name,
        rubric.requires,
        pair,
        (rubric.fewshot or "") if fewshot else "",
        _used(rubric),
    )


def render(
    rubric: Rubric,
    pair: PairContent,
    *,
    fewshot: bool = True,
    max_chars: int = MAX_CHARS,
    stop: Callable[[], bool] | None = None,
    seconds: float = RENDER_SECONDS,
) -> list[dict[str, str]]:
    """The judge request's messages for one pair, as ``{"role", "content"}`` dicts.

    Raises RenderTooSlow past ``seconds``, RenderTooBig past the budget's sizes (both
    RenderOverBudget), RenderStopped as soon as ``stop()`` is true, and RubricError for
    anything else a template cannot do for this pair."""
    compiled = _compiled(rubric)
    variables = variables_for(rubric, pair, fewshot=fewshot)
    messages = []
    size = 0
    with cost.budget(max_chars, seconds=seconds, stop=stop):
        for i, (role, run) in enumerate(compiled):
            where = f"{rubric.name}: message {i + 1}"
            try:
                content = run(variables)
            except RenderTooSlow as exc:
                raise RenderTooSlow(f"{where} {exc} for {pair.label}") from None
            except RenderStopped:
                raise
            except TooBig as exc:
                raise RenderTooBig(f"{where} cannot render for {pair.label}: {exc}") from None
            except Exception as exc:  # sandbox, StrictUndefined, a filter's error: one line
                detail = " ".join(str(exc).split()) or type(exc).__name__
                raise RubricError(f"{where} cannot render for {pair.label}: {detail}") from None
            size += len(content)
            messages.append({"role": role, "content": content})
    if size > max_chars:
        raise RubricError(
            f"{rubric.name}: the prompt for {pair.label} is {size:,} characters,"
            f" above the limit of {max_chars:,}"
        )
    return messages


#: A pair of ordinary size with every field, to try a new rubric on before it is added.
SAMPLE_PAIR = PairContent(
    instruction="Summarise the text below in three short points, for a busy reader.\n" * 8,
    response_a="- The first point, stated plainly with a number: 42.\n" * 30,
    response_b="1. A numbered point that says much the same thing in other words.\n" * 30,
    reference="A reference answer written by a person, a paragraph long. " * 20,
    source="The source text the pair is about, several paragraphs of it.\n\n" * 40,
    external_id="(a sample of ordinary size)",
)


def sample_trajectory() -> PairContent:
    """Two runs of an agent as long as a trajectory prompt gets: each side's steps (a
    call with its arguments, a result of 1,500 characters, 40 times over) past the
    budget it is clipped to (``trajectory_text.SIDE_CHARS``), so a rubric that reads them
    is tried on the most a trajectory sends."""
    import json

    task = Message("user", SAMPLE_PAIR.instruction)
    tools = [
        {
            "type": "function",
            "function": {
                "name": "search",
                "description": "Search the documents for a query.",
                "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
            },
        }
    ]
    sides = []
    for side, answer in (("a", SAMPLE_PAIR.response_a), ("b", SAMPLE_PAIR.response_b)):
        out = [Message("system", "You are a research assistant with a search tool."), task]
        for k in range(40):
            call_id, found = f"call_{side}{k}", "found. " * 250
            function = {"name": "search", "arguments": json.dumps({"query": f"q {k}"})}
            call = {"id": call_id, "type": "function", "function": function}
            said = {"role": "assistant", "content": None, "tool_calls": [call]}
            result = {"role": "tool", "tool_call_id": call_id, "content": found}
            out.append(Message("assistant", "", json.dumps(said)))
            out.append(Message("tool", found, json.dumps(result)))
        out.append(Message("assistant", answer))
        sides.append(tuple(out))
    return replace(
        SAMPLE_PAIR,
        conversation_a=sides[0],
        conversation_b=sides[1],
        turn=1,
        tools=json.dumps(tools),
    )


def sample_pair(rubric: Rubric) -> PairContent:
    """SAMPLE_PAIR, or for a rubric that reads a later turn (``question_2``), a conversation
    of as many turns, each of SAMPLE_PAIR's size, with a reference answer for each; for
    one that reads an agent's run (``trajectory_a``, ``tools``, ...), two runs clipped at
    the budget a trajectory gets (``sample_trajectory``)."""
    if not template_variables.TRAJECTORY_NAMES.isdisjoint(_used(rubric)):
        return sample_trajectory()
    turns = 1
    for name in _used(rubric):
        match = template_variables.PER_TURN.fullmatch(name)
        if match is not None:
            turns = max(turns, int(match.group(2)))
    if turns == 1:
        return SAMPLE_PAIR
    side_a: list[Message] = []
    side_b: list[Message] = []
    for _ in range(turns):
        asked = Message("user", SAMPLE_PAIR.instruction)
        side_a += [asked, Message("assistant", SAMPLE_PAIR.response_a)]
        side_b += [asked, Message("assistant", SAMPLE_PAIR.response_b)]
    return replace(
        SAMPLE_PAIR,
        conversation_a=tuple(side_a),
        conversation_b=tuple(side_b),
        turn=turns,
        metadata={"reference_turns": [SAMPLE_PAIR.reference] * turns},
    )


def check_cost(rubric: Rubric) -> None:
    """Before a rubric is added: refuse one that cannot render a sample pair of ordinary
    size (``sample_pair``) within its budget (time and text), in one line."""
    try:
        render(rubric, sample_pair(rubric))
    except RubricError as exc:
        raise RubricError(f"{exc}; rubric not added") from None
