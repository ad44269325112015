"""Examples for answer parsing: every tolerated form, and every way an answer fails.

A failure must be a failure with a one-line reason, never a guess and never a silent tie.
"""

from __future__ import annotations

import json
import math
import timeit

import pytest

from desktop.domain.parsing import ParseOutcome, parse_answer, verdict_token_probabilities
from desktop.domain.rubric import AnswerFormat, AnswerKind
from desktop.domain.verdicts import Verdict

A, B, T = Verdict.A, Verdict.B, Verdict.TIE

SINGLE = AnswerFormat(AnswerKind.SINGLE)
LIST = AnswerFormat(AnswerKind.COMMA_LIST)
CHOICES = AnswerFormat(AnswerKind.JSON_CHOICES, reason_key="rationale")
CHOICE = AnswerFormat(AnswerKind.JSON_CHOICE, reason_key="reason")

OVERALL = ("overall",)
HREF4 = ("precision", "correctness", "format", "overall")
ASPECTS = ("engagement", "clarity", "helpfulness", "factuality", "depth", "safety")


def single(text: str) -> ParseOutcome:
    return parse_answer(text, SINGLE, OVERALL)


def four(text: str) -> ParseOutcome:
    return parse_answer(text, LIST, HREF4)


def assert_failed(outcome: ParseOutcome, fragment: str) -> None:
    assert not outcome.ok, outcome
    assert outcome.verdicts is None
    assert outcome.error is not None
    assert "\n" not in outcome.error
    assert fragment in outcome.error, outcome.error


# --- single ---------------------------------------------------------------------------

SINGLE_OK = [
    # bare, any case, whitespace, punctuation
    ("A", A),
    ("B", B),
    ("tie", T),
    ("a", A),
    ("b", B),
    ("Tie", T),
    ("TIE", T),
    ("  B  \n", B),
    ("tie.", T),
    ("A!", A),
    ("\n\nB\n\n", B),
    ("\tTie\t", T),
    # decoration
    ("**A**", A),
    ("__B__", B),
    ("`tie`", T),
    ('"A"', A),
    ("'b'", B),
    ("“tie”", T),
    ("[[A]]", A),
    ("[[ tie ]]", T),
    ("[B]", B),
    ("(a)", A),
    ("```\nB\n```", B),
    ("```text\ntie\n```", T),
    ("> A", A),
    ("- B", B),
    ("# tie", T),
    ("A<|eot_id|>", A),
    ("B<|im_end|>", B),
    ("tie</s>", T),
    # naming
    ("Response A", A),
    ("response b.", B),
    ("Assistant B", B),
    ("Output (a)", A),
    ("Output (B)", B),
    ("**Response B**", B),
    ("Candidate A", A),
    # labelled answers in prose
    ("My answer: B", B),
    ("Final answer: A", A),
    ("final verdict - tie", T),
    ("Verdict: [[B]]", B),
    ("The answer is B.", B),
    ("The answer is a tie.", T),
    ("The better response is Response A.", A),
    ("I choose B.", B),
    ("I'd go with a.", A),
    ("I prefer A over B.", A),
    ("Answer: A, because it is concise.", A),
    ("Answer:\nB", B),
    # prose with exactly one verdict
    ("It's a tie.", T),
    ("I think B is better.", B),
    ("A good answer would be B.", B),
    ("Response A is better.", A),
    ("response a provides the requested type.", A),
    ("Both are equally correct, so tie.", T),
    ("A is the better response.", A),
    ("A tie is fair here.", T),
    ("a tie", T),
    ("**Final Answer:** B", B),
    ("**Final Answer**: tie", T),
    ('{"choice": "A", "reason": "B is verbose"}', A),
    ("Option B", B),
    # explicit statements outrank prose mentions
    ("Response A is concise while Response B rambles.\n\nA", A),
    ("B\n\nExplanation: Response A adds unrelated history, Response B is focused.", B),
    ("Response B is longer, but the human reference favours brevity. [[A]]", A),
    ("## Which is best, A, B, or tie?\nB", B),
    ("A\nA\nA\nA", A),  # a small model repeating itself agrees with itself
]


