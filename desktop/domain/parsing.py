"""Read a judge's completion into one verdict per dimension, or fail with a one-line reason.

A wrong verdict is worse than no verdict: a parse failure keeps the raw text for a human,
a guess silently corrupts the labels. So the parser is tolerant about *form* and strict
about *meaning*.

Tolerated form: any case; whitespace; code fences; quotes, backticks, ``**bold**``,
``[A]``, ``(a)``, ``[[A]]``; trailing punctuation (``tie.``); chat tokens (the text is cut
at the first end-of-turn token such as ``<|eot_id|>``: what follows is a new turn, not the
answer); naming such as ``Response A``, ``Assistant B``, ``Output (a)``; prose around the
answer (``My answer: B``); JSON inside prose or a fence, followed by more text.

How a verdict is found in free text (kinds ``single`` and ``comma-list``), in two tiers:

1. *Explicit* answer statements: a line that is nothing but a verdict (``A``, ``**tie**``,
   ``Response B.``), ``[[X]]``, or a labelled answer (``Final answer: X``, ``The better
   response is X``, ``I choose X``, ``Verdict - X``). If there are any, they alone count and
   must all name the same verdict; an answer-shaped non-verdict stated the same way
   (``Answer: C``, ``[[C]]``, a line ``both``) is an invalid verdict. So a model that
   reasons in prose and then states its answer is read by the statement, one that repeats
   itself (``A`` three times) agrees with itself, and one that states two different answers
   (``A`` on one line, ``B`` on another, e.g. echoed few-shot examples) is ambiguous.
2. Otherwise every *mention* in the prose counts, and there must be exactly one distinct
   verdict among them: ``I think B is better`` is B; ``A or B``, ``A ... actually B`` and
   ``B is better than A`` are ambiguous (we will not guess which one was meant). A negation
   in a sentence that mentions a verdict (``not A``, ``B isn't better``, ``not a tie``)
   makes the answer ambiguous too: prose negation is too easy to misread.

``A`` is also an English article. A standalone ``a``/``A`` followed by an ordinary word
(``A good answer would be``, ``output a single letter``) is an article; one followed by
punctuation, the end of the line, or a verb or connective (``A is better``, ``A and``,
``A, because``) is a verdict; after ``Response``/``Assistant``/``Candidate``/``Option`` it is
always a verdict. ``a tie`` is tie. These rules never depend on letter case, so
``A GOOD ANSWER`` reads the same as ``a good answer``.

``comma-list``: the longest run of two or more comma-separated items on a line
(``A, tie, B, A``, optionally after ``label:`` or other prose, optionally followed by
prose, optionally each ``dimension: X``) is the answer; ``A, B, or tie`` is the options
being listed, not an answer. Several such lines must agree, and the count must equal the
number of dimensions. Lines of the form ``Precision: A``, one per dimension, are accepted
when there is no such list. One verdict for several dimensions is a wrong count.

JSON kinds: the top-level ``{...}`` groups in the text are decoded (trailing prose and
braces inside strings are fine). Aspect names match dimensions case-insensitively; an
unknown, missing or repeated aspect, a value other than A/B/tie, or JSON that does not
parse is a failure. An object with the aspects at the top level instead of under
``choices`` is accepted. Objects that give no complete answer (an echoed template) are
skipped when another one does; objects that give different answers are ambiguous.
Near-JSON (single quotes, trailing commas, a missing closing brace) is not repaired, and a
bare ``A`` where JSON was asked for is a failure: the rubric asked for JSON.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from desktop.domain.rubric import AnswerFormat, AnswerKind
from desktop.domain.verdicts import Verdict


@dataclass(frozen=True)
class ParseOutcome:
    verdicts: dict[str, Verdict] | None  # every dimension present when ok
    error: str | None  # one-line reason when it failed
    rationale: str | None = None  # the reason/rationale text when the format has one

    @property
    def ok(self) -> bool:
        return self.verdicts is not None and self.error is None


# --- vocabulary -----------------------------------------------------------------------

_WORDS = {"a": Verdict.A, "b": Verdict.B, "tie": Verdict.TIE}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words after which a standalone "a" is a verdict, never an article ("A is better").
_AFTER_VERDICT = _words(
    "is was wins won and or nor vs versus over than because since as for in on with here"
    " too also seems appears performs provides gives has had does did should would could"
    " will can cannot remains beats outperforms edges gets takes answers follows fails"
    " lacks offers contains includes uses"
)
# Naming words after which a letter is always a response name ("response a provides").
_ALWAYS_NAMES = frozenset(("response", "assistant", "candidate", "option"))
# Answer-shaped words that are not verdicts: a bare or labelled one is an invalid verdict.
_NOT_VERDICTS = _words(
    "both neither none equal same draw tied even either unsure unknown undecided n/a na ab a/b"
)

_NAMING = r"(?:response|assistant|output|candidate|model|option|system)"
_OPEN = r"""[\s"'`*_\[(<“‘«>#-]*"""
_CLOSE = r"""[\s"'`*_\])>”’».,;:!]*"""
_V = r"(?P<v>a[ \t]+tie|tie|a|b)"
_WORD = r"[^\W\d_](?:[^\W_]|/){0,11}"

# A whole line (or JSON value) that is nothing but a verdict.
_BARE = re.compile(rf"{_OPEN}(?:(?P<name>{_NAMING})\s*{_OPEN})?{_V}{_CLOSE}", re.I)
# A whole line that is one answer-shaped word (checked against _NOT_VERDICTS).
_BARE_WORD = re.compile(rf"{_OPEN}(?:{_NAMING}\s*{_OPEN})?(?P<w>{_WORD}){_CLOSE}", re.I)
_DOUBLE = re.compile(r"\[\[\s*(?P<w>[^\[\]\n]{0,20}?)\s*\]\]")
_LABEL = re.compile(
    rf"""(?:
        \b(?:final\s+|overall\s+)?
          (?:answer|verdict|choice|decision|judge?ment|winner|preference|selection|conclusion)s?
          ["'*_`\]]*[ \t]*(?:(?P<colon>[:=]|-(?!\w))|(?:is|would\s+be|will\s+be)\b)
      | \b(?:better|best|preferred|winning|stronger|superior)\s+
          (?:response|answer|output|one|assistant|candidate|model)\s+(?:is|would\s+be)\b
      | \bi(?:\s+would|\s+will|['’]d)?\s+(?:choose|pick|select|prefer|go\s+with|vote\s+for)\b
    )
    \s*{_OPEN}(?:(?P<name>{_NAMING})\s*{_OPEN})?
    (?P<v>a[ \t]+tie|{_WORD})(?![^\W_]|[/-])
    """,
    re.I | re.X,
)
# After an explicit verdict: "A or B", "A/B", "A, B" make it no statement at all.
_CONTINUES = re.compile(
    r"""[\s"'`*_\])]*(?:(?:or|and|nor|vs|versus)\b|/|,\s*(?:a|b|tie)\b)""", re.I
)
_REST_OF_LINE = re.compile(rf"{_CLOSE}(?:\n|$)")
_MENTION = re.compile(
    r"""(?P<name>\b(?:response|assistant|output|candidate|model|option|system)\s*[(\["'`*]*\s*)?
        (?<![^\W_])(?<![/\\.-])(?P<v>a[ \t]+tie|tie|a|b)(?![^\W_]|[/-])""",
    re.I | re.X,
)
_NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)")
# Whatever follows an end-of-turn token is not the answer; other chat tokens are noise.
_END_OF_TURN = re.compile(
    r"<\|(?:eot_id|im_end|endoftext|end|eom_id)\|>|</s>|<eos>|<end_of_turn>", re.I
)
_SPECIAL = re.compile(
    r"<\|start_header_id\|>[^<\n]{0,40}<\|end_header_id\|>|<\|im_start\|>(?:system|user|assistant)?"
    r"|<\|[^|<>\n]{1,40}\|>|<s>|<start_of_turn>(?:user|model)?",
    re.I,
)
# Sentences of prose, and the negations that make a prose mention unreadable.
_SENTENCE = re.compile(r"(?<!\w\.\w)[.!?;](?:\s|$)|\n")
_NEGATION = re.compile(r"\b(?:not|never|neither|nor|no)\b|n['’]t\b", re.I)

