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
        decoding=default_decoding(kind),
    )
    check_rubric(rubric)
    return rubric


def default_decoding(kind: AnswerKind) -> Decoding:
    """Greedy decoding; a few tokens for bare verdicts, room for a rationale in JSON."""
    json_answer = kind in (AnswerKind.JSON_CHOICE, AnswerKind.JSON_CHOICES)
    return Decoding(temperature=0.0, max_tokens=512 if json_answer else 16)


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
    elif choices:
        kind = AnswerKind.JSON_CHOICES
    elif _CHOICE_KEY.search(text):
        kind = AnswerKind.JSON_CHOICE
    elif (dimensions and len(dimensions) > 1) or (
        not dimensions and _COMMA.search(text) and _NAME_LIST.search(text)
    ):
        kind = AnswerKind.COMMA_LIST
    else:
        kind = AnswerKind.SINGLE
    dims = tuple(dimensions) if dimensions else _infer_dimensions(text, kind, choices)
    json_answer = kind in (AnswerKind.JSON_CHOICE, AnswerKind.JSON_CHOICES)
    answer = AnswerFormat(kind=kind, reason_key=reason if json_answer else None)
    return kind, dims, answer


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