@pytest.mark.parametrize(("text", "expected"), SINGLE_OK)
def test_single_tolerated_forms(text: str, expected: Verdict) -> None:
    outcome = single(text)
    assert outcome.ok, outcome.error
    assert outcome.verdicts == {"overall": expected}
    assert outcome.error is None
    assert outcome.rationale is None


SINGLE_FAIL = [
    # empty
    ("", "empty answer"),
    ("   \n\t ", "empty answer"),
    ("<|eot_id|>", "empty answer"),
    # invalid values
    ("C", "invalid verdict 'C'"),
    ("both", "invalid verdict 'both'"),
    ("Neither.", "invalid verdict 'Neither'"),
    ("**Both**", "invalid verdict 'Both'"),
    ("Answer: C", "invalid verdict 'C'"),
    ("[[C]]", "invalid verdict 'C'"),
    ("[[A or B]]", "invalid verdict 'A or B'"),
    ("N/A", "invalid verdict 'N/A'"),
    # ambiguous: two verdicts with nothing to prefer one
    ("A or B", "ambiguous"),
    ("A ... actually B", "ambiguous"),
    ("A, B", "ambiguous"),
    ("A/B", "invalid verdict 'A/B'"),
    ("B is better than A", "ambiguous"),
    ("Response A is good; Response B is good too. Tie?", "ambiguous"),
    ("Final answer: A\nB", "ambiguous answer: it states A and B"),
    ("[[A]] [[B]]", "ambiguous"),
    ("A\nB", "ambiguous"),
    ("Answer: A or B", "ambiguous"),
    ("Select the response A or B that you prefer, or select tie.", "ambiguous"),
    # negation is never read as the other verdict
    ("The answer is not A", "negated"),
    ("It is not a tie.", "negated"),
    ("Neither A nor B", "negated"),
    ("B isn't better", "negated"),
    ("Response B is not as good.", "negated"),
    ("There is no clear winner, B maybe", "negated"),
    # "A" the article is not verdict A
    ("A good answer would be concise.", "no verdict"),
    ("A more precise response would help.", "no verdict"),
    ("I should output a single letter.", "no verdict"),
    ("A GOOD ANSWER WOULD BE CONCISE.", "no verdict"),
    # no verdict at all
    ("Both responses are good.", "no verdict"),
    ("I cannot decide.", "no verdict"),
    ("The U.S.A. and vitamin-B are unrelated.", "no verdict"),
]


@pytest.mark.parametrize(("text", "fragment"), SINGLE_FAIL)
def test_single_failures(text: str, fragment: str) -> None:
    assert_failed(single(text), fragment)


def test_single_with_wrong_dimension_count_fails_instead_of_raising() -> None:
    assert_failed(parse_answer("A", SINGLE, HREF4), "one verdict")
    assert_failed(parse_answer("A", SINGLE, ()), "no dimensions")


# --- comma-list -----------------------------------------------------------------------

LIST_OK = [
    ("A, tie, B, A", (A, T, B, A)),
    ("a,TIE,b,a.", (A, T, B, A)),
    ("  A ,tie ,  B,A  ", (A, T, B, A)),
    ("[A, tie, B, A]", (A, T, B, A)),
    ("(A, tie, B, A)", (A, T, B, A)),
    ('"A", "tie", "B", "A"', (A, T, B, A)),
    ("**A**, **tie**, **B**, **A**", (A, T, B, A)),
    ("`B`, `tie`, `tie`, `A`", (B, T, T, A)),
    ("```\ntie, B, tie, B\n```", (T, B, T, B)),
    ("My answers: A, tie, B, A", (A, T, B, A)),
    ("Based on the comparison, my answers are: A, tie, B, A", (A, T, B, A)),
    ("I'd say A, tie, B, A", (A, T, B, A)),
    ("A, tie, B, A. Response A is more precise, B is verbose.", (A, T, B, A)),
    ("A, tie, B, A because A follows the reference.", (A, T, B, A)),
    ("Response A, tie, Response B, Response A", (A, T, B, A)),
    ("B, tie, tie, A<|eot_id|>", (B, T, T, A)),
    ("Precision: A, Correctness: tie, Format: B, Overall: A", (A, T, B, A)),
    ("overall: A, format: B, correctness: tie, precision: A", (A, T, B, A)),
    ("Precision: A\nCorrectness: tie\nFormat: B\nOverall: A", (A, T, B, A)),
    ("- **Precision**: A\n- **Correctness**: tie\n- **Format**: B\n- **Overall**: A", (A, T, B, A)),
    # the question echoed, then the answer: the enumeration of options is not a list
    ("# Which is best with Precision, Correctness, Format, and Overall: A, B, or tie?\n"
     "A, tie, B, A", (A, T, B, A)),
    # the same list repeated by a small model
    ("A, tie, B, A\nA, tie, B, A\nA, tie, B, A", (A, T, B, A)),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), LIST_OK)
