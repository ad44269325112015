"""How good a judge is on pairs whose better response is known: how often it names that
response, and how often its verdict survives swapping A and B. A judge that answers by
position (A to everything) picks the better response half the time and survives no swap;
such a judge is asked in both orders by default, so its bias shows as flags."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from desktop.domain.verdicts import Verdict

# A judge whose verdict survives the swap on fewer pairs than this share is order-
# inconsistent. On these clear-cut pairs a sound judge keeps nearly every verdict; a
# re-analysis of MT-bench's human-judgment data found GPT-4 keeping 84% on harder ones.
CONSISTENT_SHARE = 0.8


@dataclass(frozen=True)
class QualityFigures:
    picks: int  # answers naming the better response
    answers: int  # answers asked for (two per pair: both orders)
    kept: int  # pairs whose verdict is the same in both orders
    pairs: int  # pairs with a verdict in both orders

    @property
    def order_consistent(self) -> bool:
        return self.pairs > 0 and self.kept >= CONSISTENT_SHARE * self.pairs

    def summary(self) -> str:
        """One clause for a person, with the counts behind each share."""
        text = f"picks the better response in {self.picks} of {self.answers} answers"
        if self.answers:
            text += f" ({self.picks / self.answers:.0%})"
        text += f"; keeps its verdict when A and B swap on {self.kept} of {self.pairs} pairs"
        if self.pairs:
            text += f" ({self.kept / self.pairs:.0%})"
        if not self.order_consistent:
            text += ": order-inconsistent, so it judges both orders by default"
        return text

    def to_dict(self) -> dict[str, float]:
        return {
            "picks": self.picks,
            "answers": self.answers,
            "kept": self.kept,
            "pairs": self.pairs,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> QualityFigures | None:
        """The figures a profile file keeps; None where one is missing or no count (as
        ``int`` reads a number or its text: any other value is none)."""
        try:
            given = [data[k] for k in ("picks", "answers", "kept", "pairs")]
            counts = [int(v) for v in given if isinstance(v, int | float | str)]
            return cls(*counts) if len(counts) == len(given) else None
        except (KeyError, TypeError, ValueError):
            return None


def quality_figures(
    known: Mapping[str, Verdict],
    answers: Iterable[tuple[str, Verdict | None, Verdict | None]],
) -> QualityFigures:
    """Figures from ``(pair, verdict in order AB, verdict in order BA)`` for the pairs in
    ``known`` (pair -> its better response); verdicts in the pair's own A/B terms, None
    where the judge gave none (a parse failure, an error)."""
    picks = kept = pairs = 0
    asked = 0
    for pair, ab, ba in answers:
        better = known.get(pair)
        if better is None:
            continue
        asked += 2
        picks += (ab is better) + (ba is better)
        if ab is not None and ba is not None:
            pairs += 1
            kept += ab is ba
    return QualityFigures(picks, asked, kept, pairs)
