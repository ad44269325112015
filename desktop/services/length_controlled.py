"""`stats --by model`'s length-controlled win rate: each generator's rows against its
baseline, in pair order, checked to be what AlpacaEval's GLM assumes (one row per
instruction, the baseline's instructions in the baseline's order) before they are fitted.

AlpacaEval indexes an instruction's difficulty, and splits its cross-validation, by a row's
position; where the rows do not line up, the figure would be of something else, so the row
says why instead of giving one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from desktop.domain.length_control import (
    GAMED_FILE,
    GamedData,
    LengthControlled,
    length_controlled,
    needs_files,
)


@dataclass
class GeneratorRows:
    """One (generator, baseline)'s pairs in id order: instruction, lengths, preferences."""

    # Each instruction's hash, not its text: 100 generators x 805 long prompts stay small.
    instructions: list[int] = field(default_factory=list)
    len_a: list[int] = field(default_factory=list)
    len_b: list[int] = field(default_factory=list)
    preferences: dict[str, list[float | None]] = field(default_factory=dict)

    def add(self, instruction: str, len_a: int, len_b: int, prefs: dict[str, float | None]) -> None:
        self.instructions.append(hash(instruction))
        self.len_a.append(len_a)
        self.len_b.append(len_b)
        for dim, p in prefs.items():
            self.preferences.setdefault(dim, [None] * (len(self.instructions) - 1)).append(p)
        for got in self.preferences.values():
            if len(got) < len(self.instructions):
                got.append(None)


@dataclass(frozen=True)
class LcFigure:
    win_rate: float | None = None
    standard_error: float | None = None
    reason: str | None = None  # why there is no figure, one line


def baseline_orders(
    rows: dict[tuple[str | None, str | None], GeneratorRows],
) -> dict[str, list[int]]:
    """Each baseline's instructions in the order of their first pair against it."""
    orders: dict[str, dict[int, None]] = {}
    for (_, baseline), got in rows.items():
        if baseline is not None:
            seen = orders.setdefault(baseline, {})
            for text in got.instructions:
                seen.setdefault(text, None)
    return {b: list(seen) for b, seen in orders.items()}


def why_not(
    generator: str | None,
    baseline: str | None,
    got: GeneratorRows,
    order: list[int] | None,
    variant: str,
    gamed: GamedData | None,
) -> str | None:
    """Why this generator's rows cannot be fitted as AlpacaEval fits them, or None."""
    if baseline is None or generator is None:
        return "the pairs name no generator or no baseline (model_a)"
    if needs_files(variant) and gamed is None:
        return f"{variant} needs AlpacaEval's {GAMED_FILE} (--lc-files DIR)"
    assert order is not None
    n = len(got.instructions)
    if len(set(got.instructions)) < n:
        return "an instruction appears more than once against this baseline"
    if n != len(order):
        return f"{n:,} of the baseline's {len(order):,} instructions"
    if got.instructions != order:
        return "the instructions are not in the baseline's order (the pairs' order)"
    if gamed is not None and needs_files(variant) and n != gamed.instructions:
        return f"{n:,} instructions, AlpacaEval's {GAMED_FILE} has {gamed.instructions:,}"
    if n < 10:
        return "fewer than 10 instructions: too few for the 5-fold fit"
    if len(set(d - b for d, b in zip(got.len_a, got.len_b, strict=True))) < 2:
        return "every pair has the same length difference"
    return None


def lc_figure(
    generator: str | None,
    baseline: str | None,
    got: GeneratorRows,
    dim: str,
    order: list[int] | None,
    variant: str,
    gamed: GamedData | None,
) -> LcFigure:
    reason = why_not(generator, baseline, got, order, variant, gamed)
    if reason is not None:
        return LcFigure(reason=reason)
    if generator == baseline:
        return LcFigure(50.0, 0.0)  # AlpacaEval: the baseline against itself, by construction
    prefs = got.preferences.get(dim, [None] * len(got.instructions))
    if sum(p is not None for p in prefs) < 10:
        return LcFigure(reason="fewer than 10 judged pairs: too few for the 5-fold fit")
    fit: LengthControlled = length_controlled(prefs, got.len_a, got.len_b, variant, gamed)
    return LcFigure(fit.win_rate, fit.standard_error)
