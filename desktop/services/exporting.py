"""Export a project as one row per pair with judge, human and final verdicts.

Streams straight from SQLite to a temporary file renamed at the end, so memory stays flat
on any project size and a crash never leaves half a file.
"""

from __future__ import annotations

import csv
import functools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop.adapters.formats.atomic import atomic_text_file, check_target
from desktop.adapters.formats.cells import FormulaGuard
from desktop.adapters.store.export_rows import PAIR_FIELDS, pair_rows, rows_with_verdicts
from desktop.adapters.store.human_verdicts import dimensions_with_verdicts
from desktop.adapters.store.project import ProjectStore
from desktop.adapters.store.results import judge_models
from desktop.adapters.store.rubrics import latest_rubric, rubric_names
from desktop.domain import numerals
from desktop.domain.dimension_view import human_consensus, judge_view, worst_status
from desktop.domain.errors import TiebreakError
from desktop.domain.verdicts import final_verdict

EXPORT_FORMATS = ("csv", "jsonl")
# Verdict and confidence JSON repeats across rows; parse each distinct text once.
_loads = functools.lru_cache(maxsize=65536)(json.loads)
_preferences = functools.lru_cache(maxsize=65536)(numerals.loads)  # digits as given


@dataclass(frozen=True)
class ExportReport:
    rows: int
    rubric: str | None
    judge_model: str | None
    columns: tuple[str, ...]
    fmt: str = "csv"
    guarded: int | None = None  # CSV cells defused as formulas; None when not guarded

    @property
    def guard_note(self) -> str:
        """The summary's word on the formula guard, for the command line and the window."""
        if self.fmt != "csv":
            return ""
        if self.guarded is None:
            return "; formula guard off"
        cells = "1 cell" if self.guarded == 1 else f"{self.guarded:,} cells"
        return f"; {cells} guarded against spreadsheet formulas"


def format_for(out: Path) -> str:
    """The format a file's name asks for: JSON lines for .jsonl and .ndjson, else CSV."""
    return "jsonl" if out.suffix.lower() in (".jsonl", ".ndjson") else "csv"


def require_rubric(store: ProjectStore, rubric: str, names: list[str] | None = None) -> str:
    """The rubric named, if the project knows it; else one line naming the ones it has."""
    names = rubric_names(store) if names is None else names
    if rubric not in names and latest_rubric(store, rubric) is None:
        known = ", ".join(names) or "none yet"
        raise TiebreakError(
            f"{store.path}: no verdicts for rubric {rubric!r} (rubrics with verdicts: {known})"
        )
    return rubric


def choose_rubric(store: ProjectStore, rubric: str | None) -> str | None:
    """The rubric to export: the one named, else the project's only one, else none."""
    names = rubric_names(store)
    if rubric is not None:
        return require_rubric(store, rubric, names)
    if len(names) > 1:
        raise TiebreakError(
            f"{store.path}: verdicts for several rubrics ({', '.join(names)});"
            " choose one with --rubric"
        )
    return names[0] if names else None


def dimensions_of(store: ProjectStore, rubric: str) -> tuple[str, ...]:
    stored = latest_rubric(store, rubric)
    if stored is not None:
        return stored.dimensions
    return dimensions_with_verdicts(store, rubric)


def export_columns(dimensions: tuple[str, ...]) -> tuple[str, ...]:
    per_dim = tuple(
        f"{d}_{part}"
        for d in dimensions
        for part in ("model", "human", "final", "confidence", "preference", "consistent")
    )
    return (*PAIR_FIELDS, "rubric", "judge_model", "judge_status", *per_dim, "metadata")


