"""Import an AlpacaEval/HREF-style plain-text judge template as a rubric.

Such templates mark pair data with ``{instruction}``/``{output_1}``-style, ``{$instruction}``
-style or bare positional ``{}`` placeholders. Those become Jinja variables; every other
character stays literal, even text that looks like Jinja, so the imported rubric sends
exactly the published prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from desktop.domain.chat_formats import split_chat_markup
from desktop.domain.errors import RubricError
from desktop.domain.render import check_rubric
from desktop.domain.rubric import AnswerFormat, AnswerKind, Decoding, Message, Rubric

#: HREF's default system prompt, which its templates' {system_message} slot receives.
HREF_SYSTEM_PROMPT = (
    "You are a helpful assistant that helps us rate an AI model's responses to instructions."
)

NAMED_PLACEHOLDERS = {
    "{instruction}": "instruction",
    "{output_1}": "response_a",
    "{output_2}": "response_b",
    "{output_human}": "reference",
    "{$instruction}": "instruction",
    "{$candidate_A}": "response_a",
    "{$candidate_B}": "response_b",
}
POSITIONAL = {
    3: ("instruction", "response_a", "response_b"),
    4: ("source", "instruction", "response_a", "response_b"),
}
_TOKEN = re.compile(
    "|".join(re.escape(p) for p in [*NAMED_PLACEHOLDERS, "{system_message}", "{}"])
    + r"|\x00FEWSHOT\x00"
)
_FEWSHOT = re.compile(r"\{example_begin\}(.*?)\{example_end\}", re.DOTALL)
_UNKNOWN_SLOT = re.compile(r"\{\$?[A-Za-z_]\w*\}")
_JINJA_START = ("{{", "{%", "{#")
_ENDRAW = re.compile(r"\{%(?=[-+]?\s*endraw)")
_FEWSHOT_MARK = "\x00FEWSHOT\x00"


def rubric_from_template(
    text: str,
    *,
    name: str,
    title: str | None = None,
    description: str | None = None,
    dimensions: tuple[str, ...] | list[str] | None = None,
    answer_kind: str | AnswerKind | None = None,
) -> Rubric:
    """A rubric from template text; answer format and dimensions are inferred when not
    given, ``requires`` always from the placeholders used. Line endings become "\\n", as
    Jinja would make them anyway."""
    if "\x00" in text:
        raise RubricError("the template contains a NUL character; is it a text file?")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    fewshot, marked = _take_fewshot(text)
    raw_messages = split_chat_markup(marked)
    positional = _positional_names(raw_messages)
    used: set[str] = set()
    counter = iter(positional)
    messages = tuple(
        Message(m.role, _to_jinja(m.content, positional, counter, used)) for m in raw_messages
    )
    kind, dims, answer = _answer_format(text, dimensions, answer_kind)
    inferred = [] if answer_kind else [f"answer format {kind.value}"]
    if not dimensions:
        inferred.append(f"dimensions {', '.join(dims)}")
    rubric = Rubric(
        name=name,
        title=title or name,
        description=description
        or "Imported from a text template"
        + (f"; inferred {' and '.join(inferred)}." if inferred else "."),
        dimensions=dims,
        answer=answer,
        messages=messages,
        requires=tuple(f for f in ("reference", "source") if f in used),
        fewshot=fewshot,
        decoding=default_decoding(kind, explains=bool(_EXPLAINS.search(text))),
    )
    check_rubric(rubric)
    return rubric


def default_decoding(kind: AnswerKind, *, explains: bool = False) -> Decoding:
    """Greedy decoding; a few tokens for bare verdicts, room for a rationale in JSON.
    AlpacaEval's m/M answer is one token (its configs' ``max_tokens: 1``), or 300 where
    the template asks for an explanation first; its ranking 100 (``max_tokens: 100``);
    FastChat's ``[[A]]`` after an explanation 2048, as its judges."""
    if kind is AnswerKind.IDENTIFIER:
        return Decoding(temperature=0.0, max_tokens=300 if explains else 1)
    if kind is AnswerKind.RANKING:
        return Decoding(temperature=0.0, max_tokens=100)
    if kind is AnswerKind.BRACKETED:
        return Decoding(temperature=0.0, max_tokens=2048)  # FastChat's judge, explaining first
    json_answer = kind in (AnswerKind.JSON_CHOICE, AnswerKind.JSON_CHOICES)
    return Decoding(temperature=0.0, max_tokens=512 if json_answer else 16)


def _one_pair_per_request(text: str) -> None:
    """AlpacaEval's batched templates (``alpaca_farm``'s: five pairs in one request, five
    answers back) repeat every placeholder of the pair; Tiebreak asks about one pair per
    request."""
    for names in (("{instruction}", "{output_1}", "{output_2}"), ("{$instruction}",
                  "{$candidate_A}", "{$candidate_B}")):  # fmt: skip
        counts = {text.count(name) for name in names}
        if len(counts) == 1 and (count := counts.pop()) > 1:
            raise RubricError(
                f"the template asks about {count} pairs in one request ({names[1]}"
                f" {count} times); Tiebreak asks about one pair per request"
            )


