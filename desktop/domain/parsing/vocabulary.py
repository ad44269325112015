"""The words and patterns that say a verdict, shared by the free-text and JSON readers
(see the package docstring for the rules)."""

from __future__ import annotations

import json
import re

from desktop.domain.verdicts import Verdict

# --- vocabulary -----------------------------------------------------------------------

WORDS = {"a": Verdict.A, "b": Verdict.B, "tie": Verdict.TIE}


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words after which a standalone "a" is a verdict, never an article ("A is better").
AFTER_VERDICT = words(
    "is was wins won and or nor vs versus over than because since as for in on with here"
    " too also seems appears performs provides gives has had does did should would could"
    " will can cannot remains beats outperforms edges gets takes answers follows fails"
    " lacks offers contains includes uses"
)
# Naming words after which a letter is always a response name ("response a provides").
ALWAYS_NAMES = frozenset(("response", "assistant", "candidate", "option"))
# Answer-shaped words that are not verdicts: a bare or labelled one is an invalid verdict.
NOT_VERDICTS = words(
    "both neither none equal same draw tied even either unsure unknown undecided n/a na ab a/b"
)

NAMING = r"(?:response|assistant|output|candidate|model|option|system)"
OPEN = r"""[\s"'`*_\[(<“‘«>#-]*"""
# OPEN taken whole, never given back: a letter always follows it, which OPEN cannot match,
# so giving characters back could not make a match; it could only cost time.
OPEN_ALL = OPEN + "+"
CLOSE = r"""[\s"'`*_\])>”’».,;:!]*"""
V = r"(?P<v>a[ \t]+tie|tie|a|b)"
WORD = r"[^\W\d_](?:[^\W_]|/){0,11}"

# A whole line (or JSON value) that is nothing but a verdict.
BARE = re.compile(rf"{OPEN_ALL}(?:(?P<name>{NAMING}){OPEN_ALL})?{V}{CLOSE}", re.I)
# A whole line that is one answer-shaped word (checked against NOT_VERDICTS).
BARE_WORD = re.compile(rf"{OPEN_ALL}(?:{NAMING}{OPEN_ALL})?(?P<w>{WORD}){CLOSE}", re.I)
DOUBLE = re.compile(r"\[\[\s*+(?P<w>[^\[\]\n]{0,20}?)\s*+\]\]")
LABEL = re.compile(
    rf"""(?:
        \b(?:final\s+|overall\s+)?
          (?:answer|verdict|choice|decision|judge?ment|winner|preference|selection|conclusion)s?
          ["'*_`\]]*[ \t]*(?:(?P<colon>[:=]|-(?!\w))|(?:is|would\s+be|will\s+be)\b)
      | \b(?:better|best|preferred|winning|stronger|superior)\s+
          (?:response|answer|output|one|assistant|candidate|model)\s+(?:is|would\s+be)\b
      | \bi(?:\s+would|\s+will|['’]d)?\s+(?:choose|pick|select|prefer|go\s+with|vote\s+for)\b
    )
    {OPEN_ALL}(?:(?P<name>{NAMING}){OPEN_ALL})?
    (?P<v>a[ \t]+tie|{WORD})(?![^\W_]|[/-])
    """,
    re.I | re.X,
)
# After an explicit verdict: "A or B", "A/B", "A, B" make it no statement at all.
CONTINUES = re.compile(
    r"""[\s"'`*_\])]*+(?:(?:or|and|nor|vs|versus)\b|/|,\s*(?:a|b|tie)\b)""", re.I
)
REST_OF_LINE = re.compile(rf"{CLOSE}(?:\n|$)")
MENTION = re.compile(
    r"""(?P<name>\b(?:response|assistant|output|candidate|model|option|system)\s*+[(\["'`*]*+\s*+)?
        (?<![^\W_])(?<![/\\.-])(?P<v>a[ \t]+tie|tie|a|b)(?![^\W_]|[/-])""",
    re.I | re.X,
)
NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)")
# Whatever follows an end-of-turn token is not the answer; other chat tokens are noise.
END_OF_TURN = re.compile(
    r"<\|(?:eot_id|im_end|endoftext|end|eom_id)\|>|</s>|<eos>|<end_of_turn>", re.I
)
SPECIAL = re.compile(
    r"<\|start_header_id\|>[^<\n]{0,40}<\|end_header_id\|>|<\|im_start\|>(?:system|user|assistant)?"
    r"|<\|[^|<>\n]{1,40}\|>|<s>|<start_of_turn>(?:user|model)?",
    re.I,
)
# Sentences of prose, and the negations that make a prose mention unreadable.
SENTENCE = re.compile(r"(?<!\w\.\w)[.!?;](?:\s|$)|\n")
NEGATION = re.compile(r"\b(?:not|never|neither|nor|no)\b|n['’]t\b", re.I)