# comma-list items: "A", "**tie**", "Response B", "precision: A"; a label may be prose.
_ITEM = re.compile(
    rf"{_OPEN}(?:(?P<label>[^\W\d_][\w ]{{0,40}}?)[*_`]*\s*[:=]\s*{_OPEN})?"
    rf"(?:{_NAMING}\s*{_OPEN})?(?P<w>{_WORD}){_CLOSE}",
    re.I,
)
_TRAILING_PROSE = re.compile(r"""(?<=[\w*\])"'`])\s*(?:[.;!]\s|\s(?:because|since|as)\b)""", re.I)
_ENUMERATION = re.compile(r"\s*(?:or|and)\b", re.I)
_LIST_HEAD = re.compile(rf"\s(?:{_NAMING}\s*)?[\s\"'`*_\[(]*(?P<v>tie|a|b)[\"'`*_\])]*\s*$", re.I)
_DIM_LINE = re.compile(
    rf"{_OPEN}(?:\d{{1,2}}[.)]{_OPEN})?(?P<label>[^\W\d_][\w ]{{0,40}}?)[*_`\s]*"
    rf"(?:[:=]|-(?!\w))\s*{_OPEN}"
    rf"(?:{_NAMING}\s*{_OPEN})?(?P<w>{_WORD}){_CLOSE}",
    re.I,
)
_JSON_IN_OBJECT = re.compile(r'"(?:[^"\\]|\\.)*"|[{}]', re.S)