def test_comma_list_tolerated_forms(text: str, expected: tuple[Verdict, ...]) -> None:
    outcome = four(text)
    assert outcome.ok, outcome.error
    assert outcome.verdicts == dict(zip(HREF4, expected, strict=True))


LIST_FAIL = [
    ("", "empty answer"),
    ("A, tie, B", "expected 4 verdicts, found 3"),
    ("A, tie, B, A, B", "expected 4 verdicts, found 5"),
    ("A, B", "expected 4 verdicts, found 2"),
    ("A", "expected 4 verdicts, found 1"),
    ("[[tie]]", "expected 4 verdicts, found 1"),
    ("A, C, B, tie", "invalid verdict 'C'"),
    ("A, both, B, tie", "invalid verdict 'both'"),
    ("B, tie, tie, A\n\n# Example\ntie, B, tie, B", "different verdict lists"),
    ("Which is best with Precision, Correctness, Format, and Overall: A, B, or tie?", "ambiguous"),
    ("I have no idea.", "no verdicts found (expected 4"),
    ("A\ntie\nB\nA", "ambiguous"),  # one per line is not a list: could be repetition
    ("Precision: A\nCorrectness: tie\nFormat: B", "missing aspect 'overall'"),
    ("Precision: A\nCorrectness: tie\nFormat: C\nOverall: A", "invalid verdict 'C'"),
    ("Precision: A, Humor: tie, Format: B, Overall: A", "unknown aspect 'Humor'"),
    ("Precision: A, Precision: B, Format: B, Overall: A", "given twice"),
]


@pytest.mark.parametrize(("text", "fragment"), LIST_FAIL)
def test_comma_list_failures(text: str, fragment: str) -> None:
    assert_failed(four(text), fragment)


def test_comma_list_with_one_dimension_reads_a_single_verdict() -> None:
    assert parse_answer("Final answer: B", LIST, OVERALL).verdicts == {"overall": B}
    assert_failed(parse_answer("A, B", LIST, OVERALL), "expected 1 verdict")


# --- json-choices ---------------------------------------------------------------------


def choices_json(choices: dict[str, str], rationale: str = "A is friendlier.") -> str:
    return json.dumps({"rationale": rationale, "choices": choices})


GOOD = {
    "engagement": "A",
    "clarity": "B",
    "helpfulness": "tie",
    "factuality": "tie",
    "depth": "A",
    "safety": "tie",
}
GOOD_VERDICTS = {k: Verdict.from_token(v) for k, v in GOOD.items()}

CHOICES_OK = [
    choices_json(GOOD),
    "```json\n" + choices_json(GOOD) + "\n```",
    "Here is my assessment:\n```json\n" + choices_json(GOOD) + "\n```\nHope this helps! {:",
    choices_json(GOOD) + "\n\nNote: Response B is shorter.",
    choices_json({k.upper(): v.lower() for k, v in GOOD.items()}),
    choices_json({k.title(): f" {v.upper()} " for k, v in GOOD.items()}),
    choices_json({k: f"[{v}]" for k, v in GOOD.items()}),
    json.dumps({"rationale": "x", "choices": GOOD}, indent=3),
    json.dumps({"choices": GOOD, "rationale": "x"}),  # order does not matter
    # the same answer twice (a small model repeating itself)
    choices_json(GOOD) + "\n" + choices_json(GOOD),
    # a complete answer after a broken draft: only answers that give verdicts compete
    choices_json({**GOOD, "safety": "[A or B or tie]"}) + "\nCorrected:\n" + choices_json(GOOD),
    # a flat object with the aspects at the top level
    json.dumps({"rationale": "x", **GOOD}),
]


