"""What changed, said once by whoever changed it, so each part of the window can decide for
itself what to show again (as Anki's ``OpChanges``): a verdict written, a job's answers,
another rubric or judge shown, another profile asked, pairs imported, a project opened,
another pair shown (as Anki's ``browser_did_change_row``).

Plain data: the window publishes a Change on its context's one signal and every part that
shows something subscribes; no part calls another to say what happened, so a new part (a
dock) reads the changes it cares about without an edit anywhere else."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

#: ``Change.pairs`` for a change that may touch any pair.
ANY_PAIR = None


@dataclass(frozen=True)
class Change:
    # Whose verdicts changed, on which pairs: a reviewer's edit names its pair and its
    # reviewer, a judge's answers their pairs and their judge. ``pairs`` None: any pair.
    pairs: frozenset[int] | None = frozenset()
    judges: frozenset[str] = frozenset()
    reviewers: frozenset[str] = frozenset()
    rubric: bool = False  # another rubric shown (its dimensions, its guidance, its judges)
    judge: bool = False  # another judge's verdicts shown
    profile: bool = False  # another profile asked by Ctrl+J (what the verdict panel says of it)
    pairs_added: bool = False  # an import added pairs (the list, its filters, the counts)
    project: bool = False  # a project opened (or the same one anew, after the settings)
    sample: bool = False  # a review sample drawn (Q walks it; the figures weight by it)
    # Another pair shown (``session.current``; None when none is): what follows the pair on
    # screen reads it. Its verdicts are the same as ever, so nothing else need listen.
    pair_shown: bool = False
    # A running job's answers as they arrive: another change follows when it ends, so work
    # over every pair (the figures, the review queue) waits for that one.
    more_coming: bool = False

    @classmethod
    def verdicts_of(
        cls,
        pairs: Iterable[int],
        *,
        judges: Iterable[str] = (),
        reviewers: Iterable[str] = (),
        more_coming: bool = False,
    ) -> Change:
        """Verdicts written on ``pairs`` by these judges or reviewers."""
        return cls(
            pairs=frozenset(pairs),
            judges=frozenset(judges),
            reviewers=frozenset(reviewers),
            more_coming=more_coming,
        )

    @property
    def verdicts(self) -> bool:
        """Some judge's answers or some reviewer's verdicts were written."""
        return bool(self.judges or self.reviewers)

    @property
    def shown(self) -> bool:
        """Whose verdicts are shown changed (another rubric, judge or project): everything
        that shows verdicts reads them again."""
        return self.rubric or self.judge or self.project

    def touches(self, pair_id: int | None) -> bool:
        """Whether the verdicts shown on ``pair_id`` may differ now."""
        if pair_id is None:
            return False
        if self.shown:
            return True
        return self.verdicts and (self.pairs is ANY_PAIR or pair_id in self.pairs)
