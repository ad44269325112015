"""What parsing one completion gives: verdicts, or a one-line reason."""

from __future__ import annotations

from dataclasses import dataclass

from desktop.domain.verdicts import Verdict


@dataclass(frozen=True)
class ParseOutcome:
    verdicts: dict[str, Verdict] | None  # every dimension present when ok
    error: str | None  # one-line reason when it failed
    rationale: str | None = None  # the reason/rationale text when the format has one

    @property
    def ok(self) -> bool:
        return self.verdicts is not None and self.error is None


def fail(error: str, rationale: str | None = None) -> ParseOutcome:
    return ParseOutcome(None, error, rationale)
