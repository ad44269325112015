"""The reviewer's edits in the window, each the whole state of their row on one dimension
of one pair: verdict, mark, note and mode. An edit is worked out first (``answered``,
``noted``, ``adjudicated``) and then written (``write``), so an undo writes back exactly the
state that was there, note and mode included, and a redo exactly the one it undid.

- A verdict keeps the note written before it (the reason first, then the decision); the
  note lives until its author edits or clears it.
- Enter on the judge's verdict is an accept (mode ``accepted``), never the reviewer's own
  verdict; a verdict typed with the judge never shown is ``blind``
  (``blind_review.BlindReview.mode``); an adjudicator's is ``adjudicated``.
- A note edit keeps the verdict, mark and mode it rides on.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from desktop.adapters.store.pair_reader import PairQuery, read_pair
from desktop.adapters.store.pairs import get_pair
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import TiebreakError
from desktop.domain.pair_record import ReviewerVerdict
from desktop.domain.pair_view import PairView
from desktop.domain.verdicts import ACCEPTED, ADJUDICATED, GUI, Mark, Verdict
from desktop.services.app_settings import AppSettings
from desktop.services.blind_review import BlindReview
from desktop.services.overrides import override, split_answer


class Reviewing(Protocol):
    """What the edits need of the window's session (``session.ReviewSession``)."""

    store: ProjectStore
    rubric_name: str
    dimensions: tuple[str, ...]
    settings: AppSettings
    blind: BlindReview

    def reviewer(self) -> str: ...


Answer = Verdict | Mark


class ReviewState(NamedTuple):
    """A reviewer's row on one dimension as it stands (all None: no row, or withdrawn)."""

    verdict: Verdict | None = None
    mark: Mark | None = None
    note: str | None = None
    mode: str | None = None

    @property
    def answer(self) -> Answer | None:
        return self.mark or self.verdict

    def shown(self) -> str:
        """How an undo step names it."""
        answer = self.answer
        return "cleared" if answer is None else answer.value


NO_ROW = ReviewState()


def state_of(row: ReviewerVerdict | None) -> ReviewState:
    if row is None:
        return NO_ROW
    return ReviewState(row.verdict, row.mark, row.note, row.mode)


class ReviewEdits:
    """The edits of one window's reviewer, on the session's project, rubric and reviewer."""

    def __init__(self, session: Reviewing) -> None:
        self.session = session

    def states(self, pair_id: int) -> dict[str, ReviewState]:
        """The reviewer's current state on each dimension of the pair that has a row."""
        s = self.session
        record = read_pair(s.store, PairQuery(s.rubric_name, columns=("id",)), pair_id)
        if record is None:
            raise TiebreakError(f"pair #{pair_id} is no longer in the project")
        rows = PairView(record, reviewer=s.reviewer()).my_rows()
        return {dim: state_of(row) for dim, row in rows.items()}

    def state(self, pair_id: int, dimension: str) -> ReviewState:
        return self.states(pair_id).get(dimension, NO_ROW)

    def answered(
        self, pair_id: int, dimension: str, answer: Answer | None, *, accepted: bool = False
    ) -> ReviewState:
        """The state an answer leaves: the note kept; the mode as the answer was given
        (accepted, blind or typed after reading)."""
        s = self.session
        before = self.state(pair_id, dimension)
        verdict, mark = split_answer(answer)
        if accepted:
            mode: str | None = ACCEPTED
        elif mark is not None and verdict is None:  # a skip or a broken mark: no verdict
            mode = GUI
        else:
            mode = s.blind.mode(
                s.store,
                pair_id,
                s.rubric_name,
                dimension,
                s.reviewer(),
                verdict,
                blind=s.settings.blind,
            )
        return ReviewState(verdict, mark, before.note, mode)

    def noted(self, pair_id: int, dimension: str, note: str) -> ReviewState:
        """The state a note leaves: the verdict, mark and mode as they were."""
        before = self.state(pair_id, dimension)
        return before._replace(note=note or None, mode=before.mode or GUI)

    def adjudicated(self, pair_id: int, dimension: str, answer: Answer) -> ReviewState:
        """The adjudicator's verdict, which settles the dimension (its label)."""
        verdict, mark = split_answer(answer)
        if verdict is None:
            raise TiebreakError("an adjudicator settles with a verdict: A, B, tie or both bad")
        return ReviewState(verdict, mark, self.state(pair_id, dimension).note, ADJUDICATED)

    def write(self, pair_id: int, dimension: str, state: ReviewState) -> None:
        """Append ``state`` as the reviewer's row, with what the window showed of the judge
        in the same transaction."""
        s = self.session
        pair = get_pair(s.store, pair_id)
        if pair is None:
            raise TiebreakError(f"pair #{pair_id} is no longer in the project")
        with s.blind.saving(s.store):
            override(
                s.store,
                pair,
                rubric=s.rubric_name,
                dimensions=s.dimensions,
                dimension=dimension,
                verdict=state.verdict,
                reviewer=s.reviewer(),
                note=state.note,
                mode=state.mode,
                mark=state.mark,
            )
