"""Turn a rubric and a pair into the chat messages sent to the judge.

Pair data only ever reaches a template as variables, so a response containing ``{{ }}``,
``{%`` or a fake closing tag arrives byte for byte. Templates run in Jinja's sandbox with
StrictUndefined: a user rubric is someone else's text and must not reach Python internals.
What a template may cost in time and memory is bounded by the operating system, in a
process of its own (``desktop/services/render_worker.py``); here only the text it outputs
is counted as it is produced, so an endless stream of output stops at once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, meta, pass_context
from jinja2.runtime import Context
from jinja2.sandbox import SandboxedEnvironment

from desktop.domain import template_variables
from desktop.domain.conversations import Message
from desktop.domain.errors import RubricError
from desktop.domain.pairs import PairContent
from desktop.domain.rubric import Rubric

#: The only names a rubric template may use (and the per-turn ones, ``question_1`` ...).
TEMPLATE_VARIABLES = template_variables.TEMPLATE_VARIABLES

#: Default cap on one rendered prompt, in characters; a pasted novel is a mistake, not a prompt.
MAX_CHARS = 200_000
#: Seconds one prompt may take to render; a built-in rubric takes well under a millisecond.
RENDER_SECONDS = 1.0
#: Text a template may output while rendering one prompt, as a multiple of the prompt's
#: own limit: past it the template is at fault, not the pair (whose prompt is refused at
#: the limit itself, after rendering).
PRODUCED_FACTOR = 4

_TOO_DEEP = "template nested too deeply (blocks, brackets or operators inside each other)"


class RenderOverBudget(RubricError):
    """A template past its budget of time or memory on a real pair: it would be on every
    pair, so a job stops rather than spend the budget again on each."""


class RenderTooSlow(RenderOverBudget):
    """A template that takes longer than its budget."""


class RenderTooBig(RenderOverBudget):
    """A template that would build more than its budget allows."""


class RenderStopped(Exception):
    """The job was cancelled while a prompt was rendering; not a fault of the rubric."""


def _at_render(run: Callable[..., Any]) -> Callable[..., Any]:
    """A filter or test that runs only when a template renders. Jinja runs one given
    constants (``'x'|center(10000000000)``) while it compiles or inspects a template, in
    the process that checks it (``rubric add``, the window); one that takes the render's
    context is never run then."""
    passed = getattr(getattr(run, "jinja_pass_arg", None), "name", None)

    @pass_context
    @functools.wraps(run)
    def at_render(context: Context, /, *args: Any, **kwargs: Any) -> Any:
        if passed == "context":
            return run(context, *args, **kwargs)
        if passed == "eval_context":
            return run(context.eval_ctx, *args, **kwargs)
        if passed == "environment":
            return run(context.environment, *args, **kwargs)
        return run(*args, **kwargs)

    return at_render


def _environment() -> SandboxedEnvironment:
    """Jinja's sandbox with StrictUndefined, folding nothing at compile time: operators
    are intercepted (the sandbox's own way, so ``2 ** 10 ** 9`` is not worked out while
    a template is checked) and filters and tests wait for the render (``_at_render``)."""
    env = SandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True
    )
    env.intercepted_binops = frozenset(env.binop_table)
    env.intercepted_unops = frozenset(env.unop_table)
    env.filters = {name: _at_render(run) for name, run in env.filters.items()}
    # jinja2 leaves Environment.tests unannotated: its default tests infer as
    # dict[str, function], which mypy does not take for a callable.
    env.tests = {name: _at_render(run) for name, run in env.tests.items()}  # type: ignore[arg-type]
    return env


ENV = _environment()
_GLOBALS = frozenset(ENV.globals)


def _undeclared(source: str) -> frozenset[str]:
    """The names a template reads that it does not set; RubricError (one line) if it
    won't compile."""
    try:
        return frozenset(meta.find_undeclared_variables(ENV.parse(source)))
    except TemplateSyntaxError as exc:  # a syntax error, or a filter or test no one has
        detail = " ".join((exc.message or "").split())
        raise RubricError(f"template syntax error on line {exc.lineno}: {detail}") from None
    except RecursionError:  # Jinja's parser descends once per level of nesting
        raise RubricError(_TOO_DEEP) from None


