"""What an import shape is: one kind of record a data file may hold, read into a pair and
the verdicts the record carries.

A shape says whether a record is its kind (``claims``), which of the file's columns it
reads (``columns``, once per file), and what one record gives (``read``): the pair's
fields, the pair's id (``external_id``, or none: then the pair is its texts and
generators), the members kept as metadata, a model judge's answers and people's
verdicts. It reads; the import service stores, inside its one transaction. Errors are an
``ImportDataError`` whose message starts with the record's ``where``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import NamedTuple

from desktop.domain.columns import resolve_columns
from desktop.domain.results import Order, Status
from desktop.domain.verdicts import Mark, Verdict

_NONE: Mapping[str, float] = MappingProxyType({})


class FileAnswer(NamedTuple):
    """A model judge's answer that a record carries: stored as that judge's result
    (settings ``imported``), on the rubric the shape's ``judge_rubric`` records. Verdicts
    name the pair's own A and B, whichever ``order`` the judge was shown."""

    judge: str
    verdicts: Mapping[str, Verdict]
    raw_completion: str
    confidence: Mapping[str, float] = _NONE
    preference: Mapping[str, float | str] = _NONE  # as the file gave it
    order: Order = Order.AB
    status: Status = Status.OK  # PARSE_FAILURE: the file says its judge's answer was unread


class FileVerdict(NamedTuple):
    """A person's verdict that a record carries: stored as that reviewer's verdict, mode
    ``imported``, with ``note`` as its note. Several on one pair are several reviewers;
    one reviewer's second vote on a pair in the same import is kept as reviewer
    ``NAME (vote 2)`` (see ``services/import_verdicts.py``)."""

    reviewer: str
    verdict: Verdict
    dimension: str = "overall"
    note: str | None = None
    mark: Mark | None = None  # Mark.BOTH_BAD: a tie on which both are bad (Arena's)


class ShapedRecord(NamedTuple):
    """What one record gives: the pair's fields (``domain.pairs.FIELDS``; its
    ``external_id``, where it has one, is the pair's id), the members kept with it, and
    the verdicts it carries. Named tuples: one is made for every record of a file."""

    fields: Mapping[str, object]
    metadata: Mapping[str, object]
    answers: tuple[FileAnswer, ...] = ()
    reviews: tuple[FileVerdict, ...] = ()


@dataclass(frozen=True)
class Columns:
    """Which of a file's columns hold which pair field, found once per file."""

    by_field: Mapping[str, str]  # pair field -> the file's column
    members: frozenset[str]  # the columns read into the pair

    @classmethod
    def of(cls, by_field: Mapping[str, str]) -> Columns:
        return cls(dict(by_field), frozenset(by_field.values()))


@dataclass(frozen=True)
class JudgeRubric:
    """The rubric a shape's judge answers were given on, recorded in the project (kind
    ``imported``) so each answer traces to it. Its text decides its hash, which keys the
    answers: changing a word here makes a re-import add every answer again."""

    title: str
    origin: str
    dimensions: tuple[str, ...] = ("overall",)

    def text(self, name: str) -> str:
        return json.dumps(
            {"name": name, "dimensions": list(self.dimensions), "origin": self.origin}
        )


class Shape:
    """One kind of record. A shape is a subclass that sets the class attributes and
    overrides ``read`` (and ``claims`` or ``columns`` where the defaults do not fit), with
    one instance in ``SHAPES`` (``domain/import_shapes/__init__.py``)."""

    name: str = ""  # what `--format` calls it, and the import report's kind
    title: str = ""  # a few words for --help and the README
    # Members any one of which marks a record as possibly this kind: ``claims`` is asked
    # only of records that hold one (of every record where there are none).
    marks: tuple[str, ...] = ()
    # True: a record of this kind is a plain pair plus members that carry verdicts, read
    # with the plain columns, so a file that starts with records without them (the
    # first records of an AlpacaEval file without a preference) turns into this kind at
    # its first record that has one.
    takes_over: bool = False
    # The rubric its verdicts are given on unless `--rubric` names one.
    rubric: str = "href-overall"
    judge_rubric: JudgeRubric | None = None  # for shapes whose records carry judge answers
    # Records read and written at a time: fewer for records that hold whole conversations
    # (several KB each), so an import's memory stays near a single-turn import's.
    batch: int = 2000

    def claims(self, fields: Mapping[str, object]) -> bool:
        """Whether a record (one holding a mark) is this kind."""
        return any(mark in fields for mark in self.marks)

    def columns(self, names: Iterable[str], overrides: Mapping[str, str], where: str) -> Columns:
        """The file's columns for each pair field, from its first record's member names
        and the user's ``--map``; an ImportDataError where the pair cannot be read (a
        folder's file that gives none is skipped)."""
        return Columns.of(resolve_columns(names, overrides, where))

    def read(self, where: str, fields: Mapping[str, object], columns: Columns) -> ShapedRecord:
        raise NotImplementedError