def _word_verdict(word: str) -> Verdict | None:
    """The verdict a matched token names: a, b, tie or "a tie"."""
    low = word.lower()
    if low.startswith("a") and low.endswith("tie"):
        return Verdict.TIE
    return _WORDS.get(low)


def _is_article(text: str, end: int, name: str | None) -> bool:
    """Whether the "a" ending at ``end`` reads as the English article, not verdict A."""
    if name and name.strip(" \t\n([\"'`*").lower() in _ALWAYS_NAMES:
        return False
    nxt = _NEXT_WORD.match(text, end)
    return nxt is not None and nxt.group(1).lower() not in _AFTER_VERDICT


def _short(value: object) -> str:
    """A value quoted for a one-line error."""
    text = value if isinstance(value, str) else json.dumps(value)
    if len(text) > 30:
        text = text[:27] + "..."
    return repr(text)


def _fail(error: str, rationale: str | None = None) -> ParseOutcome:
    return ParseOutcome(None, error, rationale)


# --- free text ------------------------------------------------------------------------


def _answer_shaped(word: str) -> bool:
    low = word.lower()
    return (len(low) == 1 and low not in "abi") or low in _NOT_VERDICTS


def _explicit(text: str, lines: list[str]) -> tuple[list[Verdict], list[str]]:
    """Explicit answer statements: (verdicts stated, invalid values stated)."""
    found: list[Verdict] = []
    invalid: list[str] = []
    for line in lines:
        m = _BARE.fullmatch(line)
        if m is not None:
            found.append(_word_verdict(m["v"]) or Verdict.TIE)
            continue
        w = _BARE_WORD.fullmatch(line)
        if w is not None and _answer_shaped(w["w"]):
            invalid.append(w["w"])
    if "[[" in text:
        for m in _DOUBLE.finditer(text):
            bare = _BARE.fullmatch(m["w"])
            if bare is not None:
                found.append(_word_verdict(bare["v"]) or Verdict.TIE)
            else:
                invalid.append(m["w"])
    for m in _LABEL.finditer(text):
        verdict = _word_verdict(m["v"])
        if verdict is None:
            if m["colon"] and _REST_OF_LINE.match(text, m.end()):
                invalid.append(m["v"])
            continue
        if m["v"].lower() == "a" and _is_article(text, m.end(), m["name"]):
            continue
        if _CONTINUES.match(text, m.end()):
            continue
        found.append(verdict)
    return found, invalid


def _mentions(text: str) -> tuple[set[Verdict], str | None]:
    """Every verdict mentioned in prose, and the first negation in a sentence with one.

    A negation anywhere in the sentence ("B isn't better", "not a tie") flips or hedges
    the meaning in ways we will not guess at, so it makes the answer ambiguous.
    """
    found: set[Verdict] = set()
    negated: str | None = None
    for sentence in _SENTENCE.split(text):
        here: set[Verdict] = set()
        for m in _MENTION.finditer(sentence):
            v = m["v"]
            if v.lower() == "a" and _is_article(sentence, m.end(), m["name"]):
                continue
            verdict = _word_verdict(v)
            if verdict is not None:
                here.add(verdict)
        if here and negated is None:
            neg = _NEGATION.search(sentence)
            if neg is not None:
                negated = sentence.strip()
        found |= here
    return found, negated


def _names(verdicts: Sequence[Verdict]) -> str:
    names = [v.value for v in Verdict if v in set(verdicts)]
    return ", ".join(names[:-1]) + " and " + names[-1]