def check_template(source: str) -> None:
    """Raise RubricError (one line, no file name) if a template won't compile or uses an
    unknown variable; callers add where the template came from."""
    unknown = sorted(
        n for n in _undeclared(source) - _GLOBALS if not template_variables.is_known(n)
    )
    if unknown:
        raise RubricError(
            f"unknown template variable {unknown[0]!r} (known: {template_variables.KNOWN})"
        )


def used_variables(source: str) -> frozenset[str]:
    """The template variables a template reads."""
    return _undeclared(source)


def check_rubric(rubric: Rubric) -> None:
    """Check every message template of a rubric; the error names the message."""
    for i, message in enumerate(rubric.messages):
        try:
            check_template(message.content)
        except RubricError as exc:
            raise RubricError(f"rubric {rubric.name}: message {i + 1}: {exc}") from None


@functools.lru_cache(maxsize=64)
def _compiled(rubric: Rubric) -> tuple[tuple[str, Template], ...]:
    """Compiled templates for a rubric, built once. Keyed by the rubric's value, which
    determines its content_hash, so an equal rubric loaded again reuses the compile."""
    check_rubric(rubric)
    compiled = []
    for i, message in enumerate(rubric.messages):
        try:
            template = ENV.from_string(message.content)
        except TemplateSyntaxError as exc:  # found as it compiles: a filter no one has
            detail = " ".join((exc.message or "").split())
            raise RubricError(
                f"rubric {rubric.name}: message {i + 1}: template error on line {exc.lineno}:"
                f" {detail}"
            ) from None
        except (RecursionError, SyntaxError):  # Python's compiler limits nesting too
            raise RubricError(f"rubric {rubric.name}: message {i + 1}: {_TOO_DEEP}") from None
        compiled.append((message.role, template))
    return tuple(compiled)


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


class _TooMuchText(Exception):
    """The output passed its room (said by render_variables, which knows where)."""


def _output(template: Template, variables: dict[str, Any], room: int) -> str:
    """The template's text, refused (_TooMuchText) as soon as it passes ``room``
    characters: Jinja yields its output piece by piece, so no more is ever built."""
    pieces = []
    for piece in template.generate(variables):
        room -= len(piece)
        if room < 0:
            raise _TooMuchText
        pieces.append(piece)
    return "".join(pieces)


def render_variables(
    rubric: Rubric,
    variables: dict[str, Any],
    label: str,
    *,
    max_chars: int = MAX_CHARS,
    at: Callable[[int], None] | None = None,
) -> list[dict[str, str]]:
    """The messages of ``rubric`` with ``variables`` (those of the pair ``label`` names),
    in this process: the time and memory it takes are bounded only by the caller.
    ``at(i)`` is told the index of each message before it renders.

    Raises RenderTooBig when the output passes ``PRODUCED_FACTOR`` times ``max_chars``,
    RubricError for anything else a template cannot do for this pair (MemoryError is let
    through, for the process that bounds memory to answer)."""
    compiled = _compiled(rubric)
    room = max_chars * PRODUCED_FACTOR
    messages = []
    size = 0
    for i, (role, template) in enumerate(compiled):
        where = f"{rubric.name}: message {i + 1}"
        if at is not None:
            at(i)
        try:
            content = _output(template, variables, room - size)
        except _TooMuchText:
            raise RenderTooBig(
                f"{where} cannot render for {label}: it builds text of more than"
                f" {room:,} characters, above the limit of {room:,}"
            ) from None
        except MemoryError:
            raise
        except Exception as exc:  # sandbox, StrictUndefined, a filter's error: one line
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise RubricError(f"{where} cannot render for {label}: {detail}") from None
        size += len(content)
        messages.append({"role": role, "content": content})
    if size > max_chars:
        raise RubricError(
            f"{rubric.name}: the prompt for {label} is {size:,} characters,"
            f" above the limit of {max_chars:,}"
        )
    return messages


def render(
    rubric: Rubric, pair: PairContent, *, fewshot: bool = True, max_chars: int = MAX_CHARS
) -> list[dict[str, str]]:
    """The judge request's messages for one pair, as ``{"role", "content"}`` dicts,
    rendered in this process: for a template that is known (a built-in rubric's) or a
    caller that bounds it. A user's rubric on real pairs goes through
    ``desktop.services.rendering.render``, under the operating system's limits."""
    variables = variables_for(rubric, pair, fewshot=fewshot)
    return render_variables(rubric, variables, pair.label, max_chars=max_chars)


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