@pytest.mark.parametrize("text", CHOICES_OK)
def test_json_choices_tolerated_forms(text: str) -> None:
    outcome = parse_answer(text, CHOICES, ASPECTS)
    assert outcome.ok, outcome.error
    assert outcome.verdicts == GOOD_VERDICTS
    assert outcome.rationale is not None


def test_json_choices_keeps_the_rationale_and_the_rubric_dimension_names() -> None:
    text = choices_json({k.upper(): v for k, v in GOOD.items()}, rationale="B is clearer.")
    outcome = parse_answer(text, CHOICES, ASPECTS)
    assert outcome.rationale == "B is clearer."
    assert outcome.verdicts is not None
    assert list(outcome.verdicts) == list(ASPECTS) or set(outcome.verdicts) == set(ASPECTS)


def test_json_choices_honours_custom_keys() -> None:
    fmt = AnswerFormat(AnswerKind.JSON_CHOICES, choices_key="scores", reason_key="why")
    text = json.dumps({"why": "because", "scores": {"clarity": "B"}})
    outcome = parse_answer(text, fmt, ("clarity",))
    assert outcome.verdicts == {"clarity": B}
    assert outcome.rationale == "because"


CHOICES_FAIL = [
    ("", "empty answer"),
    ("no json here, Response A is better", "no JSON object found"),
    (choices_json({**GOOD, "humor": "A"}), "unknown aspect 'humor'"),
    (choices_json({k: v for k, v in GOOD.items() if k != "safety"}), "missing aspect 'safety'"),
    (choices_json({**GOOD, "Safety": "A"}), "given twice"),
    (choices_json({**GOOD, "depth": "C"}), "invalid verdict 'C' for aspect 'depth'"),
    (choices_json({**GOOD, "depth": "both"}), "invalid verdict 'both'"),
    (choices_json({**GOOD, "depth": "A or B"}), "invalid verdict 'A or B'"),
    (choices_json({**GOOD, "depth": ""}), "invalid verdict ''"),
    (json.dumps({"rationale": "x", "choices": {**GOOD, "depth": 1}}), "invalid verdict '1'"),
    (json.dumps({"rationale": "x", "choices": {**GOOD, "depth": None}}), "invalid verdict"),
    (json.dumps({"rationale": "x", "choices": ["A", "B"]}), "is not an object"),
    (json.dumps({"rationale": "only prose"}), "no 'choices' object"),
    (choices_json(GOOD)[:-25], "JSON is cut off"),
    ('{"rationale": "A is', "JSON is cut off"),
    ("{'rationale': 'x', 'choices': {'engagement': 'A'}}", "JSON does not parse"),
    ('{"rationale": "x", "choices": {"engagement": "A",}}', "JSON does not parse"),
    (choices_json(GOOD) + "\n" + choices_json({**GOOD, "depth": "B"}), "disagree"),
    # the template echoed back unfilled
    (choices_json(dict.fromkeys(GOOD, "[A or B or tie]"), "[your rationale]"), "invalid verdict"),
]


@pytest.mark.parametrize(("text", "fragment"), CHOICES_FAIL)
def test_json_choices_failures(text: str, fragment: str) -> None:
    assert_failed(parse_answer(text, CHOICES, ASPECTS), fragment)


def test_a_failed_json_answer_still_reports_its_rationale() -> None:
    outcome = parse_answer(choices_json({**GOOD, "depth": "C"}, "why"), CHOICES, ASPECTS)
    assert not outcome.ok
    assert outcome.rationale == "why"


# --- json-choice ----------------------------------------------------------------------

