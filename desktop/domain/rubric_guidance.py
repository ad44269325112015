"""What a rubric asks of a judge, for the reviewer to judge by the same criteria: its title,
its description and, for each dimension, the part of its prompt that says what the
dimension asks.

A rubric file has no field for a dimension's question: the prompt states it, in the
judge's own words ("1. Precision: Which response follows the instruction more
precisely...", "- Helpfulness: Evaluate the response based on..."). So the question is
read from the prompt: the first line that defines the dimension (its name, then a
colon, after any list marker), with the lines under it that are indented further; else
the first line that names it and introduces a list (ends in a colon), with that list;
else none. The few-shot examples are never read.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from desktop.domain.rubric import Rubric

MAX_QUESTION = 1_500  # characters of one dimension's question shown


class Guidance(NamedTuple):
    name: str
    title: str
    description: str
    questions: tuple[tuple[str, str | None], ...]  # each dimension and what it asks

    def text(self) -> str:
        """The guidance as the panel shows it (plain text): the description's first
        paragraph, what each dimension asks, then the rest of the description."""
        lines = [self.title if self.name in self.title else f"{self.title} ({self.name})"]
        summary, _, rest = self.description.partition("\n\n")
        if summary:
            lines += ["", summary]
        lines += ["", "Dimensions:"]
        one = len(self.questions) == 1
        for dim, question in self.questions:
            said = question or (
                "the one verdict the rubric asks for: see its description above"
                if one
                else "(the rubric's prompt does not define it on a line of its own)"
            )
            lines += ["", f"{dim}:", said]
        if rest.strip():
            lines += ["", "About this rubric:", "", rest.strip()]
        return "\n".join(lines)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _definition(dim: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*(?:\d+[.)]|[-*•])?\s*\**{re.escape(dim)}\**\s*:", re.IGNORECASE)


def question(prompt: str, dim: str) -> str | None:
    """What ``dim`` asks, as the prompt says it, or None."""
    lines = [line.rstrip() for line in prompt.splitlines() if "{{" not in line]
    defines = _definition(dim)
    word = re.compile(rf"\b{re.escape(dim)}\b", re.IGNORECASE)
    start = next((i for i, line in enumerate(lines) if defines.match(line)), None)
    introduces = start is None
    if start is None:
        start = next(
            (i for i, line in enumerate(lines) if word.search(line) and line.endswith(":")), None
        )
    if start is None:
        return None
    taken = [lines[start].strip()]
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        if not introduces and _indent(line) <= _indent(lines[start]):
            break
        taken.append(line.strip())
    text = "\n".join(taken)
    return text if len(text) <= MAX_QUESTION else text[:MAX_QUESTION] + " …"


def guidance(rubric: Rubric) -> Guidance:
    prompt = "\n".join(m.content for m in rubric.messages)
    return Guidance(
        rubric.name,
        rubric.title,
        rubric.description.strip(),
        tuple((dim, question(prompt, dim)) for dim in rubric.dimensions),
    )