# ---- placeholders and literal text --------------------------------------------------------


def _take_fewshot(text: str) -> tuple[str | None, str]:
    blocks = list(_FEWSHOT.finditer(text))
    if len(blocks) > 1:
        raise RubricError("the template has more than one {example_begin} block")
    if not blocks:
        if "{example_begin}" in text or "{example_end}" in text:
            raise RubricError("the template has {example_begin} without {example_end}, or back")
        return None, text
    block = blocks[0]
    return block[1], text[: block.start()] + _FEWSHOT_MARK + text[block.end() :]


def _positional_names(messages: list[Message]) -> tuple[str, ...]:
    if any(p in m.content for m in messages for p in NAMED_PLACEHOLDERS):
        return ()  # named placeholders in use: a "{}" is literal text, such as empty JSON
    count = sum(m.content.count("{}") for m in messages)
    if count == 0:
        return ()
    if count not in POSITIONAL:
        raise RubricError(
            f"the template has {count} positional {{}} placeholders; 3 (prompt, A, B) or"
            " 4 (text, prompt, A, B) are understood"
        )
    return POSITIONAL[count]


def _to_jinja(
    content: str, positional: tuple[str, ...], counter: Iterator[str], used: set[str]
) -> str:
    out = []
    pos = 0
    for token in _TOKEN.finditer(content):
        text = token.group()
        if text == "{}" and not positional:
            continue  # literal braces, kept with the text around them
        out.append(_literal(content[pos : token.start()]))
        pos = token.end()
        if text == _FEWSHOT_MARK:
            out.append("{{ fewshot }}")
        elif text == "{system_message}":
            out.append(escape_literal(HREF_SYSTEM_PROMPT))
        else:
            variable = next(counter) if text == "{}" else NAMED_PLACEHOLDERS[text]
            used.add(variable)
            out.append("{{ " + variable + " }}")
    out.append(_literal(content[pos:]))
    return "".join(out)


def _literal(text: str) -> str:
    unknown = _UNKNOWN_SLOT.search(text)
    if unknown is not None:
        known = ", ".join([*NAMED_PLACEHOLDERS, "{}"])
        raise RubricError(f"unknown placeholder {unknown.group()} in the template (known: {known})")
    return escape_literal(text)


def escape_literal(text: str) -> str:
    """Jinja source that renders exactly ``text``: plain text stays as is, text that Jinja
    would read as syntax goes inside {% raw %}, and a literal endraw tag is split so it
    cannot close the raw block."""
    if not _needs_raw(text):
        return text
    out = []
    pieces = _ENDRAW.split(text)
    for i, piece in enumerate(pieces):
        if i:
            out.append("{{ '{%' }}")
        if piece:
            out.append("{% raw %}" + piece + "{% endraw %}" if _needs_raw(piece) else piece)
    return "".join(out)


def _needs_raw(text: str) -> bool:
    # A trailing "{" would join the next tag's opening brace ("{" + "{{ x }}").
    return any(s in text for s in _JINJA_START) or text.endswith("{")


# ---- answer format ------------------------------------------------------------------------

_CHOICES_BLOCK = re.compile(r'"choices"\s*:\s*\{(.*?)\}', re.DOTALL)
_JSON_KEY = re.compile(r'"([A-Za-z_][\w-]*)"\s*:')
_CHOICE_KEY = re.compile(r'"choice"\s*:')
_REASON_KEYS = ("rationale", "reason", "reasoning", "explanation")
_COMMA = re.compile(r"\bcomma", re.IGNORECASE)
_NAME_LIST = re.compile(r"\b([A-Z][a-z]+(?:,\s+[A-Z][a-z]+)+,?\s+and\s+[A-Z][a-z]+)\b")
_BEST_WITH = re.compile(r"\bbest with ([A-Za-z]+)\s*:", re.IGNORECASE)
# AlpacaEval 2's answer: the model identifier "m" (output_1) or "M" (output_2).
_IDENTIFIER = re.compile(r'"model_identifier"\s*:\s*"m"|\bm or M\b')
# AlpacaEval's ranking answer: [{'model': <model-name>, 'rank': <model-rank>}, ...].
_RANKING = re.compile(r"""['"]model['"]\s*:\s*<model-name>\s*,\s*['"]rank['"]\s*:""")
# FastChat's verdict after an explanation: "[[A]]" if assistant A is better ...
_BRACKETED = re.compile(r"\[\[A\]\].{0,80}\[\[B\]\]", re.DOTALL)
_EXPLAINS = re.compile(r"\bexplanation\b", re.IGNORECASE)
# The verdicts a free-text answer gives, named as a choice: "A, B, or tie", "A or B",
# "Output (a) or Output (b)", "[[A]]".
_NAMES_VERDICTS = re.compile(
    r"""(?<![\w'])\(?A\)?\s*(?:,|or|/)\s*(?:(?:output|response|assistant)\s*)?\(?B\)?(?![\w'])"""
    r"|\[\[[ABC]\]\]",
    re.IGNORECASE,
)
# Answers Tiebreak does not read, as AlpacaEval's and FastChat's other judges ask for them:
# a function call (its tools are not sent), a true/false JSON member, scores on a scale.
_FUNCTION = re.compile(r"\bthe (\w+) function\b|\bto `(\w+)`")
_JSON_BOOLEAN = re.compile(r'"([^"\n]{1,80})"\s*:\s*(?:true|false)\b')
_SCORES = re.compile(r"\bscores?\b[^\n]{0,200}?\bscale of (\d+ to \d+)", re.IGNORECASE)


