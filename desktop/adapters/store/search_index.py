"""The list's search: pairs whose instruction or responses contain a text, or whose
external id is it, found through the full-text index (``pairs_search``, migration m005)
rather than by reading every pair.

The index is SQLite's FTS5 with the trigram tokenizer: it knows which pairs hold each
three-character piece, folded to one case. A pair holding every piece of the searched text
is a candidate; each candidate is then checked with the very test the search has always
made (``LIKE``: a substring, letters A to Z in either case, every other character as
written), so the index only narrows the pairs read and the results are the scan's, to the
pair. A text of one or two characters has no three-character piece: it is searched by
reading every pair (``scan_search``), as before the index.

Any text is a search. FTS5 reads its query as a C string (a NUL inside a quoted piece is
"unterminated string"), so a piece holding a NUL is never asked of the index; a text with
no other piece is a scan. A lone surrogate (half of a UTF-16 pair) is in no stored text
(an import refuses one) and cannot be sent to SQLite: a text holding one finds nothing.
"""

from __future__ import annotations

from desktop.adapters.store.pair_reader import Condition
from desktop.adapters.store.project import ProjectStore
from desktop.domain.results import LONE_SURROGATE

#: Shorter texts are not in the index (see the module's docstring).
INDEXED_LENGTH = 3
#: Pieces asked of the index at most: any of them narrows the candidates, and the check
#: against the text decides (a pasted paragraph needs no 2,000-term query).
_MOST_PIECES = 32

_LIKE = (
    "(p.instruction LIKE :c_like ESCAPE '\\' OR p.response_a LIKE :c_like ESCAPE '\\'"
    " OR p.response_b LIKE :c_like ESCAPE '\\')"
)


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


#: What a text no stored text can hold finds: nothing.
_NOTHING = Condition("0", {})


def _findable(text: str) -> bool:
    """Whether some stored text may hold ``text`` (none holds a lone surrogate)."""
    return LONE_SURROGATE.search(text) is None


def scan_search(text: str) -> Condition:
    """The search by reading every pair: what texts shorter than three characters get,
    and the reference the indexed search is tested against."""
    if not _findable(text):
        return _NOTHING
    return Condition(
        f"({_LIKE} OR p.external_id = :c_text)", {"c_like": _like(text), "c_text": text}
    )


def _pieces(text: str) -> list[str]:
    """The three-character pieces of ``text`` the index can be asked for (none with a
    NUL), each once, in order."""
    found = (text[i : i + INDEXED_LENGTH] for i in range(len(text) - INDEXED_LENGTH + 1))
    return list(dict.fromkeys(piece for piece in found if "\x00" not in piece))


def indexed(text: str) -> bool:
    """Whether ``text`` can be searched through the index."""
    return bool(_pieces(text))


def text_search(text: str) -> Condition:
    """Pairs whose instruction or responses contain ``text`` (A to Z in either case), or
    whose external id is ``text``: through the index where it can serve, else a scan."""
    if not indexed(text) or not _findable(text):
        return scan_search(text)
    # The index is asked only for pairs past the page before (read_pairs' ``:after``): a
    # common word's later pages do not collect its earlier matches again.
    return Condition(
        "p.id IN (SELECT rowid FROM pairs_search WHERE pairs_search MATCH :c_match"
        " AND rowid > :after UNION ALL SELECT id FROM pairs WHERE external_id = :c_text)"
        f" AND ({_LIKE} OR p.external_id = :c_text)",
        {"c_match": _match(text), "c_like": _like(text), "c_text": text},
    )


def _match(text: str) -> str:
    """The index's query: every three-character piece of ``text`` (at most _MOST_PIECES,
    evenly spread), each a literal."""
    pieces = _pieces(text)
    if len(pieces) > _MOST_PIECES:  # evenly spread, first and last kept
        step = (len(pieces) - 1) / (_MOST_PIECES - 1)
        pieces = [pieces[round(i * step)] for i in range(_MOST_PIECES)]
    return " AND ".join('"' + piece.replace('"', '""') + '"' for piece in pieces)


def candidates(store: ProjectStore, text: str, after: int, limit: int) -> tuple[list[int], bool]:
    """In id order, up to ``limit`` pairs after ``after`` that may hold ``text`` (the
    index's candidates, each to be checked with ``scan_search``) and the pairs whose
    external id is ``text``; and whether more may follow. Read window by window, a common
    word's first page needs only its first candidates, not all of them."""
    if not _findable(text):
        return [], False
    found = [
        r[0]
        for r in store.conn.execute(
            "SELECT rowid FROM pairs_search WHERE pairs_search MATCH ? AND rowid > ?"
            " ORDER BY rowid LIMIT ?",
            [_match(text), after, limit],
        )
    ]
    more = len(found) == limit
    named = store.conn.execute(
        "SELECT id FROM pairs WHERE external_id = ? AND id > ?" + (" AND id <= ?" if more else ""),
        [text, after, found[-1]] if more else [text, after],
    ).fetchall()
    return sorted({*found, *(r[0] for r in named)}), more