def _one_verdict(text: str) -> tuple[Verdict | None, str | None]:
    """The single verdict a free-text answer gives, or why there is none (see module doc)."""
    lines = text.splitlines()
    stated, invalid = _explicit(text, lines)
    if len(set(stated)) > 1:
        return None, f"ambiguous answer: it states {_names(stated)}"
    if invalid:
        return None, f"invalid verdict {_short(invalid[0])} (expected A, B or tie)"
    if stated:
        return stated[0], None
    found, negated = _mentions(text)
    if negated is not None:
        return None, f"ambiguous answer: a verdict is negated ({_short(negated)})"
    if len(found) > 1:
        return None, f"ambiguous answer: it mentions {_names(list(found))}"
    if found:
        return found.pop(), None
    return None, "no verdict found (expected A, B or tie)"


def _clean(text: str) -> str:
    if "<" in text:
        end = _END_OF_TURN.search(text)
        if end is not None:
            text = text[: end.start()]
        text = _SPECIAL.sub(" ", text)
    return text.strip()


def _parse_single(text: str, dimensions: Sequence[str]) -> ParseOutcome:
    if len(dimensions) != 1:
        return _fail(f"a single answer gives one verdict, but {len(dimensions)} dimensions")
    verdict, error = _one_verdict(text)
    if verdict is None:
        return _fail(error or "no verdict found")
    return ParseOutcome({dimensions[0]: verdict}, None)


def _item(part: str) -> tuple[str | None, str] | None:
    """A comma-list item (label, word): a verdict or an answer-shaped non-verdict."""
    m = _ITEM.fullmatch(part)
    if m is None or (_word_verdict(m["w"]) is None and not _answer_shaped(m["w"])):
        return None
    return m["label"], m["w"]


def _list_run(line: str) -> list[tuple[str | None, str]] | None:
    """The longest run of two or more comma-separated items in ``line``.

    The run may start after prose that ends in its first verdict ("I'd say A, tie, B") and
    end in a verdict followed by prose ("..., A. Response A is more precise, B is not").
    """
    if "," not in line:
        return None
    parts = line.split(",")
    items = [_item(part) for part in parts]
    best: list[tuple[str | None, str]] = []
    i = 0
    while i < len(parts):
        if items[i] is None:
            i += 1
            continue
        j = i
        while j < len(parts) and items[j] is not None:
            j += 1
        run = [item for item in items[i:j] if item is not None]
        if j < len(parts) and _ENUMERATION.match(parts[j]):  # "A, B, or tie": the options
            i = j
            continue
        if i > 0:  # prose, then the first verdict
            head = _LIST_HEAD.search(parts[i - 1])
            if head is not None:
                run.insert(0, (None, head["v"]))
        if j < len(parts):  # the last verdict, then prose
            tail = _TRAILING_PROSE.search(parts[j])
            last = _item(parts[j][: tail.start()]) if tail is not None else None
            if last is not None:
                run.append(last)
        if len(run) >= max(2, len(best)):
            best = run
        i = j
    return best or None


def _key(name: str) -> str:
    return " ".join(name.replace("_", " ").split()).casefold()


def _by_label(
    pairs: Sequence[tuple[str, Verdict]], dimensions: Sequence[str]
) -> tuple[dict[str, Verdict] | None, str | None]:
    """Map (label, verdict) pairs onto the dimensions; every one exactly once."""
    dims = {_key(d): d for d in dimensions}
    out: dict[str, Verdict] = {}
    for label, verdict in pairs:
        dim = dims.get(_key(label))
        if dim is None:
            return None, f"unknown aspect {_short(label.strip())}"
        if dim in out and out[dim] is not verdict:
            return None, f"ambiguous answer: aspect {_short(dim)} is given twice"
        out[dim] = verdict
    missing = [d for d in dimensions if d not in out]
    if missing:
        return None, f"missing aspect {_short(missing[0])}"
    return out, None


