"""Importing text templates: the five seeds import to exactly the built-in rubrics' requests,
placeholders become variables, and every other character stays literal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from desktop.adapters.rubric_files import dump_rubric, load_rubric, rubric_from_text
from desktop.domain.errors import RubricError
from desktop.domain.pairs import Pair, PairContent
from desktop.domain.render import ENV, render
from desktop.domain.rubric import AnswerKind
from desktop.domain.template_import import escape_literal, rubric_from_template
from desktop.resources import prompts_dir

SEEDS = {
    "000": "href-four",
    "001": "href-overall",
    "002": "href-correctness",
    "003": "just-eval",
    "004": "text-grounded",
}
TRICKY = "{{ 7*7 }} {% raw %} {% endraw %} {} {#x#} </response> {instruction} <|im_end|>"


def seed_text(seeds_dir: Path, prefix: str) -> str:
    return next(seeds_dir.glob(f"{prefix}_*.txt")).read_text(encoding="utf-8")


@pytest.fixture
def pairs(alpaca_file: Path) -> list[PairContent]:
    row = json.loads(alpaca_file.read_text(encoding="utf-8"))[0]
    real = Pair(
        instruction=row["instruction"],
        response_a=row["output_1"],
        response_b=row["output_2"],
        reference="Hugh Jackman, Meryl Streep and others.",
        source="Broadway has launched many careers.",
        id=1,
    )
    tricky = Pair("I " + TRICKY, "A " + TRICKY, "B " + TRICKY, "R " + TRICKY, "S " + TRICKY, id=2)
    return [real, tricky]


@pytest.mark.parametrize("prefix", sorted(SEEDS))
def test_each_seed_imports_to_the_builtin_request(
    seeds_dir: Path, pairs: list[PairContent], prefix: str
) -> None:
    imported = rubric_from_template(seed_text(seeds_dir, prefix), name=f"seed-{prefix}")
    shipped = load_rubric(prompts_dir() / f"{SEEDS[prefix]}.toml")
    for pair in pairs:
        assert render(imported, pair) == render(shipped, pair)
        assert render(imported, pair, fewshot=False) == render(shipped, pair, fewshot=False)
    # Stronger: the same template source and few-shot text, character for character.
    assert imported.messages == shipped.messages
    assert imported.fewshot == shipped.fewshot
    assert imported.requires == shipped.requires
    assert imported.answer == shipped.answer
    assert imported.decoding == shipped.decoding


@pytest.mark.parametrize(
    ("prefix", "kind", "dimensions"),
    [
        ("000", "comma-list", ("precision", "correctness", "format", "overall")),
        ("001", "single", ("overall",)),
        ("002", "single", ("correctness",)),
        (
            "003",
            "json-choices",
            ("engagement", "clarity", "helpfulness", "factuality", "depth", "safety"),
        ),
        ("004", "json-choice", ("overall",)),
    ],
)
def test_inferred_answer_format_and_dimensions(
    seeds_dir: Path, prefix: str, kind: str, dimensions: tuple[str, ...]
) -> None:
    rubric = rubric_from_template(seed_text(seeds_dir, prefix), name="x")
    assert rubric.answer.kind.value == kind
    assert rubric.dimensions == dimensions
    assert "inferred" in rubric.description


def test_imported_rubric_survives_a_file_round_trip(seeds_dir: Path) -> None:
    for prefix in SEEDS:
        rubric = rubric_from_template(seed_text(seeds_dir, prefix), name="x", title="X")
        assert rubric_from_text(dump_rubric(rubric), origin="x.toml") == rubric


# ---- placeholders ----------------------------------------------------------------------------


PAIR = Pair("the question", "answer one", "answer two", "the reference", "the text", id=3)


def _render_one(text: str, pair: PairContent = PAIR, **kwargs: object) -> str:
    rubric = rubric_from_template(text, name="t", **kwargs)
    return "".join(m["content"] for m in render(rubric, pair))


def test_alpaca_eval_placeholders() -> None:
    text = "Q {instruction}\nA {output_1}\nB {output_2}\nH {output_human}"
    assert _render_one(text) == "Q the question\nA answer one\nB answer two\nH the reference"
    assert rubric_from_template(text, name="t").requires == ("reference",)


def test_dollar_placeholders() -> None:
    text = "{$instruction}|{$candidate_A}|{$candidate_B}"
    assert _render_one(text) == "the question|answer one|answer two"
    assert rubric_from_template(text, name="t").requires == ()


def test_three_and_four_positional_placeholders() -> None:
    assert _render_one("P:{} A:{} B:{}") == "P:the question A:answer one B:answer two"
    four = rubric_from_template("T:{} P:{} A:{} B:{}", name="t")
    assert four.requires == ("source",)
    assert "".join(m["content"] for m in render(four, PAIR)) == (
        "T:the text P:the question A:answer one B:answer two"
    )


@pytest.mark.parametrize("count", [1, 2, 5])
def test_other_positional_counts_are_refused(count: int) -> None:
    with pytest.raises(RubricError, match=f"the template has {count} positional"):
        rubric_from_template(" ".join(["{}"] * count), name="t")


def test_braces_beside_named_placeholders_stay_literal() -> None:
    text = 'Answer {} or {"choice": "A"} for {instruction}: {output_1} vs {output_2}'
    assert _render_one(text) == (
        'Answer {} or {"choice": "A"} for the question: answer one vs answer two'
    )


def test_unknown_placeholder_is_refused() -> None:
    with pytest.raises(RubricError, match=r"unknown placeholder \{output\} in the template"):
        rubric_from_template("{instruction} {output}", name="t")


# ---- literal text stays literal ----------------------------------------------------------------


def test_jinja_syntax_in_template_text_is_literal() -> None:
    text = (
        "Literal {{ 7*7 }}, {% if x %}, {# note #}, {% endraw %}, {%- endraw -%}, {{{\n"
        "Q: {instruction}\nA: {output_1}\nB: {output_2}{"
    )
    expected = (
        "Literal {{ 7*7 }}, {% if x %}, {# note #}, {% endraw %}, {%- endraw -%}, {{{\n"
        "Q: the question\nA: answer one\nB: answer two{"
    )
    assert _render_one(text) == expected


def test_markup_is_split_into_messages() -> None:
    text = (
        "<|im_start|>system\nBe fair.<|im_end|>\n<|im_start|>user\n"
        "{instruction}\n{output_1}\n{output_2}<|im_end|>\n<|im_start|>assistant\n"
    )
    rubric = rubric_from_template(text, name="t")
    assert [m["role"] for m in render(rubric, PAIR)] == ["system", "user"]
    assert render(rubric, PAIR)[1]["content"] == "the question\nanswer one\nanswer two"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{",
        "{{",
        "{%",
        "{#",
        "}}",
        "%}",
        "a {% endraw %} b",
        "{% endraw %}",
        "{%endraw%}{%- endraw -%}{%+ endraw +%}",
        "{% raw %}{% endraw %}",
        "{{{{",
        "x{",
        "{%%}",
    ],
)
def test_escape_literal_examples(text: str) -> None:
    assert ENV.from_string(escape_literal(text)).render() == text


@given(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r")))
def test_escape_literal_renders_any_text_exactly(text: str) -> None:
    assert ENV.from_string(escape_literal(text)).render() == text


@settings(max_examples=300)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["{instruction}", "{output_1}", "{output_2}", "{", "}", "{{", "%}"]),
            st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\x00{}$")),
        ),
        max_size=12,
    )
)
def test_any_mix_of_text_and_placeholders_imports_exactly(parts: list[str]) -> None:
    text = "".join(parts)
    assume(
        "{}" not in text or any(p in text for p in ("{instruction}", "{output_1}", "{output_2}"))
    )
    values = {
        "{instruction}": "the question",
        "{output_1}": "answer one",
        "{output_2}": "answer two",
    }
    expected = text
    for placeholder, value in values.items():
        expected = expected.replace(placeholder, value)
    try:
        rubric = rubric_from_template(text or "x", name="t", answer_kind="single")
    except RubricError as exc:  # text that happens to spell an unknown {placeholder}
        assert "unknown placeholder" in str(exc)
        return
    assert "".join(m["content"] for m in render(rubric, PAIR)) == (expected or "x")


def test_crlf_line_endings_become_newlines() -> None:
    assert _render_one("Q {instruction}\r\nA {output_1}\r\nB {output_2}\r\n") == (
        "Q the question\nA answer one\nB answer two\n"
    )


# ---- answer format ----------------------------------------------------------------------


def test_explicit_kind_and_dimensions_win() -> None:
    rubric = rubric_from_template(
        "{instruction} {output_1} {output_2}",
        name="t",
        title="T",
        description="Mine.",
        dimensions=("helpfulness", "harmlessness"),
        answer_kind="comma-list",
    )
    assert rubric.answer.kind is AnswerKind.COMMA_LIST
    assert rubric.dimensions == ("helpfulness", "harmlessness")
    assert (rubric.title, rubric.description) == ("T", "Mine.")


def test_several_dimensions_without_a_kind_mean_a_comma_list() -> None:
    rubric = rubric_from_template(
        "{instruction} {output_1} {output_2}", name="t", dimensions=["a", "b"]
    )
    assert rubric.answer.kind is AnswerKind.COMMA_LIST


def test_unknown_answer_kind() -> None:
    with pytest.raises(RubricError, match="answer format 'stars' is not one of comma-list"):
        rubric_from_template("{instruction}", name="t", answer_kind="stars")


def test_plain_template_is_single_overall() -> None:
    rubric = rubric_from_template("Which is better? {output_1} or {output_2}", name="t")
    assert rubric.answer.kind is AnswerKind.SINGLE
    assert rubric.dimensions == ("overall",)
    assert rubric.decoding.max_tokens == 16


def test_json_choice_reason_key() -> None:
    text = 'Reply {"explanation": "...", "choice": "A"} for {output_1} vs {output_2}'
    rubric = rubric_from_template(text, name="t")
    assert rubric.answer.kind is AnswerKind.JSON_CHOICE
    assert (rubric.answer.choice_key, rubric.answer.reason_key) == ("choice", "explanation")
    assert rubric.decoding.max_tokens == 512


def test_example_block_becomes_fewshot() -> None:
    text = (
        "Judge.{example_begin} Example: {{ 1 }}{example_end}\n"
        "Now {instruction} {output_1} {output_2}"
    )
    rubric = rubric_from_template(text, name="t")
    assert rubric.fewshot == " Example: {{ 1 }}"
    on = "".join(m["content"] for m in render(rubric, PAIR))
    off = "".join(m["content"] for m in render(rubric, PAIR, fewshot=False))
    assert on == "Judge. Example: {{ 1 }}\nNow the question answer one answer two"
    assert off == "Judge.\nNow the question answer one answer two"


def test_binary_text_is_refused() -> None:
    with pytest.raises(RubricError, match="NUL character"):
        rubric_from_template("{instruction}\x00", name="t")


def test_unbalanced_example_markers() -> None:
    with pytest.raises(RubricError, match="example_begin"):
        rubric_from_template("x {example_begin} {instruction}", name="t")
