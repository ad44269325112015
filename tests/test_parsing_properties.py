"""Properties of answer parsing, checked with generated answers.

1. Any verdict list written in any tolerated way parses back to exactly that list.
2. Arbitrary text never raises: the outcome is ok with every dimension, or an error line.
3. A comma list with the wrong count never parses ok.
4. JSON with one aspect too many or too few never parses ok.
5. Letter case and whitespace never change the outcome.
"""

from __future__ import annotations

import json
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.domain.parsing import ParseOutcome, parse_answer, verdict_token_probabilities
from desktop.domain.rubric import AnswerFormat, AnswerKind
from desktop.domain.verdicts import Verdict

FAST = settings(max_examples=200, deadline=None)

SINGLE = AnswerFormat(AnswerKind.SINGLE)
LIST = AnswerFormat(AnswerKind.COMMA_LIST)
CHOICES = AnswerFormat(AnswerKind.JSON_CHOICES, reason_key="rationale")
CHOICE = AnswerFormat(AnswerKind.JSON_CHOICE, reason_key="reason")
FORMATS = (SINGLE, LIST, CHOICES, CHOICE)

NAMES = (
    "precision",
    "correctness",
    "format",
    "overall",
    "engagement",
    "clarity",
    "helpfulness",
    "factuality",
    "depth",
    "safety",
)
OTHER_NAMES = ("humor", "style", "creativity", "tone")

# Prose without verdict words, labels, negations or braces; "a" only as an article.
NEUTRAL = (
    "Let me compare the two responses carefully.",
    "This is a hard comparison.",
    "Both responses address the instruction.",
    "The first one gives a short reply, the second one gives a long reply.",
    "Here is my assessment.",
    "I read the human reference first.",
    "After careful thought:",
    "Hope this helps!",
    "The instruction asks for a summary of a paragraph.",
    "Overall, length is one factor among many.",
)

verdicts = st.sampled_from(list(Verdict))
prose = st.lists(st.sampled_from(NEUTRAL), max_size=3).map(" ".join)
prose_lines = st.lists(st.sampled_from(NEUTRAL), max_size=3)
newline = st.sampled_from(["\n", "\r\n", "\n\n"])
space = st.sampled_from(["", " ", "  ", "\t"])


@st.composite
def cased(draw: st.DrawFn, word: str) -> str:
    """The word in a random mix of upper and lower case."""
    flips = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
    return "".join(c.upper() if f else c.lower() for c, f in zip(word, flips, strict=True))


@st.composite
def token(draw: st.DrawFn, verdict: Verdict) -> str:
    """One verdict in any tolerated dress: case, quotes, bold, brackets, naming, punctuation."""
    word = draw(cased(verdict.value))
    dress = draw(
        st.sampled_from(["{}", "**{}**", "`{}`", '"{}"', "'{}'", "[{}]", "({})", "__{}__"])
    )
    if verdict is not Verdict.TIE and draw(st.booleans()):
        name = draw(st.sampled_from(["Response", "response", "Assistant", "Output", "Candidate"]))
        word = f"{name} {word}" if draw(st.booleans()) else f"{name} ({word})"
    return draw(space) + dress.format(word) + draw(st.sampled_from(["", ".", "!", " "]))


@st.composite
def surround(draw: st.DrawFn, answer: str) -> str:
    """The answer on its own line(s), with neutral prose lines before and after."""
    before = draw(prose_lines)
    after = draw(prose_lines)
    nl = draw(newline)
    return draw(space) + nl.join([*before, answer, *after]) + draw(space)


@st.composite
def single_text(draw: st.DrawFn, verdict: Verdict) -> str:
    tok = draw(token(verdict))
    answer = draw(
        st.sampled_from(
            [
                "{}",
                "[[{}]]",
                "Final answer: {}",
                "My answer: {}",
                "The answer is {}",
                "Verdict - {}",
                "```\n{}\n```",
                "```text\n{}\n```",
                "{}<|eot_id|>",
            ]
        )
    ).format(tok)
    return draw(surround(answer))


@st.composite
def list_text(draw: st.DrawFn, values: list[Verdict]) -> str:
    items = [draw(token(v)) for v in values]
    parts = [items[0]]
    for item in items[1:]:
        parts.append(draw(space) + "," + draw(space) + item)
    answer = "".join(parts)
    wrap = draw(
        st.sampled_from(["{}", "[{}]", "Answers: {}", "My four answers: {}", "```\n{}\n```"])
    )
    return draw(surround(wrap.format(answer)))


def dims_for(n: int) -> tuple[str, ...]:
    return NAMES[:n]


@st.composite
def choices_text(draw: st.DrawFn, choices: dict[str, str]) -> str:
    """A json-choices answer: any key case, indent, value dress, fence and prose around."""
    keyed = {draw(cased(k)): v for k, v in choices.items()}
    rationale = draw(prose) + " Response A and B differ."
    body = {"rationale": rationale, "choices": keyed}
    text = json.dumps(body, indent=draw(st.sampled_from([None, 2, 3])))
    if draw(st.booleans()):
        text = "```json\n" + text + "\n```"
    return draw(surround(text))