CHOICE_OK = [
    ('{"reason": "Assistant A is closer to the text.", "choice": "A"}', A),
    ('{"reason": "B fits the text.", "choice": "B"}', B),
    ('{"reason": "Both are acceptable and correct.", "choice": "Tie"}', T),
    ('{"reason": "x", "choice": "tie"}', T),
    ('{"reason": "x", "choice": "TIE"}', T),
    ('{"reason": "x", "Choice": "a"}', A),
    ('{"reason": "x", "choice": "Assistant B"}', B),
    ('```\n{"reason": "x", "choice": "A"}\n```', A),
    ('Sure! {"reason": "B is {better}", "choice": "B"} Let me know.', B),
    ('{"reason": "The quote \\"A}\\" is odd", "choice": "B"}', B),
    ('{"choice": "A", "reason": "x"}', A),
]


@pytest.mark.parametrize(("text", "expected"), CHOICE_OK)
def test_json_choice_tolerated_forms(text: str, expected: Verdict) -> None:
    outcome = parse_answer(text, CHOICE, OVERALL)
    assert outcome.ok, outcome.error
    assert outcome.verdicts == {"overall": expected}
    assert outcome.rationale is not None


CHOICE_FAIL = [
    ("A", "no JSON object found"),
    ('{"reason": "Both are fine.", "choice": "Tie"', "JSON is cut off"),
    ('{"reason": "Both are fine.", "cho', "JSON is cut off"),
    ("{'reason': 'x', 'choice': 'A'}", "JSON does not parse"),
    ('{"reason": "x"}', "no 'choice' key"),
    ('{"reason": "x", "choice": "C"}', "invalid verdict 'C'"),
    ('{"reason": "x", "choice": "Both"}', "invalid verdict 'Both'"),
    ('{"reason": "x", "choice": ["A"]}', "invalid verdict"),
    ('{"reason": "x", "choice": "A"}\n{"reason": "y", "choice": "B"}', "disagree"),
]


@pytest.mark.parametrize(("text", "fragment"), CHOICE_FAIL)
def test_json_choice_failures(text: str, fragment: str) -> None:
    assert_failed(parse_answer(text, CHOICE, OVERALL), fragment)


def test_json_choice_needs_exactly_one_dimension() -> None:
    assert_failed(parse_answer('{"choice": "A"}', CHOICE, HREF4), "one verdict")


# --- what a small local model really writes --------------------------------------------

SMALL_MODEL = [
    # rambling, then a clear final line
    (
        SINGLE,
        OVERALL,
        "Response A directly answers the question. Response B talks about the history of "
        "the rifle which is not relevant.\n\nTherefore the better response is A.",
        {"overall": A},
    ),
    # the few-shot examples echoed with their answers: two different bare answers
    (
        SINGLE,
        OVERALL,
        "## Which is best, A, B, or tie?\nA\n\n# Example:\n## Instruction:\nGiven a table"
        "\n## Which is best, A, B, or tie?\nB",
        None,
    ),
    # repeated text
    (SINGLE, OVERALL, "tie\ntie\ntie\ntie\ntie\ntie", {"overall": T}),
    # the answer, then a truncated explanation
    (SINGLE, OVERALL, "B\n\nResponse B is better because Response A", {"overall": B}),
    # only prose mentioning both responses
    (
        SINGLE,
        OVERALL,
        "Response A is concise. Response B is detailed. Both have merits.",
        None,
    ),
    # a chat template tail
    (SINGLE, OVERALL, "A<|eot_id|><|start_header_id|>assistant<|end_header_id|>B", {"overall": A}),
    (SINGLE, OVERALL, "<|im_start|>assistant\nB<|im_end|>\n<|im_start|>user\nA", {"overall": B}),
    # four answers, then some rambling with commas
    (
        LIST,
        HREF4,
        "A, tie, tie, A\n\nExplanation: A is more precise, both are correct, both are "
        "readable, so A overall.",
        dict(zip(HREF4, (A, T, T, A), strict=True)),
    ),
    # four answers spread over a numbered list
    (
        LIST,
        HREF4,
        "1. Precision: B\n2. Correctness: tie\n3. Format: tie\n4. Overall: B",
        dict(zip(HREF4, (B, T, T, B), strict=True)),
    ),
    # the JSON cut off by max_tokens
    (
        CHOICES,
        ASPECTS,
        '```json\n{\n   "rationale": "Response A is more engaging and gives more depth, while'
        " Response B is",
        None,
    ),
    # JSON, then the model keeps talking
    (
        CHOICE,
        OVERALL,
        '{"reason": "Assistant A matches the text.", "choice": "A"}\n\nI hope this helps! '
        "Let me know if you need anything else. {",
        {"overall": A},
    ),
    # the JSON template echoed, unfilled
    (
        CHOICES,
        ASPECTS,
        '```\n{\n   "rationale": "[your rationale]",\n   "choices": {\n     "engagement": '
        '"[A or B or tie]",\n     "clarity": "[A or B or tie]"\n   }\n}\n```',
        None,
    ),
]


