"""What the conversation shapes share: two sides read into a pair's fields with every
error naming the record and the file's own field, the columns beside the conversations
(id, generators, category, ...), and which side of a preference record is A.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from desktop.domain.columns import candidates
from desktop.domain.conversation_comparison import first_difference, pair_fields
from desktop.domain.conversations import (
    Conversation,
    ConversationError,
    decoded,
    is_trajectory,
    messages,
    to_json,
)
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import Columns
from desktop.domain.import_shapes.plain_pairs import pair_fields as plain_fields
from desktop.domain.verdicts import Verdict

# The pair fields a conversation record may give in columns of their own.
BESIDE = ("external_id", "model_a", "model_b", "category", "reference", "source")
# Where a conversation's default rubric comes from: FastChat's MT-bench pairwise question
# (which answer is better, one dimension, ``overall``), the question every one of these
# data sets asked its people or judge.
RUBRIC = "pair-v2"
# A batch of records that hold whole conversations (see ``Shape.batch``).
BATCH = 500


#: What Tiebreak's own preference export (``--format trl`` / ``openai-preference``) writes
#: beside each record: where its label came from. Read back, ``source`` is that, not the
#: pair's source text, and a label that was the judge's is no person's verdict.
PROVENANCE = ("pair", "reviewers", "source")
#: The sources of such a label that no person gave: the judge's verdict, and one resting
#: only on the judge's verdicts accepted with Enter.
NOT_A_PERSON = frozenset({"judge", "accepted"})


def provenance_taken(names: Iterable[str]) -> tuple[str, ...]:
    """The columns of a Tiebreak preference export's provenance among ``names`` (kept
    as metadata, never read as pair fields), or none where it is no such export."""
    present = set(names)
    return PROVENANCE if present.issuperset(PROVENANCE) else ()


def persons_label(fields: Mapping[str, object]) -> bool:
    """Whether a preference record's label is a person's: not where Tiebreak's own export
    says it was the judge's (``source`` ``judge`` or ``accepted``)."""
    if not all(name in fields for name in PROVENANCE):
        return True
    return fields.get("source") not in NOT_A_PERSON


def beside_columns(
    names: Iterable[str],
    overrides: Mapping[str, str],
    taken: Iterable[str],
    fields: tuple[str, ...] = BESIDE,
) -> dict[str, str]:
    """Field -> column for the ``fields`` a record names by their common names (or
    ``--map``), leaving out the columns the shape reads itself (``taken``)."""
    present = list(names)
    lowered = {c.strip().lower(): c for c in present}
    used = set(taken)
    out: dict[str, str] = {}
    for field in fields:
        column = overrides.get(field)
        if column is None:
            column = next(
                (lowered[n] for n in candidates(field) if n in lowered and lowered[n] not in used),
                None,
            )
        if column is not None and column in present and column not in used:
            out[field] = column
            used.add(column)
    return out


def side(where: str, value: object, column: str, *, encoded: bool = True) -> Conversation:
    """One side as messages; a side given as JSON text is decoded first (``encoded``)."""
    try:
        return messages(decoded(value, column) if encoded else value, column)
    except ConversationError as exc:
        raise ImportDataError(f"{where}: field {column!r}: {exc}") from None


def compared_fields(
    where: str,
    a: Conversation,
    b: Conversation,
    turn: object,
    names: Mapping[str, str],
    tools: object = None,
) -> dict[str, str | int | None]:
    """The pair fields of two sides compared at ``turn`` (None: the last), with the
    ``tools`` two trajectories were given (a list, or JSON text of one). ``names`` maps
    ``conversation_a``, ``conversation_b``, ``turn`` and ``tools`` to the file's own
    fields, so an error names what the user wrote."""
    compared: int | None
    if turn is None or type(turn) is int:
        compared = turn
    else:
        try:
            compared = int(str(turn))
        except ValueError:
            raise ImportDataError(
                f"{where}: field {names.get('turn', 'turn')!r}: must be a whole number from 1,"
                f" got {turn!r}"
            ) from None
    try:
        return pair_fields(a, b, compared, tools)
    except ConversationError as exc:
        column = names.get(exc.field, exc.field)
        raise ImportDataError(f"{where}: field {column!r}: {exc}") from None


def beside_fields(where: str, fields: Mapping[str, object], columns: Columns) -> dict[str, object]:
    """The pair fields held in columns beside the conversations, checked as plain ones."""
    return plain_fields(where, fields, columns)


def with_oriented(
    chosen: Conversation, rejected: Conversation
) -> tuple[Conversation, Conversation, Verdict]:
    """A preference record's two sides as A and B, and the verdict its preference is.

    The chosen side is A when the first byte of SHA-256 over both sides as stored (chosen,
    a NUL, rejected) is even, else B: about half the pairs each way, so a judge's position
    bias cannot pass for agreement, and the same record always gives the same pair, so a
    re-import adds nothing."""
    digest = hashlib.sha256()
    digest.update(to_json(chosen).encode("utf-8", "surrogatepass"))
    digest.update(b"\x00")
    digest.update(to_json(rejected).encode("utf-8", "surrogatepass"))
    if digest.digest()[0] % 2 == 0:
        return chosen, rejected, Verdict.A
    return rejected, chosen, Verdict.B


def parting_turn(where: str, a: Conversation, b: Conversation, sides: tuple[str, str]) -> int:
    """The compared turn of a preference record's two sides of one chat (each the whole
    chat, or the prompt and a completion): the first assistant turn at which they differ,
    so answers both sides share are context, never the compared pair. ``sides`` names the
    file's fields for A's side and B's. Refused: sides that never differ in an answer both
    have (one the same as the other, or one only going on where the other stops), which
    hold no two answers to prefer between."""
    try:
        turn = first_difference(a, b)
    except ConversationError as exc:
        raise ImportDataError(f"{where}: field {sides[1]!r}: {exc}") from None
    if turn is None:
        raise ImportDataError(
            f"{where}: field {sides[1]!r}: no answer differs from {sides[0]!r} in the turns"
            " both have, so there are no two answers to prefer between"
        )
    return turn


def compared_turn(
    where: str, a: Conversation, b: Conversation, sides: tuple[str, str]
) -> int | None:
    """``parting_turn`` of a preference record's sides, but two agent runs are compared
    whole, at their final answers (``conversation_comparison.compare``): None, and two
    runs that are the same are refused."""
    if is_trajectory(a) or is_trajectory(b):
        if a == b:
            raise ImportDataError(
                f"{where}: field {sides[1]!r}: the same run as {sides[0]!r}, so there are no"
                " two runs to prefer between"
            )
        return None
    return parting_turn(where, a, b, sides)


def given_tools(fields: Mapping[str, object], column: str | None) -> object:
    """A record's tool definitions (a list, or JSON text of one), None where it gives none."""
    value = fields.get(column) if column else None
    return None if value in ("", None, []) else value