@st.composite
def choice_text(draw: st.DrawFn, verdict: Verdict) -> str:
    value = draw(space) + draw(cased(verdict.value)) + draw(space)
    text = json.dumps({"reason": draw(prose) + " Assistant A is close.", "choice": value})
    if draw(st.booleans()):
        text = "```\n" + text + "\n```"
    return draw(surround(text))


def assert_well_formed(outcome: ParseOutcome, dims: tuple[str, ...]) -> None:
    if outcome.ok:
        assert outcome.verdicts is not None
        assert set(outcome.verdicts) == set(dims)
        assert all(isinstance(v, Verdict) for v in outcome.verdicts.values())
        assert outcome.error is None
    else:
        assert outcome.verdicts is None
        assert isinstance(outcome.error, str)
        assert outcome.error
        assert "\n" not in outcome.error


# --- 1. round trip ----------------------------------------------------------------------


@FAST
@given(st.data(), verdicts)
def test_single_round_trip(data: st.DataObject, verdict: Verdict) -> None:
    text = data.draw(single_text(verdict))
    outcome = parse_answer(text, SINGLE, ("overall",))
    assert outcome.verdicts == {"overall": verdict}, (text, outcome.error)


@FAST
@given(st.data(), st.lists(verdicts, min_size=2, max_size=8))
def test_comma_list_round_trip(data: st.DataObject, values: list[Verdict]) -> None:
    dims = dims_for(len(values))
    text = data.draw(list_text(values))
    outcome = parse_answer(text, LIST, dims)
    assert outcome.verdicts == dict(zip(dims, values, strict=True)), (text, outcome.error)


@FAST
@given(st.data(), st.lists(verdicts, min_size=1, max_size=len(NAMES)))
def test_json_choices_round_trip(data: st.DataObject, values: list[Verdict]) -> None:
    dims = dims_for(len(values))
    order = data.draw(st.permutations(list(zip(dims, values, strict=True))))
    choices = {d: data.draw(space) + data.draw(cased(v.value)) for d, v in order}
    text = data.draw(choices_text(choices))
    outcome = parse_answer(text, CHOICES, dims)
    assert outcome.verdicts == dict(zip(dims, values, strict=True)), (text, outcome.error)
    assert outcome.rationale is not None


@FAST
@given(st.data(), verdicts)
def test_json_choice_round_trip(data: st.DataObject, verdict: Verdict) -> None:
    text = data.draw(choice_text(verdict))
    outcome = parse_answer(text, CHOICE, ("overall",))
    assert outcome.verdicts == {"overall": verdict}, (text, outcome.error)


# --- 2. never raises --------------------------------------------------------------------

ANSWERISH = st.lists(
    st.sampled_from(
        [
            "A", "B", "tie", "a", "b", "Tie", " ", "  ", ",", ".", "\n", ":", "[[", "]]", "[",
            "]", "(", ")", "{", "}", '"', "'", "*", "`", "```", "-", "/", "not", "a good",
            "Response", "Final answer:", "answer is", "I choose", "both", "C", "or",
            '"choices"', '"choice"', '"rationale"', "precision", "overall", "clarity",
            "<|eot_id|>", "<|im_start|>", "\\", "\t", "é", "🙂",
        ]
    ),
    max_size=40,
).map("".join)  # fmt: skip


@FAST
@given(st.sampled_from(FORMATS), st.integers(1, 6), st.one_of(st.text(), ANSWERISH))
def test_arbitrary_text_never_raises(answer: AnswerFormat, n: int, text: str) -> None:
    single = answer.kind in (AnswerKind.SINGLE, AnswerKind.JSON_CHOICE)
    dims = dims_for(1 if single else n)
    assert_well_formed(parse_answer(text, answer, dims), dims)


@FAST
@given(st.text(max_size=50))
def test_arbitrary_text_never_raises_with_odd_dimensions(text: str) -> None:
    for answer in FORMATS:
        for dims in [(), ("a",), ("tie", "b"), ("Overall", "overall ")]:
            outcome = parse_answer(text, answer, dims)
            assert outcome.ok or outcome.error


@FAST
@given(st.lists(st.tuples(st.text(max_size=6), st.floats(allow_nan=True)), max_size=8))
def test_token_probabilities_are_a_distribution_or_none(
    alternatives: list[tuple[str, float]],
) -> None:
    probs = verdict_token_probabilities(alternatives)
    if probs is not None:
        assert probs
        assert abs(sum(probs.values()) - 1.0) < 1e-9
        assert all(0.0 <= p <= 1.0 for p in probs.values())


# --- 3. wrong count ---------------------------------------------------------------------