@pytest.mark.parametrize(("answer", "dims", "text", "expected"), SMALL_MODEL)
def test_real_looking_small_model_outputs(
    answer: AnswerFormat, dims: tuple[str, ...], text: str, expected: dict[str, Verdict] | None
) -> None:
    outcome = parse_answer(text, answer, dims)
    if expected is None:
        assert not outcome.ok
        assert outcome.error
    else:
        assert outcome.ok, outcome.error
        assert outcome.verdicts == expected


def test_the_seed_few_shot_answers_parse() -> None:
    """The answers the seed prompts show their models must read as they are meant."""
    assert four("B, tie, tie, A").verdicts == dict(zip(HREF4, (B, T, T, A), strict=True))
    assert four("tie, B, tie, B").verdicts == dict(zip(HREF4, (T, B, T, B), strict=True))
    assert parse_answer("tie", SINGLE, ("correctness",)).verdicts == {"correctness": T}
    seed4 = (
        '{"reason": "Both answers are acceptable and correct. They should be a tie.",'
        ' "choice": "Tie"}'
    )
    outcome = parse_answer(seed4, CHOICE, OVERALL)
    assert outcome.verdicts == {"overall": T}
    assert outcome.rationale == "Both answers are acceptable and correct. They should be a tie."


def test_outcome_ok_needs_verdicts_and_no_error() -> None:
    assert ParseOutcome({"overall": A}, None).ok
    assert not ParseOutcome(None, "bad").ok
    assert not ParseOutcome({"overall": A}, "bad").ok


def test_a_bare_verdict_parses_in_microseconds() -> None:
    """Parsing runs for every judged pair; the common one-token answer must be cheap."""
    runs = 2000
    seconds = min(timeit.repeat(lambda: single("A"), number=runs, repeat=3)) / runs
    assert seconds < 50e-6  # measured about 1 µs; generous for slow CI machines


# --- token probabilities ----------------------------------------------------------------


def test_probabilities_add_variants_and_normalise() -> None:
    probs = verdict_token_probabilities(
        [(" A", math.log(0.5)), ("A", math.log(0.1)), ("B", math.log(0.2)), ("Tie", math.log(0.1))]
    )
    assert probs is not None
    assert probs[A] == pytest.approx(0.6 / 0.9)
    assert probs[B] == pytest.approx(0.2 / 0.9)
    assert probs[T] == pytest.approx(0.1 / 0.9)
    assert sum(probs.values()) == pytest.approx(1.0)


def test_probabilities_ignore_other_tokens_and_count_tie_prefixes() -> None:
    probs = verdict_token_probabilities(
        [("ti", -0.1), ("TIE", -3.0), (" tie", -4.0), ("The", -0.5), ("[[", -1.0), ("b", -2.0)]
    )
    assert probs is not None
    assert set(probs) == {T, B}
    tie_mass = math.exp(-0.1) + math.exp(-3.0) + math.exp(-4.0)
    assert probs[T] == pytest.approx(tie_mass / (tie_mass + math.exp(-2.0)))


def test_probabilities_are_none_without_a_verdict_token() -> None:
    assert verdict_token_probabilities([]) is None
    assert verdict_token_probabilities([("The", -0.1), ("I", -1.0), ("\n", -2.0)]) is None
    assert verdict_token_probabilities([("A", float("-inf"))]) is None
    assert verdict_token_probabilities([("A", float("nan"))]) is None


def test_probabilities_are_stable_for_very_negative_logprobs() -> None:
    probs = verdict_token_probabilities([("A", -1000.0), ("B", -1001.0)])
    assert probs is not None
    assert probs[A] == pytest.approx(1 / (1 + math.exp(-1)))