def _unreadable(text: str) -> str | None:
    """What the template asks for where it is an answer Tiebreak does not read; None where
    it names no such answer."""
    function = _FUNCTION.search(text)
    if function is not None:
        return f"a call of the function {function[1] or function[2]}"
    boolean = _JSON_BOOLEAN.search(text)
    if boolean is not None:
        return f'JSON with a true/false member ("{boolean[1]}")'
    scores = _SCORES.search(text)
    if scores is not None:
        return f"scores on a scale of {scores[1]}"
    return None


#: What ``rubric add`` reads, for the line that refuses a template asking for anything else.
READABLE = "A/B/tie, [[A]], JSON choice(s), m/M or a ranking of model_1 and model_2"


def _answer_format(
    text: str,
    dimensions: tuple[str, ...] | list[str] | None,
    answer_kind: str | AnswerKind | None,
) -> tuple[AnswerKind, tuple[str, ...], AnswerFormat]:
    choices = _CHOICES_BLOCK.search(text)
    reason = next((k for k in _REASON_KEYS if re.search(rf'"{k}"\s*:', text)), None)
    if answer_kind is not None:
        try:
            kind = AnswerKind(answer_kind)
        except ValueError:
            raise RubricError(
                f"answer format {answer_kind!r} is not one of"
                f" {', '.join(k.value for k in AnswerKind)}"
            ) from None
    else:
        kind = _inferred_kind(text, dimensions, choices)
    dims = tuple(dimensions) if dimensions else _infer_dimensions(text, kind, choices)
    json_answer = kind in (AnswerKind.JSON_CHOICE, AnswerKind.JSON_CHOICES)
    answer = AnswerFormat(kind=kind, reason_key=reason if json_answer else None)
    return kind, dims, answer


def _inferred_kind(
    text: str, dimensions: tuple[str, ...] | list[str] | None, choices: re.Match[str] | None
) -> AnswerKind:
    """The answer the template asks for, or a one-line refusal where it asks for one that
    Tiebreak cannot read; a template that names no answer at all is taken as ``single``."""
    _one_pair_per_request(text)
    if _IDENTIFIER.search(text):
        return AnswerKind.IDENTIFIER
    if _RANKING.search(text):
        return AnswerKind.RANKING
    if _BRACKETED.search(text):
        return AnswerKind.BRACKETED
    if choices:
        return AnswerKind.JSON_CHOICES
    if _CHOICE_KEY.search(text):
        return AnswerKind.JSON_CHOICE
    if (dimensions and len(dimensions) > 1) or (
        not dimensions and _COMMA.search(text) and _NAME_LIST.search(text)
    ):
        return AnswerKind.COMMA_LIST
    unreadable = None if _NAMES_VERDICTS.search(text) else _unreadable(text)
    if unreadable is not None:
        raise RubricError(
            f"the template asks for {unreadable}, which Tiebreak cannot read (it reads"
            f" {READABLE}); --answer-format names the one to read"
        )
    return AnswerKind.SINGLE


def _infer_dimensions(
    text: str, kind: AnswerKind, choices: re.Match[str] | None
) -> tuple[str, ...]:
    if kind is AnswerKind.JSON_CHOICES:
        keys = _JSON_KEY.findall(choices[1]) if choices else []
        if not keys:
            raise RubricError('the template has no "choices": {...} naming the dimensions')
        return tuple(dict.fromkeys(k.lower() for k in keys))
    if kind is AnswerKind.COMMA_LIST:
        names = _NAME_LIST.search(text)
        if names is None:
            raise RubricError("the template asks for several answers but names no dimensions")
        return tuple(n.lower() for n in re.split(r",?\s+and\s+|,\s+", names[1]))
    if kind is AnswerKind.SINGLE:
        asked = _BEST_WITH.findall(text)
        if asked:
            return (asked[-1].lower(),)  # the real task's question comes last
    return ("overall",)
