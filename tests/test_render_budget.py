"""Rendering a prompt has a budget of time and text, enforced while the template runs: a
loop with an empty body cannot spin, a loop emitting text cannot fill memory, and a
cancelled job leaves a render at once. Built-in rubrics render exactly as before."""

from __future__ import annotations

import threading
import time
import tracemalloc

import pytest
from jinja2 import StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from desktop.domain.errors import RubricError
from desktop.domain.pairs import PairContent
from desktop.domain.render import (
    ENV,
    RenderStopped,
    RenderTooSlow,
    check_cost,
    render,
    sample_pair,
    variables_for,
)
from desktop.domain.rubric import Rubric
from desktop.services.rubric_catalog import list_rubrics
from tests.helpers import user_rubric

PAIR = PairContent("question", "answer A\nsecond line", "answer B", reference="ref", source="src")


def rubric(template: str) -> Rubric:
    return user_rubric(template)


def test_nested_loops_with_empty_bodies_stop_at_the_time_limit() -> None:
    spin = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    start = time.monotonic()
    with pytest.raises(RenderTooSlow, match=r"takes longer than 0\.3 s to render for pair"):
        render(rubric(spin), PAIR, seconds=0.3)
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize(
    "template",
    [
        "{% for i in range(100000) %}{% for j in range(1000) %}{{ response_a }}"
        "{% endfor %}{% endfor %}",
        "{% set x %}{% for i in range(100000) %}{% for j in range(1000) %}{{ response_a }}"
        "{% endfor %}{% endfor %}{% endset %}",
        "{% macro m() %}{% for i in range(100000) %}{% for j in range(1000) %}xxxxxxxx"
        "{% endfor %}{% endfor %}{% endmacro %}{{ m()|length }}",
        "{{ range(100000)|join(response_a * 1000) }}",
        "{{ (response_a * 1000).join(range(10000)|map('string')) }}",
        "{{ (response_a * 100)|replace('', response_a * 100) }}",
        "{{ response_a|wordwrap(1, true, response_a * 1000) }}",
        "{{ ('\\t' * 100000).expandtabs(100000) }}",
        "{{ 'x'|center(10 ** 10) }}",
        "{{ 'x'.ljust(10 ** 10) }}",
        "{{ '{:>10000000000}'.format(1) }}",
        "{{ '%10000000000s' % 'x' }}",
        "{{ '%*s' % (10 ** 10, 'x') }}",
    ],
)
def test_text_past_the_limit_is_refused_before_memory_grows(template: str) -> None:
    tracemalloc.start()
    try:
        start = time.monotonic()
        with pytest.raises(RubricError, match=r"above the limit|too wide"):
            render(rubric(template), PAIR, max_chars=10_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - start < 2.0
    assert peak < 50_000_000, f"peak {peak:,} bytes"


def test_a_cancelled_job_leaves_a_render_at_once() -> None:
    cancel = threading.Event()
    threading.Timer(0.1, cancel.set).start()
    spin = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    start = time.monotonic()
    with pytest.raises(RenderStopped):
        render(rubric(spin), PAIR, seconds=30, stop=cancel.is_set)
    assert time.monotonic() - start < 0.5


def test_ordinary_templates_with_loops_calls_and_filters_still_render() -> None:
    template = (
        "{% for line in response_a.splitlines() %}- {{ line|upper }}\n{% endfor %}"
        "{{ '%5d' % 3 }}|{{ '{:,}'.format(1234567) }}|{{ [1, 2, 3]|join(', ') }}|"
        "{{ reference|replace('r', 'R') }}|{{ 'ab'|center(6) }}|{{ 10000000|filesizeformat }}"
    )
    content = render(rubric(template), PAIR)[0]["content"]
    assert content == ("- ANSWER A\n- SECOND LINE\n    3|1,234,567|1, 2, 3|Ref|  ab  |10.0 MB")


def test_every_built_in_rubric_renders_as_a_plain_sandbox_would() -> None:
    plain = SandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True
    )
    for built_in in list_rubrics():
        check_cost(built_in)  # the sample pair passes every built-in rubric
        sample = sample_pair(built_in)  # two turns for MT-bench's two-turn judges
        variables = variables_for(built_in, sample)
        expected = [plain.from_string(m.content).render(variables) for m in built_in.messages]
        assert [m["content"] for m in render(built_in, sample)] == expected


def test_a_template_rendered_on_its_own_has_the_budget_too() -> None:
    with pytest.raises(Exception, match="above the limit"):
        ENV.from_string("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}").render()


def test_check_cost_refuses_in_one_line() -> None:
    spin = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    with pytest.raises(RubricError) as refused:
        check_cost(rubric(spin))
    assert "\n" not in str(refused.value) and str(refused.value).endswith("rubric not added")


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
    """Every hook the budget adds (operators, comparisons, dict keys, slices, literals,
    ``~``, calls, filters, tests) leaves what an ordinary template renders unchanged."""
    plain = SandboxedEnvironment(
        undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True
    )
    variables = variables_for(rubric(template), PAIR)
    expected = plain.from_string(template).render(variables)
    assert render(rubric(template), PAIR)[0]["content"] == expected
