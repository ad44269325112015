"""What the window lays a pair out as, beyond its instruction and two responses: a
conversation's turns around the compared one (``transcript``), or two runs of an agent
lined up step by step (``trajectory_steps``); neither for a single-turn pair.

Lining up a conversation of 10,000 messages is most of what showing it costs after reading
it, so the last few are kept. A pair's sides are read into tuples that are kept
(``conversations.sides_from_json``), so the same sides come back as the same objects: the
kept layouts are found by the sides' identity first, and only then by equality (which for
two distinct tuples of equal messages is still right, and compares 10,000 messages in
C), never by hashing every message.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

from desktop.domain.collector import paused
from desktop.domain.conversation_comparison import compare
from desktop.domain.conversations import (
    Conversation,
    ConversationError,
    ConversationShape,
    is_trajectory,
)
from desktop.domain.pairs import PairContent
from desktop.domain.trajectory_steps import Trajectories, trajectories
from desktop.domain.transcript import Transcript, transcript

KEPT = 4  # the pair shown, the ones J and K go to, and one more


class PairTurns(NamedTuple):
    transcript: Transcript | None = None  # a conversation's turns
    runs: Trajectories | None = None  # two trajectories' steps


SINGLE = PairTurns()
_kept: deque[tuple[Conversation, Conversation, int, PairTurns]] = deque(maxlen=KEPT)


def pair_turns(pair: PairContent) -> PairTurns:
    """The turns or steps ``pair`` is shown with (SINGLE: none, as for a conversation
    whose sides no longer compare at its turn, a file edited since its import, say)."""
    if not pair.is_conversation:
        return SINGLE
    a, b = pair.conversations()
    turn = pair.compared_turn
    for kept_a, kept_b, kept_turn, turns in _kept:
        if kept_turn == turn and _same(kept_a, a) and _same(kept_b, b):
            return turns
    turns = _lay_out(a, b, turn)
    _kept.append((a, b, turn, turns))
    return turns


def _same(kept: Conversation, side: Conversation) -> bool:
    return kept is side or (len(kept) == len(side) and kept == side)


def _lay_out(a: Conversation, b: Conversation, turn: int) -> PairTurns:
    with paused():  # (pairing 10,000 messages into turns: as reading them, collector.py)
        return _turns_or_steps(a, b, turn)


def _turns_or_steps(a: Conversation, b: Conversation, turn: int) -> PairTurns:
    try:
        runs = is_trajectory(a) or is_trajectory(b)
        if runs and compare(a, b, turn).shape is ConversationShape.TWO_TRAJECTORIES:
            return PairTurns(runs=trajectories(a, b))
        return PairTurns(transcript=transcript(a, b, turn))
    except ConversationError:  # (an import checks this: a file edited since, say)
        return SINGLE