@FAST
@given(st.data(), st.integers(1, 8), st.integers(1, 8))
def test_comma_list_with_wrong_count_never_parses(data: st.DataObject, n: int, k: int) -> None:
    if n == k:
        k = n + 1
    values = data.draw(st.lists(verdicts, min_size=k, max_size=k))
    text = data.draw(list_text(values)) if k > 1 else data.draw(single_text(values[0]))
    outcome = parse_answer(text, LIST, dims_for(n))
    assert not outcome.ok, text
    assert outcome.error


# --- 4. JSON aspects --------------------------------------------------------------------


@FAST
@given(st.data(), st.lists(verdicts, min_size=1, max_size=6), st.booleans())
def test_json_with_an_extra_or_missing_aspect_never_parses(
    data: st.DataObject, values: list[Verdict], extra: bool
) -> None:
    dims = dims_for(len(values))
    choices = {d: v.value for d, v in zip(dims, values, strict=True)}
    if extra:
        choices[data.draw(st.sampled_from(OTHER_NAMES))] = data.draw(verdicts).value
    else:
        del choices[data.draw(st.sampled_from(dims))]
    text = data.draw(choices_text(choices))
    outcome = parse_answer(text, CHOICES, dims)
    assert not outcome.ok, text
    assert "aspect" in (outcome.error or ""), outcome.error


# --- 5. case and whitespace -------------------------------------------------------------

ASCII_TEXT = st.one_of(
    st.text(alphabet=string.printable, max_size=80),
    ANSWERISH.filter(lambda t: t.isascii()),
)


def same(one: ParseOutcome, two: ParseOutcome) -> bool:
    return one.ok == two.ok and one.verdicts == two.verdicts


@FAST
@given(st.sampled_from([SINGLE, LIST]), st.integers(1, 4), ASCII_TEXT)
def test_letter_case_never_matters_in_text_answers(answer: AnswerFormat, n: int, text: str) -> None:
    dims = dims_for(1 if answer is SINGLE else n)
    base = parse_answer(text, answer, dims)
    for variant in (text.upper(), text.lower(), text.swapcase()):
        assert same(parse_answer(variant, answer, dims), base), variant


@FAST
@given(st.sampled_from([SINGLE, LIST]), st.integers(1, 4), ASCII_TEXT)
def test_surrounding_whitespace_and_line_endings_never_matter(
    answer: AnswerFormat, n: int, text: str
) -> None:
    dims = dims_for(1 if answer is SINGLE else n)
    base = parse_answer(text, answer, dims)
    for variant in (f"  \n\t{text}\n \n", text.replace("\n", "\r\n")):
        assert same(parse_answer(variant, answer, dims), base), variant


@FAST
@given(st.data(), st.lists(verdicts, min_size=1, max_size=6))
def test_case_and_spacing_never_matter_in_generated_answers(
    data: st.DataObject, values: list[Verdict]
) -> None:
    dims = dims_for(len(values))
    kind = data.draw(st.sampled_from(["list", "choices"] + (["single"] * (len(values) == 1))))
    if kind == "single":
        answer, text = SINGLE, data.draw(single_text(values[0]))
    elif kind == "list":
        answer = LIST
        text = data.draw(list_text(values)) if len(values) > 1 else values[0].value
    else:
        answer = CHOICES
        text = data.draw(choices_text({d: v.value for d, v in zip(dims, values, strict=True)}))
    expected = dict(zip(dims, values, strict=True))
    variants = [text, text.upper(), text.lower(), text.swapcase()]
    if answer is not CHOICES:
        variants.append(text.replace(" ", "  ").replace(",", " , "))
    for variant in variants:
        assert parse_answer(variant, answer, dims).verdicts == expected, variant


# Words that start a pattern, runs of what two parts of a pattern both accept, and ends
# that make the match fail: the shapes that made the parser backtrack (see
# tests/hostile/test_answer_parsing.py). A run of 20,000 took the old parser up to 25 s.
STARTS = (
    *("Final answer:", "The better response is", "I would choose", "Response", "[["),
    *("precision:", "x, precision:", "1.", '{"choice": ', '{"a": ["', "A, B,", "x? "),
)
RUNS = (" ", "\t", "\n", "\u00a0", "*", "(", '\\"', "a, ", "answer ", "<|x|>", "- ", ": ")
ENDS = ("", "?", "1", "x", "?, A, B", "]]", '"}', ": A", "\n?")


@settings(max_examples=60, deadline=2000)
@given(st.sampled_from(FORMATS), st.sampled_from(STARTS), st.sampled_from(RUNS),
       st.sampled_from(ENDS))  # fmt: skip
def test_hostile_answers_are_read_quickly(
    answer: AnswerFormat, start: str, run: str, end: str
) -> None:
    """Any of them, 20,000 repetitions long, is read within the deadline (a few
    milliseconds linear; the old parser's quadratic paths took seconds)."""
    text = start + run * 20_000 + end
    outcome = parse_answer(text, answer, NAMES[:4] if answer is LIST else NAMES[:1])
    assert outcome.ok or outcome.error
