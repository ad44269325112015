"""A judge's answer for one pair, rubric, model and order, as stored in a project.

Verdicts always refer to the pair's own A and B: a result judged in swapped order (BA)
is mapped back before it is stored; its raw completion is kept exactly as received, but
for a lone surrogate (half of a UTF-16 pair, as a server's JSON ``"\ud800"`` escape gives):
SQLite keeps text as UTF-8, which cannot hold one, so it is kept as U+FFFD, the
replacement character, as any UTF-8 decoder shows invalid text (the parser has already
made such an answer a parse failure, naming the code point and where it was).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from desktop.domain.verdicts import Verdict


class Status(enum.StrEnum):
    OK = "ok"
    PARSE_FAILURE = "parse-failure"
    ERROR = "error"


class Order(enum.StrEnum):
    AB = "AB"
    BA = "BA"


LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str | None) -> str | None:
    """Text SQLite can keep: each lone surrogate replaced by U+FFFD."""
    if text is None or LONE_SURROGATE.search(text) is None:
        return text
    return LONE_SURROGATE.sub("\ufffd", text)


@dataclass(frozen=True)
class JudgeResult:
    pair_id: int
    rubric_hash: str
    rubric_name: str
    judge_model: str
    settings_hash: str
    order: Order
    status: Status
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    confidence: dict[str, float] = field(default_factory=dict)
    # As a file gave it (AlpacaEval: 1 + P(B is better)), where it said more than A/B/tie:
    # its text, every digit (a Numeral), stored as that JSON number.
    preference: dict[str, float | str] = field(default_factory=dict)
    raw_completion: str | None = None
    error: str | None = None
    request_hash: str | None = None
    latency_ms: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    origin: str = "model"  # "model", "import" (annotations from a file), "batch"

    def __post_init__(self) -> None:
        for name in ("raw_completion", "error"):
            object.__setattr__(self, name, storable(getattr(self, name)))
