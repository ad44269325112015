"""Rendering a prompt has a budget of time, memory and text, enforced by the operating
system in a worker process: a loop with an empty body cannot spin, a value built in one
step cannot fill memory, endless output stops, a cancelled job leaves a render at once,
and the next render works. Built-in rubrics render exactly as in this process."""

from __future__ import annotations

import multiprocessing
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from desktop.domain import render as here
from desktop.domain.errors import RubricError
from desktop.domain.pairs import PairContent
from desktop.domain.render import (
    MAX_CHARS,
    RenderStopped,
    RenderTooBig,
    RenderTooSlow,
    sample_pair,
)
from desktop.domain.rubric import Message, Rubric
from desktop.services.rendering import check_cost, render
from desktop.services.rubric_catalog import list_rubrics
from tests.helpers import user_rubric

PAIR = PairContent("question", "answer A\nsecond line", "answer B", reference="ref", source="src")
SPIN = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"


def rubric(template: str) -> Rubric:
    return user_rubric(template)


@pytest.fixture(autouse=True)
def _warm() -> None:
    """A worker started, so each case times the render and not Python's start-up."""
    render(rubric("{{ instruction }}"), PAIR)


def test_nested_loops_with_empty_bodies_stop_at_the_time_limit() -> None:
    start = time.monotonic()
    with pytest.raises(
        RenderTooSlow, match=r"message 1 takes longer than 0\.3 s to render for pair"
    ):
        render(rubric(SPIN), PAIR, seconds=0.3)
    assert time.monotonic() - start < 1.0


def test_one_step_of_c_code_that_runs_for_minutes_stops_at_the_time_limit() -> None:
    start = time.monotonic()
    with pytest.raises(RenderTooSlow, match=r"takes longer than 0\.5 s"):
        render(rubric("{{ (7 ** 10000000) % 10 }}"), PAIR, seconds=0.5)
    assert time.monotonic() - start < 1.5


@pytest.mark.parametrize(
    "template",
    [
        "{{ 'x' * 10 ** 10 }}",
        "{{ ([0] * 1000) * 10 ** 7 }}",
        "{{ 'x'|center(10 ** 10) }}",
        "{{ 'x'.ljust(10 ** 10) }}",
        "{{ '{:>10000000000}'.format(1) }}",
        "{{ '%10000000000s' % 'x' }}",
        "{% set l = [] %}{% for i in range(100000) %}"
        "{% set _ = l.append('x' * 100000 ~ i) %}{% endfor %}{{ l|length }}",
    ],
)
def test_memory_past_the_limit_is_refused_in_one_line(template: str) -> None:
    start = time.monotonic()
    with pytest.raises(
        RenderTooBig, match="message 1 needs more than 256 MB of memory to render for pair"
    ):
        render(rubric(template), PAIR, seconds=10)
    assert time.monotonic() - start < 5.0


@pytest.mark.parametrize(
    "template",
    [
        "{% for i in range(100000) %}{% for j in range(1000) %}{{ response_a }}"
        "{% endfor %}{% endfor %}",
        "{{ range(100000)|join(response_a * 100) }}",
        "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}",
    ],
)
def test_output_past_the_limit_is_refused_as_it_is_produced(template: str) -> None:
    start = time.monotonic()
    with pytest.raises(RenderTooBig, match="above the limit of 40,000"):
        render(rubric(template), PAIR, max_chars=10_000)
    assert time.monotonic() - start < 2.0


def test_a_prompt_longer_than_the_limit_is_an_error_for_that_pair_only() -> None:
    with pytest.raises(RubricError, match="is 12,000 characters, above the limit") as refused:
        render(rubric("{{ 'x' * 12000 }}"), PAIR, max_chars=10_000)
    assert not isinstance(refused.value, RenderTooBig | RenderTooSlow)


def test_a_cancelled_job_leaves_a_render_at_once() -> None:
    cancel = threading.Event()
    threading.Timer(0.1, cancel.set).start()
    start = time.monotonic()
    with pytest.raises(RenderStopped):
        render(rubric(SPIN), PAIR, seconds=30, stop=cancel.is_set)
    assert time.monotonic() - start < 0.5


def test_after_a_worker_is_ended_the_next_render_gets_a_fresh_one() -> None:
    with pytest.raises(RenderTooSlow):
        render(rubric(SPIN), PAIR, seconds=0.2)
    with pytest.raises(RenderTooBig):
        render(rubric("{{ 'x' * 10 ** 10 }}"), PAIR)
    assert render(rubric("{{ response_b }}!"), PAIR) == [{"role": "user", "content": "answer B!"}]


def test_the_message_at_fault_is_named() -> None:
    messages = (Message("system", "{{ instruction }}"), Message("user", SPIN))
    two = replace(rubric("{{ instruction }}"), messages=messages)
    with pytest.raises(RenderTooSlow, match="message 2 takes longer"):
        render(two, PAIR, seconds=0.2)


