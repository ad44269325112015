"""What a rubric is: a judge prompt as chat messages, its dimensions and answer format.

A rubric is plain data. Files in and out live in ``desktop.adapters.rubric_files``;
rendering lives in ``desktop.domain.render``; answer parsing in ``desktop.domain.parsing``.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field

from desktop.domain.errors import RubricError
from desktop.domain.pairs import OPTIONAL_FIELDS


class AnswerKind(enum.StrEnum):
    COMMA_LIST = "comma-list"  # "A, tie, B, A": one verdict per dimension, in order
    SINGLE = "single"  # "A", "B" or "tie" for the one dimension
    JSON_CHOICES = "json-choices"  # {"rationale": ..., "choices": {dim: verdict}}
    JSON_CHOICE = "json-choice"  # {"reason": ..., "choice": verdict} for the one dimension
    BRACKETED = "bracketed"  # an explanation, then [[A]], [[B]] or [[C]] (tie): FastChat's
    IDENTIFIER = "identifier"  # "m" (A) or "M" (B), its logprobs the preference: AlpacaEval 2's
    RANKING = "ranking"  # [{'model': 'model_1', 'rank': 1}, ...]: AlpacaEval's ranking judges


#: The kinds that give one verdict, for a rubric of one dimension.
ONE_VERDICT = frozenset(
    {
        AnswerKind.SINGLE,
        AnswerKind.JSON_CHOICE,
        AnswerKind.BRACKETED,
        AnswerKind.IDENTIFIER,
        AnswerKind.RANKING,
    }
)


@dataclass(frozen=True)
class AnswerFormat:
    kind: AnswerKind
    choices_key: str = "choices"
    choice_key: str = "choice"
    reason_key: str | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind.value}
        if self.kind is AnswerKind.JSON_CHOICES:
            out["choices_key"] = self.choices_key
        if self.kind is AnswerKind.JSON_CHOICE:
            out["choice_key"] = self.choice_key
        if self.reason_key:
            out["reason_key"] = self.reason_key
        return out

    @property
    def one_token(self) -> bool:
        """Whether the whole answer is one short token, so logprobs give a confidence."""
        return self.kind is AnswerKind.SINGLE

    @property
    def reads_logprobs(self) -> bool:
        """Whether the answer token's logprobs are read: a one-token verdict's confidence,
        or AlpacaEval's m/M preference."""
        return self.kind in (AnswerKind.SINGLE, AnswerKind.IDENTIFIER)


@dataclass(frozen=True)
class Message:
    role: str  # "system" or "user" (or "assistant" for a prefilled turn)
    content: str  # Jinja2 template source; pair data only ever arrives as variables


@dataclass(frozen=True)
class Decoding:
    temperature: float = 0.0
    max_tokens: int = 512

    def to_dict(self) -> dict[str, object]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens}


def dimension_problem(dim: str) -> str | None:
    """Why ``dim`` cannot name a dimension, or None. A dimension names export columns
    (``<dim>_model`` ...), so it is a plain word: letters, digits, - or _, starting with a
    letter, so that no header cell starts a spreadsheet formula (``-1_model``) or a
    number."""
    if dim[:1].isalpha() and dim.replace("-", "").replace("_", "").isalnum():
        return None
    return f"dimension {dim!r} must be letters, digits, - or _, starting with a letter"


@dataclass(frozen=True)
class Rubric:
    name: str
    title: str
    description: str
    dimensions: tuple[str, ...]
    answer: AnswerFormat
    messages: tuple[Message, ...]
    requires: tuple[str, ...] = ()
    fewshot: str | None = None
    decoding: Decoding = field(default_factory=Decoding)

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("-", "").replace("_", "").isalnum():
            raise RubricError(f"rubric name {self.name!r} must be letters, digits, - or _")
        if not self.dimensions:
            raise RubricError(f"rubric {self.name}: no dimensions")
        for dim in self.dimensions:
            problem = dimension_problem(dim)
            if problem is not None:
                raise RubricError(f"rubric {self.name}: {problem}")
        if len(set(self.dimensions)) != len(self.dimensions):
            raise RubricError(f"rubric {self.name}: a dimension is listed twice")
        single = self.answer.kind in ONE_VERDICT
        if single and len(self.dimensions) != 1:
            raise RubricError(
                f"rubric {self.name}: answer kind {self.answer.kind.value} gives one verdict,"
                f" but {len(self.dimensions)} dimensions are declared"
            )
        unknown = [f for f in self.requires if f not in OPTIONAL_FIELDS]
        if unknown:
            raise RubricError(
                f"rubric {self.name}: unknown required field {unknown[0]!r}"
                f" (known: {', '.join(OPTIONAL_FIELDS)})"
            )
        if not self.messages:
            raise RubricError(f"rubric {self.name}: no messages")

    def to_dict(self) -> dict[str, object]:
        """The rubric as plain data, in the order a rubric file lists it."""
        out: dict[str, object] = {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "requires": list(self.requires),
            "dimensions": list(self.dimensions),
            "answer": self.answer.to_dict(),
            "decoding": self.decoding.to_dict(),
        }
        if self.fewshot is not None:
            out["fewshot"] = self.fewshot
        out["messages"] = [{"role": m.role, "content": m.content} for m in self.messages]
        return out

    @property
    def content_hash(self) -> str:
        """A hash of everything that shapes the request and its parsing, not of file layout."""
        canonical = json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)
        import hashlib  # loads OpenSSL: only when something is hashed

        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
