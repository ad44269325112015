"""The one reader of "a pair and its verdicts": every pair the window lists or shows, an
export writes, the figures, the queue, a comparison or a merge read comes from here,
decoded into ``domain.pair_record`` records; the rules over them are ``domain.pair_view``.

A ``PairQuery`` says what to read: which pair columns (the list needs three, an export
every field), which rubric, which judges (one, or several for a jury), whether each
answer's raw completion, error and latency come too, and whether the reviewers' verdicts
do. ``read_pairs`` then reads one pair, a set of ids, the pairs after an id, or the whole
project, in id order, streamed from one cursor so memory stays flat at any size. A search
is a ``Condition`` on the pair row (the list's, through the full-text index, is
``search_index.text_search``).

The query is one row per pair: each judge's latest answer per order is found by a seek of
``judge_results_lookup`` (rubric, judge, pair, order) and the reviewers' current rows by
a seek of ``human_verdicts_lookup``, so a page of 60 pairs costs the same on a 100,000-pair
project as on a small one. Verdicts, confidences and preferences are stored as JSON; the
verdicts' few distinct texts are decoded once each.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import json
import sqlite3
from collections.abc import Callable, Collection, Generator, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple, Never, TypeVar, cast

from desktop.adapters.store.human_verdicts import CURRENT
from desktop.adapters.store.pair_steps import COUNT_COLUMNS
from desktop.adapters.store.project import ProjectStore
from desktop.domain import numerals
from desktop.domain.conversations import from_json
from desktop.domain.numerals import Numeral
from desktop.domain.pair_record import JudgeAnswer, PairColumns, PairRecord, ReviewerVerdict
from desktop.domain.pairs import CONVERSATION_FIELDS, FIELDS, STORED_FIELDS
from desktop.domain.verdicts import BY_VALUE, MARKS, Verdict

ORDERS = ("AB", "BA")
#: Every column a query may project, and how it is read from ``p``, a row of pairs.
#: ``metadata`` is decoded (a dict, or None; its numbers Numerals, as the file wrote them);
#: ``metadata_text`` is the JSON as stored, for writers of JSON text. A conversation
#: pair's ``conversation_a`` and ``conversation_b`` are its sides as stored (JSON text, None
#: for a single-turn pair: copied as they are by merge); ``messages_a`` and ``messages_b``
#: the same decoded (tuples of ``Message``), and ``turn`` the compared assistant turn.
PAIR_COLUMNS: Mapping[str, str] = {
    "id": "p.id",
    "pair_key": "p.pair_key",
    **{name: f"p.{name}" for name in (*FIELDS, *CONVERSATION_FIELDS)},
    "messages_a": "p.conversation_a",
    "messages_b": "p.conversation_b",
    "metadata": "p.metadata",
    "metadata_text": "p.metadata",
    "len_a": "length(p.response_a)",  # characters
    "len_b": "length(p.response_b)",
    # a trajectory's counts (m012; None for a pair that is none), one seek each
    **{
        name: f"(SELECT s.{name} FROM pair_steps s WHERE s.pair_id = p.id)"
        for name in COUNT_COLUMNS
    },
}
#: What the pair list shows.
LIST_COLUMNS = ("id", "external_id", "category")
#: What the pair list shows of a project that holds trajectories.
STEP_LIST_COLUMNS = (*LIST_COLUMNS, *COUNT_COLUMNS)
#: What figures group and count by.
FIGURE_COLUMNS = ("id", "external_id", "category", "model_a", "model_b", "len_a", "len_b")
#: Every field of a pair, as export and merge write them (add a metadata column).
EVERY_FIELD = ("id", *FIELDS)
#: Every field a project stores of a pair, conversations as stored: what merge copies.
EVERY_STORED_FIELD = ("id", *STORED_FIELDS)
#: A conversation pair's messages and compared turn, decoded (None for a single-turn pair).
CONVERSATION_COLUMNS = ("messages_a", "messages_b", "turn")

_ANSWER = ("status", "verdicts", "confidence", "preference")
_DETAIL = ("raw_completion", "error", "latency_ms")
# Each reviewer's current row per dimension, as a JSON array of arrays (notes and names
# may hold any character). Ordered by id in Python: the index visits them by dimension.
_REVIEWS = (
    "(SELECT json_group_array(json_array(h.id, h.dimension, h.reviewer, h.verdict, h.mode,"
    " h.note, h.created_at, h.mark)) FROM human_verdicts h WHERE h.pair_id = p.id"
    f" AND h.rubric_name = :review_rubric AND {CURRENT})"
)
_NO_REVIEWS = "[]"
_NO_DETAIL = (None, None, None)
T = TypeVar("T", bound=tuple[object, ...])
_EMPTY: Mapping[str, Never] = MappingProxyType({})


class Condition(NamedTuple):
    """A condition on ``p``, a row of pairs, with its named parameters (names that start
    with ``c_`` are the condition's own)."""

    sql: str
    params: Mapping[str, object]


#: What the pairs may be sorted by besides their id, as SQL (a missing value sorts as '';
#: m005 and m012 index each expression, so a page of a sorted list is a seek).
SORT_KEYS: Mapping[str, str] = {
    "id": "p.id",
    "external_id": "coalesce(p.external_id, '')",
    "category": "coalesce(p.category, '')",
    # a trajectory pair's counts, both sides together (-1 for a pair that is none), each
    # indexed by m012
    **{kind: f"coalesce(p.{kind}, -1)" for kind in ("steps", "calls", "errors")},
}


class Ordering(NamedTuple):
    """Pairs sorted by ``key`` (one of SORT_KEYS), then by id; ``after``, the last pair
    read as (its key's value, its id), to read on from it."""

    key: str = "id"
    descending: bool = False
    after: tuple[object, int] | None = None

    def sql(self) -> tuple[str, str, dict[str, object]]:
        """The condition that reads on from ``after``, the ORDER BY, and their parameters."""
        expr, direction = SORT_KEYS[self.key], " DESC" if self.descending else ""
        order = "p.id" + direction if self.key == "id" else f"{expr}{direction}, p.id{direction}"
        if self.after is None:
            return "1", order, {}
        value, last = self.after
        beyond, past = ("<", "<=") if self.descending else (">", ">=")
        params = {"o_value": value, "o_id": last}
        if self.key == "id":
            return f"p.id {beyond} :o_id", order, params
        return (
            f"{expr} {past} :o_value AND ({expr} {beyond} :o_value OR p.id {beyond} :o_id)",
            order,
            params,
        )


@dataclass(frozen=True)
class PairQuery:
    """What to read of each pair. Without a rubric, the pairs alone."""

    rubric: str | None = None
    judges: tuple[str, ...] = ()  # each one's latest answer per order
    columns: tuple[str, ...] = LIST_COLUMNS  # see PAIR_COLUMNS
    detail: bool = False  # each answer's raw completion, error and latency
    reviews: bool = True  # each reviewer's current verdict per dimension
    #: Whose reviewers' verdicts: another rubric's, where asked for explicitly (its
    #: dimensions of the same name serve as the reference); default the query's rubric.
    reviews_of: str | None = None

    def __post_init__(self) -> None:
        unknown = [c for c in self.columns if c not in PAIR_COLUMNS]
        if unknown or "id" not in self.columns:
            raise ValueError(f"pair columns {self.columns}: 'id' is needed; unknown {unknown}")


def read_pairs(
    store: ProjectStore,
    query: PairQuery,
    *,
    after_id: int = 0,
    ids: Collection[int] | None = None,
    where: Condition | None = None,
    order: Ordering | None = None,
) -> Generator[PairRecord, None, None]:
    """The pairs after ``after_id`` (among ``ids`` if given, meeting ``where`` if given),
    in id order (or ``order``'s), one record at a time: read as far as needed, then close
    the iterator."""
    params: dict[str, object] = {"after": after_id}
    clauses = ["p.id > :after"]
    if ids is not None:
        params.update({f"id{i}": pair_id for i, pair_id in enumerate(ids)})
        clauses.append(f"p.id IN ({', '.join(f':id{i}' for i in range(len(ids)))})")
    if where is not None:
        clauses.append(where.sql)
        params.update(where.params)
    order_by = "p.id"
    if order is not None:
        onward, order_by, more = order.sql()
        clauses.append(onward)
        params.update(more)
    return _records(store, query, " AND ".join(clauses), params, order_by)


def read_pair(store: ProjectStore, query: PairQuery, pair_id: int) -> PairRecord | None:
    """One pair, or None if the project has no pair with that id."""
    records = _records(store, query, "p.id = :pair", {"pair": pair_id})
    try:
        return next(records, None)
    finally:
        records.close()


class _Statement(NamedTuple):
    sql: str
    slots: tuple[tuple[str, str, int], ...]  # judge, order, where its columns start
    reviews_at: int | None  # where the reviewers' verdicts are


@functools.lru_cache(maxsize=64)
def _statement(query: PairQuery, where: str, order_by: str = "p.id") -> _Statement:
    """The SQL of a query (made once: the window asks for one pair at every move)."""
    columns = [PAIR_COLUMNS[name] for name in query.columns]
    joins = []
    slots = []
    per_answer = (*_ANSWER, *_DETAIL) if query.detail else _ANSWER
    if query.rubric is not None:
        for j in range(len(query.judges)):
            for order in ORDERS:
                alias = f"{order.lower()}{j}"
                slots.append((query.judges[j], order, len(columns)))
                columns += [f"{alias}.{c}" for c in per_answer]
                joins.append(
                    f" LEFT JOIN judge_results {alias} ON {alias}.id = (SELECT max(id)"
                    f" FROM judge_results WHERE rubric_name = :rubric AND judge_model = :judge{j}"
                    f" AND pair_id = p.id AND ord = '{order}')"
                )
    reviews_at = None
    if query.rubric is not None and query.reviews:
        reviews_at = len(columns)
        columns.append(_REVIEWS)
    sql = (
        f"SELECT {', '.join(columns)} FROM pairs p{''.join(joins)}"
        f" WHERE {where} ORDER BY {order_by}"
    )
    return _Statement(sql, tuple(slots), reviews_at)


def _records(
    store: ProjectStore,
    query: PairQuery,
    where: str,
    params: dict[str, object],
    order_by: str = "p.id",
) -> Generator[PairRecord, None, None]:
    sql, slots, reviews_at = _statement(query, where, order_by)
    if query.rubric is not None:
        params["rubric"] = query.rubric
        params["review_rubric"] = query.reviews_of or query.rubric
        params.update({f"judge{j}": judge for j, judge in enumerate(query.judges)})
    names = query.columns
    # Where the columns read as JSON text are decoded: metadata, and a side's messages.
    metadata_at = names.index("metadata") if "metadata" in names else None
    messages_at = tuple(names.index(name) for name in ("messages_a", "messages_b") if name in names)
    make_fields, width = _fields_maker(names), len(names)
    detail = query.detail
    # Run once per pair of a whole project: names bound here, tuples made without the
    # named tuples' Python-level constructors.
    new_answer, new_record = _NEW_ANSWER, _NEW_RECORD
    verdicts_of, decoded, preferences = _verdicts, _json, _preferences
    empty, no_reviews = _EMPTY, _NO_REVIEWS
    cursor = store.conn.execute(sql, params)
    try:
        # A screenful at a time: one call per batch rather than per row, and a batch still
        # small enough to stay in the processor's cache (larger ones read slower).
        while batch := cursor.fetchmany(64):
            for row in batch:
                if metadata_at is None and not messages_at:
                    fields = make_fields(row[:width])
                else:
                    fields = make_fields(_decoded(row[:width], metadata_at, messages_at))
                answers = []
                for judge, order, i in slots:
                    status = row[i]
                    if status is None:  # no answer in this order (status is never NULL)
                        continue
                    verdicts, confidence, preference = row[i + 1], row[i + 2], row[i + 3]
                    answers.append(
                        new_answer(
                            (
                                judge,
                                order,
                                status,
                                verdicts_of(verdicts) if verdicts else empty,
                                # Numbers, rarely the same text twice: decoded each time.
                                decoded(confidence) if confidence else empty,
                                preferences(preference) if preference else empty,
                                *(row[i + 4 : i + 7] if detail else _NO_DETAIL),
                            )
                        )
                    )
                text = row[reviews_at] if reviews_at is not None else no_reviews
                yield new_record(
                    (fields, tuple(answers), _reviews(text) if text != no_reviews else ())
                )
    finally:
        # A generator left unfinished (an export stopped by a full disk) is closed by the
        # garbage collector, perhaps after its store let go of the file: the cursor went
        # with the connection.
        with contextlib.suppress(sqlite3.ProgrammingError):
            cursor.close()


def _decoded(
    values: tuple[object, ...], metadata_at: int | None, messages_at: tuple[int, ...]
) -> list[object]:
    """A projection's metadata (a dict, or None for none) and sides' messages (None for a
    single-turn pair) decoded from the JSON text the project stores."""
    out = list(values)
    if metadata_at is not None:
        text = out[metadata_at]
        out[metadata_at] = numerals.loads(text) if isinstance(text, str) and text else None
    for i in messages_at:
        text = out[i]
        if isinstance(text, str):
            out[i] = from_json(text)
    return out


def _new(kind: type[T]) -> Callable[[tuple[object, ...]], T]:
    return functools.partial(tuple.__new__, kind)


_NEW_ANSWER, _NEW_RECORD = _new(JudgeAnswer), _new(PairRecord)


# Called through a name so that mypy takes it as the function typeshed declares, whose
# fields may be any strings, rather than as a class statement, whose must be literals.
_named_tuple: Callable[[str, Iterable[str]], type[tuple[object, ...]]] = collections.namedtuple


@functools.cache
def _fields_maker(names: tuple[str, ...]) -> Callable[[Iterable[object]], PairColumns]:
    """What makes one projection's columns: a named tuple of them, one class per
    projection. Its fields are known only when it is made, so a type checker sees a plain
    tuple: the cast says what ``PairColumns`` declares and the import-time check below
    holds it to."""
    kind = _named_tuple("PairFields", names)
    return cast("Callable[[Iterable[object]], PairColumns]", functools.partial(tuple.__new__, kind))


# Each column a query may project is one PairColumns declares, and each it declares one a
# query may project: a column added to one alone would be read untyped or never.
_DECLARED = set(PairColumns.__annotations__)
if set(PAIR_COLUMNS) != _DECLARED:
    raise RuntimeError(f"PairColumns {sorted(_DECLARED)} are not PAIR_COLUMNS {list(PAIR_COLUMNS)}")


def absent(pair_id: int) -> PairRecord:
    """The record of a pair no longer in the project: its id, no answers, no reviews."""
    return PairRecord(_fields_maker(("id",))((pair_id,)))


# JSONDecoder's __init__ sets scan_once (the C scanner), which typeshed does not declare.
_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _json(text: str) -> object:
    """JSON text as json.loads reads it; text the store wrote itself (json.dumps, no
    surrounding space) goes straight to the C scanner, about twice as fast for these
    small objects, which a 100,000-pair export reads 150,000 of."""
    try:
        value, end = _scan(text, 0)
    except (StopIteration, ValueError):
        return json.loads(text)  # the same error json.loads gives, or leading space
    return value if end == len(text) else json.loads(text)


@functools.lru_cache(maxsize=65536)
def _preferences(text: str) -> Mapping[str, Numeral]:
    """Stored preferences, each a Numeral: the number as the file wrote it, every digit
    (``float()`` of it where a figure wants a number). Imported files repeat a few values
    (1, 2, 1.5) over many pairs: shared, read-only."""
    return MappingProxyType(numerals.loads(text))


@functools.lru_cache(maxsize=4096)
def _verdicts(text: str) -> Mapping[str, Verdict]:
    """Stored verdicts ("A", "B", "tie" per dimension) as Verdicts, shared read-only."""
    stored = _json(text)
    if not isinstance(stored, dict):
        raise ValueError(f"stored verdicts {text!r} are no JSON object")
    return MappingProxyType(
        {dim: BY_VALUE[value] for dim, value in stored.items() if value in BY_VALUE}
    )


def _reviews(text: str) -> tuple[ReviewerVerdict, ...]:
    rows = _json(text)
    if not isinstance(rows, list):
        raise ValueError(f"reviews {text!r} are no JSON array")
    if len(rows) > 1:
        rows.sort()  # by id: the order they were given
    return tuple(
        ReviewerVerdict(
            dimension, reviewer, BY_VALUE.get(verdict), mode, note, created_at, MARKS.get(mark)
        )
        for _, dimension, reviewer, verdict, mode, note, created_at, mark in rows
    )