def test_a_template_error_comes_back_in_one_line() -> None:
    with pytest.raises(RubricError, match="message 1 cannot render for pair") as refused:
        render(rubric("{{ instruction.__class__.__mro__ }}"), PAIR)
    assert "\n" not in str(refused.value) and not isinstance(refused.value, RenderTooBig)


def test_ordinary_templates_with_loops_calls_and_filters_still_render() -> None:
    template = (
        "{% for line in response_a.splitlines() %}- {{ line|upper }}\n{% endfor %}"
        "{{ '%5d' % 3 }}|{{ '{:,}'.format(1234567) }}|{{ [1, 2, 3]|join(', ') }}|"
        "{{ reference|replace('r', 'R') }}|{{ 'ab'|center(6) }}|{{ 10000000|filesizeformat }}"
    )
    content = render(rubric(template), PAIR)[0]["content"]
    assert content == ("- ANSWER A\n- SECOND LINE\n    3|1,234,567|1, 2, 3|Ref|  ab  |10.0 MB")


def test_every_built_in_rubric_renders_in_a_worker_as_in_this_process() -> None:
    for built_in in list_rubrics():
        check_cost(built_in)  # the sample pair passes every built-in rubric
        sample = sample_pair(built_in)  # two turns for MT-bench's two-turn judges
        assert render(built_in, sample) == here.render(built_in, sample)


def test_check_cost_refuses_in_one_line() -> None:
    with pytest.raises(RubricError) as refused:
        check_cost(rubric(SPIN))
    assert "\n" not in str(refused.value) and str(refused.value).endswith("rubric not added")


def test_a_filter_no_one_has_is_refused_in_one_line() -> None:
    with pytest.raises(
        RubricError, match="template syntax error on line 1: No filter named 'shout'"
    ):
        render(rubric("{{ instruction|shout }}"), PAIR)
    assert render(rubric("{{ response_b }}"), PAIR)[0]["content"] == "answer B"


ORDINARY = [
    "{{ 'a' ~ response_a ~ 1 ~ [1, 2] }}",
    "{% if instruction == 'question' and 'answer' in response_a %}yes{% endif %}",
    "{{ 1 < 2 < 3 }} {{ [1, 2] == [1, 2] }} {{ (1, 2) in [(1, 2)] }} {{ 'b' not in 'abc' }}",
    "{% set d = {'k': [1, 2], (1, 2): 'tuple key'} %}{{ d['k'] }} {{ d[(1, 2)] }} {{ d|length }}",
    "{{ response_a[2:8] }}|{{ [1, 2, 3, 4][::-1] }}|{{ response_b[-1] }}",
    "{% for a, b in [(1, 2), (3, 4)] %}{{ a + b }},{% endfor %}{% set x, y = 5, 6 %}{{ x * y }}",
    "{% set ns = namespace(n=0, s='') %}{% for i in range(5) %}{% set ns.n = ns.n + i %}"
    "{% set ns.s = ns.s ~ i %}{% endfor %}{{ ns.n }} {{ ns.s }} {{ 7 // 2 }} {{ 7 / 2 }} {{ -3 }}",
    "{% macro m(x) %}<{{ x }}>{% endmacro %}{{ m(1) }}{{ m(response_b) }}",
    "{{ [3, 1, 2]|sort|join(', ') }} {{ [[1], [2]]|sum(start=[]) }} {{ [1, 2, 3]|sum }}",
    "{{ {'b': 1, 'a': [1, 'x']}|tojson }} {{ {'a': [1, {'b': 2}]}|tojson(indent=2) }}",
    "{{ {'a': [1, 2]}|pprint }} {{ '%s-%05.1f' % ('x', 3.14159) }} {{ '%(a)s' % {'a': 1} }}",
    "{{ '{0:>6}|{1!r}|{k:.2f}'.format('ab', 'c', k=2.5) }} {{ '%d items'|format(3) }}",
    "{{ 2 ** 10 }} {{ 3 * 'ab' }} {{ [0] * 3 }} {{ 'x' + 'y' }} {{ [1] + [2] }}",
    "{{ response_a|indent(2, true) }}|{{ 'a b c'|wordwrap(3) }}|{{ 'ab'|center(6) }}",
    "{{ 6 is divisibleby(3) }} {{ 2 is in([1, 2]) }} {{ none is none }} {{ 'x' is string }}",
    "{% set l = [] %}{% for i in range(3) %}{% set _ = l.append(i * i) %}{% endfor %}{{ l }}",
    "{{ range(4)|batch(3, 'x')|list }} {{ range(5)|slice(2)|list }} {{ 'abc'|list }}",
    "{{ [{'n': 2}, {'n': 1}]|sort(attribute='n')|map(attribute='n')|join }}",
    "{{ dict(a=1).items()|list }} {{ 'a-b'.split('-') }} {{ 'x'.join(['1', '2']) }}",
]


