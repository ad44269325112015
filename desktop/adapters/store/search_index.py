"""The list's search: pairs whose instruction or responses contain a text, or whose
external id is it, found through the full-text index (``pairs_search``, migration m005)
rather than by reading every pair.

The index is SQLite's FTS5 with the trigram tokenizer: it knows which pairs hold each
three-character piece, folded to one case. A pair holding every piece of the searched text
is a candidate; each candidate is then checked with the very test the search has always
made (a substring, letters A to Z in either case, every other character as written), so
the index only narrows the pairs read and the results are the scan's, to the pair. A text
of one or two characters has no three-character piece: it is searched by reading every
pair (``scan_search``), as before the index.

A NUL is a character like any other, as the window shows it (␀). SQLite's ``LIKE`` and
the trigram tokenizer read a text as a C string and stop at its first NUL, so the few
pairs that hold one are kept apart (``pairs_with_nul``, migration m010): each search
takes them as candidates too, and checks them with ``instr`` and ``lower``, which read a
text to its length. A searched text that holds a NUL can only be in those pairs: they are
its candidates, and no piece of it is asked of the index (FTS5 reads its query as a C
string too: "unterminated string"). A text too long for ``LIKE``'s pattern is checked the
same way. A lone surrogate (half of a UTF-16 pair) is in no stored text (an import
refuses one) and cannot be sent to SQLite: a text holding one finds nothing.

A trajectory pair's steps are searched too (``steps=True``, where the project holds one):
the text of what its agent said, the tools it called, their arguments and results, through
their own index (``steps_search``, m012, see ``pair_steps``), checked the same way against
the same text worked out of the stored sides. A project without trajectories searches
exactly as before.

The pairs a large import added may not be in the index yet (``search_backlog``, m013:
they are indexed after the import returns): they are read whole, with the scan's test,
as candidates beside the index's, so a search finds every match while the index is being
built, and once it is built asks only the index again.
"""

from __future__ import annotations

import re

from desktop.adapters.store.pair_reader import Condition
from desktop.adapters.store.pair_steps import side_text
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.search_backlog import FIRST_UNINDEXED, first_unindexed
from desktop.domain.results import LONE_SURROGATE

#: Shorter texts are not in the index (see the module's docstring).
INDEXED_LENGTH = 3
#: Pieces asked of the index at most: any of them narrows the candidates, and the check
#: against the text decides (a pasted paragraph needs no 2,000-term query).
_MOST_PIECES = 32
#: The longest pattern ``LIKE`` takes, in bytes (SQLITE_MAX_LIKE_PATTERN_LENGTH's default;
#: a longer one is "LIKE or GLOB pattern too complex").
_LIKE_MOST = 50_000

_COLUMNS = ("p.instruction", "p.response_a", "p.response_b")
_LIKE = "(" + " OR ".join(f"{c} LIKE :c_like ESCAPE '\\'" for c in _COLUMNS) + ")"
# The same test to each text's length (ASCII letters folded by lower(), as LIKE folds them).
_INSTR = "(" + " OR ".join(f"instr(lower({c}), lower(:c_text))" for c in _COLUMNS) + ")"
_WITH_NUL = "p.id IN (SELECT id FROM pairs_with_nul)"
_STEPS = (side_text("p.conversation_a"), side_text("p.conversation_b"))
_COUNTED = "p.id IN (SELECT pair_id FROM pair_steps)"
_STEPS_LIKE = (
    f"({_COUNTED} AND (" + " OR ".join(f"{t} LIKE :c_like ESCAPE '\\'" for t in _STEPS) + "))"
)
#: A search's text, where it holds no character JSON escapes, is in the stored JSON of a
#: side wherever it is in the side's text (``json.dumps`` writes every other character as
#: itself, and an OpenAI call's arguments, a JSON string in JSON, escape only those): a
#: LIKE over the stored text, in C, then rules out nearly every pair before its text is
#: worked out of it (``json_tree``), which a scan of every pair (a text of one or two
#: characters) would otherwise do for each: 0.4 s for 2,000 runs of 28 KB.
_STEPS_STORED = (
    f"({_COUNTED} AND (p.conversation_a LIKE :c_like ESCAPE '\\'"
    " OR p.conversation_b LIKE :c_like ESCAPE '\\') AND ("
    + " OR ".join(f"{t} LIKE :c_like ESCAPE '\\'" for t in _STEPS)
    + "))"
)
_ESCAPED = re.compile(r'["\\\x00-\x1f]')
_STEPS_INSTR = (
    f"({_COUNTED} AND (" + " OR ".join(f"instr(lower({t}), lower(:c_text))" for t in _STEPS) + "))"
)
#: What a text no stored text can hold finds: nothing.
_NOTHING = Condition("0", {})


def _findable(text: str) -> bool:
    """Whether some stored text may hold ``text`` (none holds a lone surrogate)."""
    return LONE_SURROGATE.search(text) is None


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _holds(text: str, steps: bool = False) -> Condition:
    """Pairs whose instruction or responses (and, with ``steps``, a trajectory's steps)
    hold ``text``: ``LIKE``, fast, where it reads the text whole (no NUL in the pair, none
    in the text, a pattern it takes); ``instr`` elsewhere."""
    if "\x00" in text:
        in_steps = f" OR {_STEPS_INSTR}" if steps else ""
        return Condition(f"(({_WITH_NUL} AND {_INSTR}){in_steps})", {"c_text": text})
    like = _like(text)
    if len(like.encode("utf-8")) > _LIKE_MOST:
        in_steps = f" OR {_STEPS_INSTR}" if steps else ""
        return Condition(f"({_INSTR}{in_steps})", {"c_text": text})
    in_steps = ""
    if steps:
        in_steps = f" OR {_STEPS_LIKE if _ESCAPED.search(text) else _STEPS_STORED}"
    return Condition(
        f"({_LIKE} OR ({_WITH_NUL} AND {_INSTR}){in_steps})", {"c_like": like, "c_text": text}
    )