# comma-list items: "A", "**tie**", "Response B", "precision: A"; a label may be prose.
ITEM = re.compile(
    rf"{OPEN_ALL}(?:(?P<label>[^\W\d_][\w ]{{0,40}}?)[*_`]*+\s*+[:=]{OPEN_ALL})?"
    rf"(?:{NAMING}{OPEN_ALL})?(?P<w>{WORD}){CLOSE}",
    re.I,
)
TRAILING_PROSE = re.compile(r"""(?<=[\w*\])"'`])\s*(?:[.;!]\s|\s(?:because|since|as)\b)""", re.I)
ENUMERATION = re.compile(r"\s*(?:or|and)\b", re.I)
# The verdict ending a piece of prose before a comma list ("I'd say A, tie, B"): what
# ``\s(?:NAMING\s*)?[\s"'`*_\[(]*(?P<v>tie|a|b)["'`*_\])]*\s*$`` finds, read from the end
# (a search for that pattern tries every space as a start, each reading to the end).
_HEAD_VERDICT = re.compile(r"""(?P<v>tie|a|b)["'`*_\])]*+\s*+\Z""", re.I)
_HEAD_RUN = re.compile(r"""[\s"'`*_\[(]*+""")  # matched against the reversed text
_HEAD_SPACE = re.compile(r"\s")
_HEAD_NAMING = re.compile(rf"\s{NAMING}\Z", re.I)
DIM_LINE = re.compile(
    rf"{OPEN_ALL}(?:\d{{1,2}}[.)]{OPEN_ALL})?(?P<label>[^\W\d_][\w ]{{0,40}}?)[*_`\s]*+"
    rf"(?:[:=]|-(?!\w)){OPEN_ALL}"
    rf"(?:{NAMING}{OPEN_ALL})?(?P<w>{WORD}){CLOSE}",
    re.I,
)
# Inside a JSON object: the next quote or brace, a whole string, a brace.
JSON_TOKEN = re.compile(r'["{}]')
JSON_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.S)
JSON_BRACE = re.compile(r"[{}]")


def word_verdict(word: str) -> Verdict | None:
    """The verdict a matched token names: a, b, tie or "a tie"."""
    low = word.lower()
    if low.startswith("a") and low.endswith("tie"):
        return Verdict.TIE
    return WORDS.get(low)


def is_article(text: str, end: int, name: str | None) -> bool:
    """Whether the "a" ending at ``end`` reads as the English article, not verdict A."""
    if name and name.strip(" \t\n([\"'`*").lower() in ALWAYS_NAMES:
        return False
    nxt = NEXT_WORD.match(text, end)
    return nxt is not None and nxt.group(1).lower() not in AFTER_VERDICT


def list_head(text: str) -> str | None:
    """The verdict at the end of ``text`` when it is preceded by a space, an opening mark,
    or a space and a naming word ("say A", "(b", "Response B**"); else None."""
    verdict = _HEAD_VERDICT.search(text)
    if verdict is None:
        return None
    before = text[: verdict.start()]
    head = _HEAD_RUN.match(before[::-1])  # it matches even nothing
    run = head.end() if head else 0
    if _HEAD_SPACE.search(before, len(before) - run) is None:
        named = len(before) - run
        if _HEAD_NAMING.search(before, max(0, named - 10), named) is None:
            return None
    return verdict["v"]


def short(value: object) -> str:
    """A value quoted for a one-line error."""
    text = value if isinstance(value, str) else json.dumps(value)
    if len(text) > 30:
        text = text[:27] + "..."
    return repr(text)
