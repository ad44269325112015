"""The ``pair_key`` that makes a pair the same pair on re-import, merge and migration.

Kept apart from the pairs table's queries: the schema's migrations compute keys too, and
they must not import the store that runs them.
"""

from __future__ import annotations

from desktop.domain.pairs import IDENTITY_FIELDS


def content_key(
    external_id: str | None,
    *identity: str | None,
    conversation: tuple[str, str, int] | None = None,
    tools: str | None = None,
) -> str:
    """The ``pair_key`` of a pair: ``id:`` and its external id where it has one, else a
    hash of its IDENTITY_FIELDS (texts and generators, in that order; absent = empty) and,
    for a conversation pair, of its CONVERSATION_FIELDS (both sides as stored, every
    message, and the compared turn), and the tools a trajectory was given where it has
    any. A single-turn pair hashes exactly what it hashed before conversations existed,
    and a conversation without tools what it did before tools, so no stored key changes."""
    if external_id:
        return "id:" + external_id
    if len(identity) != len(IDENTITY_FIELDS):
        raise ValueError(f"expected {len(IDENTITY_FIELDS)} identity fields, got {len(identity)}")
    import hashlib  # loads OpenSSL: only when something is hashed

    digest = hashlib.sha256()
    for part in identity:
        digest.update((part or "").encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    if conversation is not None:
        side_a, side_b, turn = conversation
        digest.update(b"conversation\x00")
        for part in (side_a, side_b, str(turn)):
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\x00")
    if tools is not None:
        digest.update(b"tools\x00" + tools.encode("utf-8", "surrogatepass") + b"\x00")
    return "sha256:" + digest.hexdigest()