@pytest.mark.parametrize("template", ORDINARY)
def test_ordinary_templates_render_as_a_plain_sandbox_would(template: str) -> None:
    """Operators intercepted and filters and tests that wait for the render (so that
    checking a template never runs it) leave what an ordinary template renders unchanged,
    in this process and in a worker."""
    plain = SandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True
    )
    variables = here.variables_for(rubric(template), PAIR)
    expected = plain.from_string(template).render(variables)
    assert here.render(rubric(template), PAIR)[0]["content"] == expected
    assert render(rubric(template), PAIR)[0]["content"] == expected


@pytest.mark.parametrize(
    "template",
    [
        "{{ 2 ** 10 ** 10 }}",
        "{{ 'x' * 10 ** 10 }}",
        "{{ 'x'|center(10000000000) }}",
        "{{ 10000000000|string|center(10000000000) }}",
        "{% if 7 ** 100000000 is divisibleby 3 %}{% endif %}",
        "{{ -(7 ** 100000000) }}",
    ],
)
def test_checking_a_template_never_runs_it(template: str) -> None:
    """Jinja works out constant parts while it compiles or inspects a template: here,
    in the process that checks it (``rubric add``, the window), it must not."""
    start = time.monotonic()
    here.check_template(template)
    assert here.used_variables(template) == frozenset()
    here.ENV.from_string(template)
    assert time.monotonic() - start < 1.0


def test_a_worker_ended_while_idle_is_replaced_without_blaming_the_rubric() -> None:
    """The OS may end an idle worker (out of memory elsewhere, a user's kill)."""
    ended = [p for p in multiprocessing.active_children() if p.name == "tiebreak-render"]
    assert ended
    for process in ended:
        process.kill()
        process.join()
    assert render(rubric("{{ response_a }}"), PAIR)[0]["content"] == PAIR.response_a


def test_the_window_s_prompt_of_a_pair_a_rubric_spins_on_is_one_line_in_time(
    tmp_path: Path,
) -> None:
    """ "Show prompt" renders on the pair shown with the project's own rubric: a template
    that passed its check on the sample pair but spins on this pair's text is stopped at
    its deadline in one line, not left to freeze the window."""
    from desktop.adapters.store import open_project
    from desktop.domain.errors import TiebreakError
    from desktop.domain.profiles import ModelProfile
    from desktop.services.judge_shown import prompt_text
    from desktop.services.pair_lookup import find_pair
    from desktop.services.project_rubrics import add_rubric
    from tests.helpers import new_project, write_jsonl

    spins_here = user_rubric(
        "{% if 'SPIN' in instruction %}" + SPIN + "{% endif %}{{ instruction }}"
        " A: {{ response_a }} B: {{ response_b }}"
    )
    check_cost(spins_here)  # the sample pair has no SPIN: the rubric is added
    project = new_project(tmp_path)
    rows = [{"id": "calm", "instruction": "Q", "response_a": "a", "response_b": "b"}]
    rows.append({"id": "spin", "instruction": "SPIN please", "response_a": "a", "response_b": "b"})
    from desktop.services.importing import import_file

    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
        add_rubric(store, spins_here)
        profile = ModelProfile(name="p", model="m", base_url="http://127.0.0.1:9/v1")
        calm, spin = find_pair(store, "calm"), find_pair(store, "spin")
        assert "A: a B: b" in prompt_text(store, spins_here.name, calm, profile)
        start = time.monotonic()
        with pytest.raises(TiebreakError) as stopped:
            prompt_text(store, spins_here.name, spin, profile)
    assert time.monotonic() - start < 5.0
    assert "\n" not in str(stopped.value) and "pair" in str(stopped.value)


def test_only_a_rubric_shipped_with_the_app_renders_in_this_process() -> None:
    """A built-in rubric is known code and renders here; a copy with one character of a
    message changed is a user's rubric and goes to a worker. Both give the same text."""
    from desktop.domain.render import variables_for
    from desktop.services.rendering import shipped, workers

    builtin = next(r for r in list_rubrics() if r.name == "href-four")
    last = builtin.messages[-1]
    copy = replace(builtin, messages=(*builtin.messages[:-1], replace(last, content=last.content)))
    edited = replace(
        builtin, messages=(*builtin.messages[:-1], replace(last, content=last.content + " "))
    )
    assert shipped(builtin) and shipped(copy) and not shipped(edited)
    variables = variables_for(builtin, PAIR)
    in_worker = workers().render(builtin, variables, PAIR.label, max_chars=MAX_CHARS, seconds=1.0)
    assert render(builtin, PAIR) == in_worker