def _parse_comma_list(text: str, dimensions: Sequence[str]) -> ParseOutcome:
    n = len(dimensions)
    lines = text.splitlines()
    runs = [run for run in (_list_run(line) for line in lines) if run is not None]
    if runs:
        for run in runs:
            for _, w in run:
                if _word_verdict(w) is None:
                    return _fail(f"invalid verdict {_short(w)} (expected A, B or tie)")
        lists = {tuple(_word_verdict(w) for _, w in run) for run in runs}
        if len(lists) > 1:
            shown = " / ".join(", ".join(v.value for v in lst if v) for lst in sorted(lists))
            return _fail(f"ambiguous answer: different verdict lists ({shown})")
        run = runs[0]
        if len(run) != n:
            return _fail(f"expected {n} verdicts, found {len(run)}")
        labels = [label for label, _ in run]
        verdicts = [v for v in lists.pop() if v is not None]
        if all(labels) and {_key(x or "") for x in labels} & {_key(d) for d in dimensions}:
            mapped, error = _by_label(list(zip(labels, verdicts, strict=True)), dimensions)  # type: ignore[arg-type]
            return _fail(error) if mapped is None else ParseOutcome(mapped, None)
        return ParseOutcome(dict(zip(dimensions, verdicts, strict=True)), None)
    dims = {_key(d) for d in dimensions}
    labelled: list[tuple[str, Verdict]] = []
    for line in lines:
        m = _DIM_LINE.fullmatch(line)
        if m is None or _key(m["label"]) not in dims:
            continue
        verdict = _word_verdict(m["w"])
        if verdict is None:
            return _fail(f"invalid verdict {_short(m['w'])} for aspect {_short(m['label'])}")
        labelled.append((m["label"], verdict))
    if labelled and (n > 1 or len(labelled) > 1):
        mapped, error = _by_label(labelled, dimensions)
        return _fail(error) if mapped is None else ParseOutcome(mapped, None)
    verdict, error = _one_verdict(text)
    if verdict is None:
        if error and error.startswith("no verdict"):
            return _fail(f"no verdicts found (expected {n} comma-separated A, B or tie)")
        return _fail(error or "no verdict found")
    if n != 1:
        return _fail(f"expected {n} verdicts, found 1")
    return ParseOutcome({dimensions[0]: verdict}, None)


# --- JSON -----------------------------------------------------------------------------


def _json_objects(text: str) -> tuple[list[dict[str, Any]], str | None]:
    """Decoded top-level ``{...}`` groups of the text, and why any group failed."""
    objects: list[dict[str, Any]] = []
    error: str | None = None
    pos = 0
    while len(objects) < 20:
        start = text.find("{", pos)
        if start < 0:
            break
        depth = 0
        p = start
        end = -1
        while True:
            m = _JSON_IN_OBJECT.search(text, p)
            if m is None:
                break
            if m.group() == "{":
                depth += 1
            elif m.group() == "}":
                depth -= 1
                if depth == 0:
                    end = m.end()
                    break
            p = m.end()
        if end < 0:
            error = error or "JSON is cut off: an object is never closed"
            break
        try:
            value = json.loads(text[start:end])
        except (ValueError, RecursionError) as exc:
            error = error or f"JSON does not parse: {str(exc).splitlines()[0]}"
        else:
            if isinstance(value, dict):
                objects.append(value)
        pos = end
    return objects, error


def _get(obj: dict[str, Any], key: str) -> tuple[bool, Any]:
    """Case-insensitive key lookup: (found, value)."""
    if key in obj:
        return True, obj[key]
    want = _key(key)
    for k, v in obj.items():
        if _key(k) == want:
            return True, v
    return False, None


def _value_verdict(value: object) -> Verdict | None:
    if not isinstance(value, str):
        return None
    m = _BARE.fullmatch(value)
    return None if m is None else _word_verdict(m["v"])


def _text_of(obj: dict[str, Any], keys: Sequence[str]) -> str | None:
    for key in keys:
        found, value = _get(obj, key)
        if found and isinstance(value, str):
            return value
    return None


_REASON_KEYS = ("rationale", "reason", "explanation")


def _choices_of(
    obj: dict[str, Any], answer: AnswerFormat, dimensions: Sequence[str]
) -> tuple[dict[str, Verdict] | None, str | None]:
    """The verdicts one JSON object gives for json-choices, or why it gives none."""
    found, choices = _get(obj, answer.choices_key)
    if not found:
        dims = {_key(d) for d in dimensions}
        if not any(_key(k) in dims for k in obj):
            return None, f"JSON has no {_short(answer.choices_key)} object"
        skip = {_key(k) for k in (answer.reason_key, *_REASON_KEYS) if k}
        choices = {k: v for k, v in obj.items() if _key(k) not in skip}
    if not isinstance(choices, dict):
        return None, f"JSON {_short(answer.choices_key)} is not an object"
    dims = {_key(d) for d in dimensions}
    pairs: list[tuple[str, Verdict]] = []
    for key, value in choices.items():
        if _key(key) not in dims:
            return None, f"unknown aspect {_short(key)}"
        verdict = _value_verdict(value)
        if verdict is None:
            return None, f"invalid verdict {_short(value)} for aspect {_short(key)}"
        pairs.append((key, verdict))
    return _by_label(pairs, dimensions)


