"""The request sent to a judge for one pair in one order, as plain data.

The same body goes to a live server, into an OpenAI Batch input file, and into the
request hash stored with the result, so all three always agree.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from desktop.domain.profiles import ModelProfile
from desktop.domain.rubric import AnswerKind, Rubric

TOP_LOGPROBS = 5


@dataclass(frozen=True)
class ModelRequest:
    api_mode: str  # "chat" or "completions"
    model: str
    temperature: float
    max_tokens: int
    messages: tuple[dict[str, str], ...] = ()
    prompt: str | None = None
    response_format: dict[str, object] | None = None
    logprobs: bool = False
    grammar: str | None = None  # GBNF, for servers that take one (llama.cpp's)

    def body(self) -> dict[str, object]:
        """The JSON body of the HTTP request, exactly as sent."""
        body: dict[str, object] = {
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self.api_mode == "chat":
            body["messages"] = [dict(m) for m in self.messages]
            if self.logprobs:
                body["logprobs"] = True
                body["top_logprobs"] = TOP_LOGPROBS
        else:
            body["prompt"] = self.prompt
            if self.logprobs:
                body["logprobs"] = TOP_LOGPROBS
        if self.response_format is not None:
            body["response_format"] = self.response_format
        if self.grammar is not None:
            body["grammar"] = self.grammar
        return body

    def hash(self) -> str:
        canonical = json.dumps(self.body(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def asks_logprobs(profile: ModelProfile, rubric: Rubric) -> bool:
    """Whether a judge request asks for logprobs: where the profile wants them and the
    answer token's probabilities are read (a verdict's confidence, an m/M preference)."""
    return profile.logprobs and rubric.answer.reads_logprobs


# One verdict as the rubrics spell it; "Tie" too, so a model that capitalises is not pushed
# off its own answer. The parser reads either.
_VERDICT_RULE = 'verdict ::= "A" | "B" | "tie" | "Tie"'


def answer_grammar(rubric: Rubric) -> str | None:
    """A GBNF grammar that admits only a well-formed free-text answer: one verdict
    (``single``), one per dimension separated by ", " (``comma-list``, as the HREF
    examples write it), or an explanation and then ``[[A]]``, ``[[B]]`` or ``[[C]]``
    (``bracketed``); AlpacaEval's ``m`` or ``M`` (after an explanation where the tokens
    leave room for one) and its ranking of model_1 and model_2, ranks 1 and 2 in either
    order. None for JSON answers, which a schema constrains instead."""
    kind = rubric.answer.kind
    if kind is AnswerKind.BRACKETED:
        return bracketed_grammar(rubric.decoding.max_tokens)
    if kind is AnswerKind.IDENTIFIER:
        return identifier_grammar(rubric.decoding.max_tokens)
    if kind is AnswerKind.RANKING:
        return RANKING_GRAMMAR
    if kind is AnswerKind.SINGLE:
        return f"root ::= verdict\n{_VERDICT_RULE}\n"
    if kind is AnswerKind.COMMA_LIST:
        items = ' ", " '.join(["verdict"] * len(rubric.dimensions))
        return f"root ::= {items}\n{_VERDICT_RULE}\n"
    return None


def bracketed_grammar(max_tokens: int) -> str:
    """FastChat's pairwise answer: an explanation with no ``[[`` in it, then one marker,
    and nothing after. The explanation is cut at half ``max_tokens`` characters, so the
    marker comes before the token limit would cut the answer off (a token is a character
    or more of ordinary text)."""
    reason = max(0, (max_tokens - 8) // 2)
    return (
        f'root ::= reason "[[" [ABC] "]]"\nreason ::= reason-char{{0,{reason}}}\n'
        'reason-char ::= [^[] | "[" [^[]\n'
    )


def identifier_grammar(max_tokens: int) -> str:
    """``m`` or ``M``; where ``max_tokens`` leaves room, an explanation first (the
    chain-of-thought template's), cut at half of them in characters, then a new line."""
    reason = max(0, (max_tokens - 2) // 2)
    if reason == 0:
        return 'root ::= "m" | "M"\n'
    return f'root ::= (reason "\\n")? ("m" | "M")\nreason ::= [^\\n]{{0,{reason}}}\n'


def _ranked(first: tuple[int, int], second: tuple[int, int]) -> str:
    """One ranking as a GBNF string: two (model, rank) items in this order."""
    one, two = (f"{{'model': 'model_{m}', 'rank': {r}}}" for m, r in (first, second))
    return f'"[{one}, {two}]"'


#: AlpacaEval's ranking: the two models with ranks 1 and 2, in model order or rank order.
RANKING_GRAMMAR = (
    "root ::= "
    + " | ".join(_ranked(a, b) for a, b in (((1, 1), (2, 2)), ((1, 2), (2, 1)), ((2, 1), (1, 2))))
    + "\n"
)


def answer_schema(rubric: Rubric) -> dict[str, object] | None:
    """A JSON schema for a JSON answer format, derived from the rubric's dimensions."""
    answer = rubric.answer
    reason = answer.reason_key
    if answer.kind is AnswerKind.JSON_CHOICES:
        inner = {
            "type": "object",
            "properties": {
                d: {"type": "string", "enum": ["A", "B", "tie"]} for d in rubric.dimensions
            },
            "required": list(rubric.dimensions),
            "additionalProperties": False,
        }
        props: dict[str, object] = {answer.choices_key: inner}
    elif answer.kind is AnswerKind.JSON_CHOICE:
        props = {answer.choice_key: {"type": "string", "enum": ["A", "B", "Tie"]}}
    else:
        return None
    if reason:
        props = {reason: {"type": "string"}, **props}  # reason first: think, then choose
    return {
        "type": "object",
        "properties": props,
        "required": list(props),
        "additionalProperties": False,
    }


def response_format(rubric: Rubric, mode: str) -> dict[str, object] | None:
    """The ``response_format`` for a structured-output mode, or None (mode off, or the
    rubric's answer is not JSON)."""
    schema = answer_schema(rubric)
    if schema is None or mode == "off":
        return None
    if mode == "json_schema":
        name = re.sub(r"[^A-Za-z0-9_-]", "_", rubric.name)[:64]
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    raise ValueError(f"unknown structured-output mode {mode!r}")
