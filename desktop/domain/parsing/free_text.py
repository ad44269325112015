"""Free-text answers: one verdict (``single``) or one per dimension (``comma-list``)."""

from __future__ import annotations

from collections.abc import Sequence

from desktop.domain.parsing.parse_outcome import ParseOutcome, fail
from desktop.domain.parsing.vocabulary import (
    BARE,
    BARE_WORD,
    CONTINUES,
    DIM_LINE,
    DOUBLE,
    END_OF_TURN,
    ENUMERATION,
    ITEM,
    LABEL,
    MENTION,
    NEGATION,
    NOT_VERDICTS,
    REST_OF_LINE,
    SENTENCE,
    SPECIAL,
    TRAILING_PROSE,
    is_article,
    list_head,
    short,
    word_verdict,
)
from desktop.domain.verdicts import Verdict

# --- free text ------------------------------------------------------------------------


def _answer_shaped(word: str) -> bool:
    low = word.lower()
    return (len(low) == 1 and low not in "abi") or low in NOT_VERDICTS


def _explicit(text: str, lines: list[str]) -> tuple[list[Verdict], list[str]]:
    """Explicit answer statements: (verdicts stated, invalid values stated)."""
    found: list[Verdict] = []
    invalid: list[str] = []
    for line in lines:
        m = BARE.fullmatch(line)
        if m is not None:
            found.append(word_verdict(m["v"]) or Verdict.TIE)
            continue
        w = BARE_WORD.fullmatch(line)
        if w is not None and _answer_shaped(w["w"]):
            invalid.append(w["w"])
    if "[[" in text:
        for m in DOUBLE.finditer(text):
            bare = BARE.fullmatch(m["w"])
            if bare is not None:
                found.append(word_verdict(bare["v"]) or Verdict.TIE)
            else:
                invalid.append(m["w"])
    for m in LABEL.finditer(text):
        verdict = word_verdict(m["v"])
        if verdict is None:
            if m["colon"] and REST_OF_LINE.match(text, m.end()):
                invalid.append(m["v"])
            continue
        if m["v"].lower() == "a" and is_article(text, m.end(), m["name"]):
            continue
        if CONTINUES.match(text, m.end()):
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
    for sentence in SENTENCE.split(text):
        here: set[Verdict] = set()
        for m in MENTION.finditer(sentence):
            v = m["v"]
            if v.lower() == "a" and is_article(sentence, m.end(), m["name"]):
                continue
            verdict = word_verdict(v)
            if verdict is not None:
                here.add(verdict)
        if here and negated is None:
            neg = NEGATION.search(sentence)
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
        return None, f"invalid verdict {short(invalid[0])} (expected A, B or tie)"
    if stated:
        return stated[0], None
    found, negated = _mentions(text)
    if negated is not None:
        return None, f"ambiguous answer: a verdict is negated ({short(negated)})"
    if len(found) > 1:
        return None, f"ambiguous answer: it mentions {_names(list(found))}"
    if found:
        return found.pop(), None
    return None, "no verdict found (expected A, B or tie)"


def clean(text: str) -> str:
    if "<" in text:
        end = END_OF_TURN.search(text)
        if end is not None:
            text = text[: end.start()]
        text = SPECIAL.sub(" ", text)
    return text.strip()


def parse_single(text: str, dimensions: Sequence[str]) -> ParseOutcome:
    if len(dimensions) != 1:
        return fail(f"a single answer gives one verdict, but {len(dimensions)} dimensions")
    verdict, error = _one_verdict(text)
    if verdict is None:
        return fail(error or "no verdict found")
    return ParseOutcome({dimensions[0]: verdict}, None)


