"""Verdict values and the rules that combine them.

A verdict is always one of three values; "no verdict" is ``None``, never a tie, so a parse
failure can never be mistaken for a judgement.
"""

from __future__ import annotations

import enum


class Verdict(enum.StrEnum):
    A = "A"
    B = "B"
    TIE = "tie"

    def swapped(self) -> Verdict:
        """Map a verdict given with the responses in swapped order back to the original."""
        if self is Verdict.A:
            return Verdict.B
        if self is Verdict.B:
            return Verdict.A
        return Verdict.TIE

    @classmethod
    def from_token(cls, token: str) -> Verdict | None:
        """The verdict a bare answer token names (``a``, ``B``, ``Tie`` ...), else None."""
        return _TOKENS.get(token.strip().lower())


_TOKENS = {"a": Verdict.A, "b": Verdict.B, "tie": Verdict.TIE}
#: A verdict as stored ("A", "B", "tie"); ``BY_VALUE.get`` gives None for anything else.
BY_VALUE: dict[str | None, Verdict] = {v.value: v for v in Verdict}


def final_verdict(judge: Verdict | None, human: Verdict | None) -> Verdict | None:
    """The reviewer's verdict where given, else the judge's."""
    return human if human is not None else judge