def scan_search(text: str, *, steps: bool = False) -> Condition:
    """The search by reading every pair: what texts shorter than three characters get,
    and the reference the indexed search is tested against (``steps``: a trajectory's
    steps too)."""
    if not _findable(text):
        return _NOTHING
    holds = _holds(text, steps)
    return Condition(f"({holds.sql} OR p.external_id = :c_text)", holds.params)


def _pieces(text: str) -> list[str]:
    """The three-character pieces of ``text`` the index can be asked for (none with a
    NUL), each once, in order."""
    found = (text[i : i + INDEXED_LENGTH] for i in range(len(text) - INDEXED_LENGTH + 1))
    return list(dict.fromkeys(piece for piece in found if "\x00" not in piece))


def indexed(text: str) -> bool:
    """Whether ``text`` is searched through its candidates (the index's, or, for a text
    with a NUL, the pairs that hold one) rather than by reading every pair."""
    return "\x00" in text or bool(_pieces(text))


def text_search(text: str, *, steps: bool = False) -> Condition:
    """Pairs whose instruction or responses (with ``steps``, a trajectory's steps too)
    contain ``text`` (A to Z in either case), or whose external id is ``text``: through
    the index where it can serve, else a scan."""
    if not indexed(text) or not _findable(text):
        return scan_search(text, steps=steps)
    check = scan_search(text, steps=steps)
    if "\x00" in text:
        return Condition(
            "p.id IN (SELECT id FROM pairs_with_nul UNION ALL SELECT id FROM pairs WHERE"
            f" external_id = :c_text) AND {check.sql}",
            check.params,
        )
    # The index is asked only for pairs past the page before (read_pairs' ``:after``): a
    # common word's later pages do not collect its earlier matches again.
    in_steps = (
        " UNION ALL SELECT rowid FROM steps_search WHERE steps_search MATCH :c_match"
        " AND rowid > :after"
        if steps
        else ""
    )
    return Condition(
        "p.id IN (SELECT rowid FROM pairs_search WHERE pairs_search MATCH :c_match"
        " AND rowid > :after UNION ALL SELECT id FROM pairs WHERE external_id = :c_text"
        f" UNION ALL SELECT id FROM pairs_with_nul{in_steps}"
        f" UNION ALL {_unindexed(check)}) AND {check.sql}",
        {"c_match": _match(text), **check.params},
    )


def _unindexed(check: Condition) -> str:
    """The pairs outside the index (``search_backlog``) that meet ``check``, read whole:
    none, in one seek, once the index holds every pair. (``p`` here is the subquery's.)"""
    return (
        f"SELECT p.id FROM pairs p WHERE p.id >= {FIRST_UNINDEXED} AND p.id > :after"
        f" AND {check.sql}"
    )


def _match(text: str) -> str:
    """The index's query: every three-character piece of ``text`` (at most _MOST_PIECES,
    evenly spread), each a literal."""
    pieces = _pieces(text)
    if len(pieces) > _MOST_PIECES:  # evenly spread, first and last kept
        step = (len(pieces) - 1) / (_MOST_PIECES - 1)
        pieces = [pieces[round(i * step)] for i in range(_MOST_PIECES)]
    return " AND ".join('"' + piece.replace('"', '""') + '"' for piece in pieces)


def candidates(
    store: ProjectStore, text: str, after: int, limit: int, *, steps: bool = False
) -> tuple[list[int], bool]:
    """In id order, up to about ``limit`` pairs after ``after`` that may hold ``text``
    (the index's candidates, with ``steps`` those of the trajectories' steps too, the
    pairs that hold a NUL, each to be checked with ``scan_search``, and those outside the
    index that hold it, found by reading them) and the pairs whose
    external id is ``text``; and whether more may follow. Read window by window, a common
    word's first page needs only its first candidates, not all of them."""
    if not _findable(text):
        return [], False
    queries = ["SELECT id FROM pairs_with_nul WHERE id > ? ORDER BY id LIMIT ?"]
    params: list[list[object] | dict[str, object]] = [[after, limit]]
    if "\x00" not in text:
        queries.append(
            "SELECT rowid FROM pairs_search WHERE pairs_search MATCH ? AND rowid > ?"
            " ORDER BY rowid LIMIT ?"
        )
        params.append([_match(text), after, limit])
        if first_unindexed(store.conn) is not None:  # asked only while the index is behind
            check = scan_search(text, steps=steps)
            queries.append(f"{_unindexed(check)} ORDER BY p.id LIMIT :limit")
            params.append({**check.params, "after": after, "limit": limit})
        if steps:
            queries.append(
                "SELECT rowid FROM steps_search WHERE steps_search MATCH ? AND rowid > ?"
                " ORDER BY rowid LIMIT ?"
            )
            params.append([_match(text), after, limit])
    # Each list is complete up to its last id unless it was cut at ``limit``; so together
    # they are complete up to the smallest last id of those that were cut.
    found: list[int] = []
    end: int | None = None
    for sql, args in zip(queries, params, strict=True):
        ids = [r[0] for r in store.conn.execute(sql, args)]
        found += ids
        if len(ids) == limit:
            end = ids[-1] if end is None else min(end, ids[-1])
    more = end is not None
    named = store.conn.execute(
        "SELECT id FROM pairs WHERE external_id = ? AND id > ?" + (" AND id <= ?" if more else ""),
        [text, after, end] if more else [text, after],
    ).fetchall()
    window = {i for i in found if end is None or i <= end} | {r[0] for r in named}
    return sorted(window), more