def _item(part: str) -> tuple[str | None, str] | None:
    """A comma-list item (label, word): a verdict or an answer-shaped non-verdict."""
    m = ITEM.fullmatch(part)
    if m is None or (word_verdict(m["w"]) is None and not _answer_shaped(m["w"])):
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
        if j < len(parts) and ENUMERATION.match(parts[j]):  # "A, B, or tie": the options
            i = j
            continue
        if i > 0:  # prose, then the first verdict
            head = list_head(parts[i - 1])
            if head is not None:
                run.insert(0, (None, head))
        if j < len(parts):  # the last verdict, then prose
            tail = TRAILING_PROSE.search(parts[j])
            last = _item(parts[j][: tail.start()]) if tail is not None else None
            if last is not None:
                run.append(last)
        if len(run) >= max(2, len(best)):
            best = run
        i = j
    return best or None


def dimension_key(name: str) -> str:
    return " ".join(name.replace("_", " ").split()).casefold()


def by_label(
    pairs: Sequence[tuple[str, Verdict]], dimensions: Sequence[str]
) -> tuple[dict[str, Verdict], None] | tuple[None, str]:
    """Map (label, verdict) pairs onto the dimensions; every one exactly once."""
    dims = {dimension_key(d): d for d in dimensions}
    out: dict[str, Verdict] = {}
    for label, verdict in pairs:
        dim = dims.get(dimension_key(label))
        if dim is None:
            return None, f"unknown aspect {short(label.strip())}"
        if dim in out and out[dim] is not verdict:
            return None, f"ambiguous answer: aspect {short(dim)} is given twice"
        out[dim] = verdict
    missing = [d for d in dimensions if d not in out]
    if missing:
        return None, f"missing aspect {short(missing[0])}"
    return out, None


def parse_comma_list(text: str, dimensions: Sequence[str]) -> ParseOutcome:
    n = len(dimensions)
    lines = text.splitlines()
    first: list[tuple[str | None, str]] | None = None  # the first line's list
    lists: set[tuple[Verdict | None, ...]] = set()  # every distinct list, not every line's
    for line in lines:
        found = _list_run(line)
        if found is None:
            continue
        for _, w in found:
            if word_verdict(w) is None:
                return fail(f"invalid verdict {short(w)} (expected A, B or tie)")
        lists.add(tuple(word_verdict(w) for _, w in found))
        first = first or found
    if first is not None:
        if len(lists) > 1:
            shown = " / ".join(", ".join(v.value for v in lst if v) for lst in sorted(lists))
            return fail(f"ambiguous answer: different verdict lists ({shown})")
        if len(first) != n:
            return fail(f"expected {n} verdicts, found {len(first)}")
        labels = [label for label, _ in first if label]
        verdicts = [v for v in lists.pop() if v is not None]
        known = {dimension_key(d) for d in dimensions}
        if len(labels) == n and {dimension_key(x) for x in labels} & known:  # all labelled
            mapped = by_label(list(zip(labels, verdicts, strict=True)), dimensions)
            return fail(mapped[1]) if mapped[0] is None else ParseOutcome(mapped[0], None)
        return ParseOutcome(dict(zip(dimensions, verdicts, strict=True)), None)
    dims = {dimension_key(d) for d in dimensions}
    labelled: list[tuple[str, Verdict]] = []
    for line in lines:
        m = DIM_LINE.fullmatch(line)
        if m is None or dimension_key(m["label"]) not in dims:
            continue
        verdict = word_verdict(m["w"])
        if verdict is None:
            return fail(f"invalid verdict {short(m['w'])} for aspect {short(m['label'])}")
        labelled.append((m["label"], verdict))
    if labelled and (n > 1 or len(labelled) > 1):
        mapped = by_label(labelled, dimensions)
        return fail(mapped[1]) if mapped[0] is None else ParseOutcome(mapped[0], None)
    verdict, error = _one_verdict(text)
    if verdict is None:
        if error and error.startswith("no verdict"):
            return fail(f"no verdicts found (expected {n} comma-separated A, B or tie)")
        return fail(error or "no verdict found")
    if n != 1:
        return fail(f"expected {n} verdicts, found 1")
    return ParseOutcome({dimensions[0]: verdict}, None)