def _choice_of(
    obj: dict[str, Any], answer: AnswerFormat, dimensions: Sequence[str]
) -> tuple[dict[str, Verdict] | None, str | None]:
    """The verdict one JSON object gives for json-choice, or why it gives none."""
    found, value = _get(obj, answer.choice_key)
    if not found:
        return None, f"JSON has no {_short(answer.choice_key)} key"
    verdict = _value_verdict(value)
    if verdict is None:
        return None, f"invalid verdict {_short(value)} (expected A, B or tie)"
    return {dimensions[0]: verdict}, None


def _parse_json(text: str, answer: AnswerFormat, dimensions: Sequence[str]) -> ParseOutcome:
    one = answer.kind is AnswerKind.JSON_CHOICE
    if one and len(dimensions) != 1:
        return _fail(f"a JSON choice gives one verdict, but {len(dimensions)} dimensions")
    objects, json_error = _json_objects(text)
    if not objects:
        return _fail(json_error or "no JSON object found")
    reason_keys = (answer.reason_key, *_REASON_KEYS) if answer.reason_key else _REASON_KEYS
    results: list[tuple[dict[str, Verdict], str | None]] = []
    first_error: str | None = None
    first_rationale: str | None = None
    for obj in objects:
        rationale = _text_of(obj, reason_keys)
        first_rationale = first_rationale or rationale
        got, error = (_choice_of if one else _choices_of)(obj, answer, dimensions)
        if got is None:
            first_error = first_error or error
        else:
            results.append((got, rationale))
    if not results:
        if json_error and first_error and first_error.startswith("JSON has no"):
            first_error = json_error
        return _fail(first_error or "no verdicts in the JSON", first_rationale)
    distinct = {tuple(sorted(r.items())) for r, _ in results}
    if len(distinct) > 1:
        return _fail("ambiguous answer: several JSON answers disagree", first_rationale)
    verdicts, rationale = results[0]
    return ParseOutcome(verdicts, None, rationale)


# --- entry points ---------------------------------------------------------------------


def parse_answer(text: str, answer: AnswerFormat, dimensions: Sequence[str]) -> ParseOutcome:
    """Parse one completion into a verdict for every dimension, or say why it can't."""
    if not dimensions:
        return _fail("the rubric has no dimensions")
    kind = answer.kind
    if kind is AnswerKind.SINGLE and len(dimensions) == 1:
        quick = _WORDS.get(text.strip().lower())  # the common case: a bare "A"
        if quick is not None:
            return ParseOutcome({dimensions[0]: quick}, None)
    text = _clean(text)
    if not text:
        return _fail("empty answer")
    if kind is AnswerKind.SINGLE:
        return _parse_single(text, dimensions)
    if kind is AnswerKind.COMMA_LIST:
        return _parse_comma_list(text, dimensions)
    return _parse_json(text, answer, dimensions)


def verdict_token_probabilities(
    top_logprobs: list[tuple[str, float]],
) -> dict[Verdict, float] | None:
    """Normalised A/B/tie probabilities from one generated position's top logprobs.

    Variants of one verdict (" A", "a", "Tie", "TIE") add up; "t" and "ti" count as the
    start of "tie", which some tokenizers split. Only verdicts among the alternatives get
    a key. None when no alternative is a verdict token, so no confidence is invented.
    """
    mass: dict[Verdict, list[float]] = {}
    for token, logprob in top_logprobs:
        word = token.strip().strip("\"'`*[]()").lower()
        verdict = _WORDS.get(word) or (Verdict.TIE if word in ("t", "ti") else None)
        if verdict is None or not isinstance(logprob, int | float):
            continue
        if math.isfinite(logprob):  # -inf is zero mass; nan or +inf is no information
            mass.setdefault(verdict, []).append(float(logprob))
    if not mass:
        return None
    top = max(lp for lps in mass.values() for lp in lps)
    sums = {v: sum(math.exp(lp - top) for lp in lps) for v, lps in mass.items()}
    total = sum(sums.values())
    return {v: s / total for v, s in sums.items()}
