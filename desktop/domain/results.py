"""A judge's answer for one pair, rubric, model and order, as stored in a project.

Verdicts always refer to the pair's own A and B: a result judged in swapped order (BA)
is mapped back before it is stored; its raw completion is kept exactly as received.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from desktop.domain.verdicts import Verdict


class Status(enum.StrEnum):
    OK = "ok"
    PARSE_FAILURE = "parse-failure"
    ERROR = "error"


class Order(enum.StrEnum):
    AB = "AB"
    BA = "BA"


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