def export_project(
    store: ProjectStore,
    out: str | Path,
    *,
    rubric: str | None = None,
    fmt: str = "csv",
    judge_model: str | None = None,
    progress: Callable[[int], None] | None = None,
    formula_guard: bool = True,
) -> ExportReport:
    """Write one row per pair to ``out``, never over the project or its sidecars (see
    ``check_target``). A CSV's text cells are guarded against formulas unless
    ``formula_guard`` is off; JSONL is always exact."""
    if fmt not in EXPORT_FORMATS:
        raise TiebreakError(f"unknown export format {fmt!r} (known: {', '.join(EXPORT_FORMATS)})")
    out = Path(out)
    check_target(out, keep=store.path)  # before any other complaint: this one loses work
    name = choose_rubric(store, rubric)
    dims = dimensions_of(store, name) if name else ()
    if name and judge_model is None:
        models = judge_models(store, name)
        judge_model = models[0] if models else None
    columns = export_columns(dims)
    # Only the free text (pair fields, metadata, names) can start a formula; the verdict,
    # status and number cells Tiebreak writes itself cannot, so they skip the check.
    guard = FormulaGuard() if fmt == "csv" and formula_guard else None
    rows = _rows(store, name, judge_model, dims, guard.cell if guard else _same)
    count = 0
    with atomic_text_file(out, newline="" if fmt == "csv" else None, keep=store.path) as fh:
        if fmt == "csv":
            writer = csv.writer(fh)
            # A header names a dimension, which an older rubric may have begun with "-".
            writer.writerow([guard.cell(c) for c in columns] if guard else columns)
            for row in rows:
                writer.writerow(row)
                count += 1
                if progress and count % 5000 == 0:
                    progress(count)
        else:
            numbered = tuple(columns.index(f"{d}_preference") for d in dims)
            for row in rows:
                fh.write(_json_line(columns, row, numbered))
                fh.write("\n")
                count += 1
                if progress and count % 5000 == 0:
                    progress(count)
    if progress:
        progress(count)
    return ExportReport(count, name, judge_model, columns, fmt, guard.guarded if guard else None)


def _rows(
    store: ProjectStore,
    rubric: str | None,
    judge_model: str | None,
    dims: tuple[str, ...],
    text: Callable[[str], str],
) -> Iterator[list[Any]]:
    """One list of cell values per pair, in column order; verdicts as A / B / tie / ''.
    Free-text cells go through ``text`` (the formula guard, for a CSV)."""
    if rubric is None:
        for row in pair_rows(store):
            yield [*_blank(row[:-1], text), "", "", "", text(row[-1] or "")]
        return
    n_pair = len(PAIR_FIELDS)
    for row in rows_with_verdicts(store, rubric, judge_model):
        ab_status, ab_v, ab_c, has_ba, ba_status, ba_v, ba_c = row[n_pair + 1 : n_pair + 8]
        status = worst_status((ab_status, ba_status if has_ba else None))
        fv = _loads(ab_v) if ab_v else {}
        fc = _loads(ab_c) if ab_c else {}
        bv = _loads(ba_v) if ba_v else {}
        bc = _loads(ba_c) if ba_c else {}
        prefs = _preferences(row[n_pair + 9]) if row[n_pair + 9] else {}
        model_cell = text(judge_model or "") if status else ""  # each row: each cell counted
        out = [*_blank(row[:n_pair], text), text(rubric), model_cell, status]
        by_dim: dict[str, list[str]] = {}
        if row[n_pair + 8]:
            for item in row[n_pair + 8].split("|"):
                dim, _, value = item.partition(":")
                if value != "-":
                    by_dim.setdefault(dim, []).append(value)
        for dim in dims:
            # Stored verdicts are the strings "A", "B", "tie"; Verdict is a StrEnum, so the
            # domain rules take them as they are.
            judge, conf, consistent = judge_view(
                fv.get(dim), fc.get(dim), bv.get(dim), bc.get(dim), bool(has_ba)
            )
            given = by_dim.get(dim)
            human_v = human_consensus(given) if given else None
            final = final_verdict(judge, human_v)
            out += [
                judge or "",
                human_v or "",
                final or "",
                "" if conf is None else round(conf, 4),
                prefs.get(dim, ""),  # as the file gave it: every digit, never rounded
                "" if consistent is None else ("yes" if consistent else "no"),
            ]
        out.append(text(row[n_pair] or ""))
        yield out


def _json_line(columns: tuple[str, ...], row: list[Any], numbered: tuple[int, ...]) -> str:
    """One row as a JSON object. Numbers an imported file gave (a preference at the
    ``numbered`` cells, numbers in metadata) are written as the file wrote them; only such
    a row takes the slower writer."""
    record = dict(zip(columns, row, strict=True))
    metadata = record["metadata"]
    if metadata:
        record["metadata"] = metadata = numerals.loads(metadata)
    if numerals.holds_numeral(metadata) or any(
        isinstance(row[i], numerals.Numeral) for i in numbered
    ):
        return numerals.to_json(record)
    return json.dumps(record, ensure_ascii=False)


def _blank(values: tuple[Any, ...], text: Callable[[str], str]) -> list[Any]:
    return ["" if v is None else text(v) if isinstance(v, str) else v for v in values]


def _same(value: str) -> str:
    return value
