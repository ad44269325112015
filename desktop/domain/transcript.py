"""A conversation pair as the window shows it: the two sides' messages aligned turn by
turn, around the compared turn.

A turn is an assistant answer and the requests before it (system and user messages). The
compared turn's request and answers are the pair's instruction and responses, shown as a
single-turn pair's are; what comes before it (the history, and a system message or other
request of the compared turn itself) and after it (turns the data kept past the compared
answer, as MT-bench's turn-1 votes do) are rows of two columns, A and B. A message the
two sides have the same (a system message, the user turns, a shared history's answers) is
one row that spans both; one that differs is a row with each side's, and a side that has
no such message holds None there.

A conversation of 10,000 messages has 5,000 turns, of which the window shows a few: a
turn's rows are made when it is first read (``Turns``), so laying a pair out costs what
pairing its messages into turns does, not what making 5,000 turns would.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import zip_longest

from desktop.domain.conversation_comparison import compare
from desktop.domain.conversations import Conversation, ConversationShape, Message
from desktop.domain.made_on_read import MadeOnRead


@dataclass(frozen=True)
class Row:
    """One message of a turn, each side's (None: that side has none here)."""

    role: str  # system, user or assistant
    a: str | None
    b: str | None

    @property
    def shared(self) -> bool:
        """The same on both sides: shown once, across both columns."""
        return self.a is not None and self.a == self.b


@dataclass(frozen=True)
class Turn:
    number: int  # the assistant turn, from 1
    rows: tuple[Row, ...]

    def preview(self, most: int = 200) -> str:
        """What the turn is about, in a line of at most about ``most`` characters: its
        first request, or its first message."""
        first = next((r for r in self.rows if r.role == "user"), None) or self.rows[0]
        text = first.a if first.a is not None else first.b or ""
        return f"{first.role}: {' '.join(text[: 2 * most].split())}"

    def words(self, side: str) -> int:
        """Words of ``side``'s answer in this turn (0 where it has none)."""
        text = next((getattr(r, side) for r in self.rows if r.role == "assistant"), None)
        return len(text.split()) if text else 0


class Turns(MadeOnRead[Turn]):
    """A conversation's turns, each made when first read."""


@dataclass(frozen=True)
class Transcript:
    turn: int  # the compared turn
    turns: int  # how many turns the longer side has
    shape: ConversationShape
    before: Turns  # the history, and the compared turn's other requests
    after: Turns  # the turns after the compared answers


def _chunks(conversation: Conversation) -> list[tuple[list[Message], Message | None]]:
    """Each turn's requests and answer, in order; requests after the last answer are a
    turn without one."""
    chunks: list[tuple[list[Message], Message | None]] = []
    asks: list[Message] = []
    for message in conversation:
        if message.role == "assistant":
            chunks.append((asks, message))
            asks = []
        else:
            asks.append(message)
    if asks:
        chunks.append((asks, None))
    return chunks


def _rows(
    asks_a: Sequence[Message],
    answer_a: Message | None,
    asks_b: Sequence[Message],
    answer_b: Message | None,
) -> tuple[Row, ...]:
    rows: list[Row] = []
    for mine, theirs in zip_longest(asks_a, asks_b):
        if mine is not None and theirs is not None and mine.role == theirs.role:
            rows.append(Row(mine.role, mine.content, theirs.content))
            continue
        if mine is not None:
            rows.append(Row(mine.role, mine.content, None))
        if theirs is not None:
            rows.append(Row(theirs.role, None, theirs.content))
    if answer_a is not None or answer_b is not None:
        rows.append(
            Row(
                "assistant",
                answer_a.content if answer_a is not None else None,
                answer_b.content if answer_b is not None else None,
            )
        )
    return tuple(rows)


def _without_request(asks: list[Message]) -> list[Message]:
    """The requests of the compared turn but the one its answers reply to (the last user
    message, which the window shows as the instruction)."""
    last = max(i for i, m in enumerate(asks) if m.role == "user")
    return asks[:last] + asks[last + 1 :]


def transcript(a: Conversation, b: Conversation, turn: int) -> Transcript:
    """The rows of ``a`` and ``b`` compared at ``turn`` (see the module's docstring).
    Raises ``ConversationError`` where the two cannot be compared at that turn."""
    compared = compare(a, b, turn)
    chunks_a, chunks_b = _chunks(a), _chunks(b)
    own = _rows(
        _without_request(chunks_a[turn - 1][0]), None, _without_request(chunks_b[turn - 1][0]), None
    )
    none: tuple[list[Message], Message | None] = ([], None)

    def earlier(index: int) -> Turn:
        if index == turn - 1:  # the compared turn's other requests
            return Turn(turn, own)
        (asks_a, answer_a), (asks_b, answer_b) = chunks_a[index], chunks_b[index]
        return Turn(index + 1, _rows(asks_a, answer_a, asks_b, answer_b))

    def later(index: int) -> Turn:
        at = turn + index
        asks_a, answer_a = chunks_a[at] if at < len(chunks_a) else none
        asks_b, answer_b = chunks_b[at] if at < len(chunks_b) else none
        return Turn(at + 1, _rows(asks_a, answer_a, asks_b, answer_b))

    turns = max(len(chunks_a), len(chunks_b))
    before = Turns(turn - 1 + (1 if own else 0), earlier)
    return Transcript(turn, turns, compared.shape, before, Turns(turns - turn, later))
