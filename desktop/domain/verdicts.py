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


class Mark(enum.StrEnum):
    """A reviewer's answer that is not one of the three verdicts, kept as what it is."""

    BOTH_BAD = "bothbad"  # a tie on which both are bad (Arena's "tie (bothbad)"): a tie
    SKIP = "skip"  # decide later: no verdict, not reviewed
    BROKEN = "broken"  # the pair cannot be judged (its reason in the note): out of every figure

    @property
    def verdict(self) -> Verdict | None:
        """What the mark counts as where verdicts are counted."""
        return Verdict.TIE if self is Mark.BOTH_BAD else None


MARKS: dict[str | None, Mark] = {m.value: m for m in Mark}

# How a reviewer's verdict was given (human_verdicts.mode). Typed after reading: GUI or
# BLIND (the judge hidden), CLI, API; IMPORTED from a file; ACCEPTED: Enter on the judge's
# verdict (agrees with the judge by construction, so counted apart wherever people are
# compared with the judge); ADJUDICATED: an adjudicator's settling of a dispute (the label).
GUI, BLIND, CLI, API, IMPORTED = "gui", "blind", "cli", "api", "imported"
ACCEPTED, ADJUDICATED = "accepted", "adjudicated"


def answer_from_token(token: str) -> Verdict | Mark | None:
    """A reviewer's answer as typed: a verdict (``a``, ``B``, ``tie``) or a mark
    (``bothbad``, ``both-bad``, ``skip``, ``broken``), else None."""
    word = token.strip().lower()
    return _TOKENS.get(word) or _MARK_TOKENS.get(word.replace("-", "").replace(" ", ""))


_MARK_TOKENS = {m.value: m for m in Mark}
