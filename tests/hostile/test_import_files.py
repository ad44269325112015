"""Hostile data files for `tiebreak import`: generated files in every import format (CSV,
JSONL, JSON, AlpacaEval, HREF), each spoiled one way (a bad byte, truncation, deep
nesting, a lone surrogate, NaN or Infinity, a wrong type, a missing or doubled column or
member, a short row, an unclosed quote, an id given twice with different text).

Every case: exit 1 with one line on stderr that names the file, the line or record and,
where there is one, the field, and the project's ``.dump`` fingerprint unchanged (a
truncated file may still be a good one: then exit 0). The generated cases run
``desktop.cli.main.main()`` in this process (a subprocess each would take minutes); the
worst cases of each kind also run the real command as a subprocess.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop.adapters.store import open_project
from tests.hostile.conftest import Hostile, fingerprint

MARK = "~MARK~"  # "~" is never in generated text: the marker stands where a file is spoiled
TEXT_FIELDS = ("instruction", "output_1", "output_2")
# Ids unique to each generated file: a truncated file that imports keeps its pairs, and a
# later file must not clash with them by chance.
_FILES = itertools.count()
SUFFIX = {
    "csv": ".csv",
    "jsonl": ".jsonl",
    "json": ".json",
    "alpaca-eval": ".json",
    "href": ".jsonl",
}


def texts(*, csv_safe: bool, min_size: int = 0) -> st.SearchStrategy[str]:
    # A lone CR is a line break to the CSV reader but not to a line count in bytes, and a
    # NUL is refused by Python's CSV reader: both are left to the cases written for them.
    banned = "~\r\x00" if csv_safe else "~"
    return st.text(
        st.characters(exclude_categories=("Cs",), exclude_characters=banned),
        min_size=min_size,
        max_size=24,
    )


@st.composite
def datasets(draw: st.DrawFn, fmt: str) -> list[dict[str, Any]]:
    """Good records of one format: all with the same keys, as real files have."""
    csv_safe = fmt == "csv"
    n = draw(st.integers(2, 6))
    with_ids, with_generators = draw(st.booleans()), draw(st.booleans())
    file = next(_FILES)
    rows = []
    for i in range(n):
        row: dict[str, Any] = {"id": f"f{file}-{i}"} if with_ids else {}
        row["instruction"] = draw(texts(csv_safe=csv_safe, min_size=1)) + f" #{i}"
        row["output_1"] = draw(texts(csv_safe=csv_safe))
        row["output_2"] = draw(texts(csv_safe=csv_safe))
        if with_generators:
            row["generator_1"], row["generator_2"] = "gpt4_1106_preview", f"model-{i % 2}"
        if fmt == "alpaca-eval":
            row["annotator"] = "alpaca_eval_gpt4"
            row["preference"] = draw(st.sampled_from([1, 2, 0, 1.25, 1.9, None]))
        if fmt == "href":
            row["annotations"] = draw(st.lists(st.sampled_from([1, 2, 0, "A", "tie"]), max_size=4))
        rows.append(row)
    return rows


@dataclass
class Spoiled:
    """A spoiled file and what the refusal must say (``code`` None: either outcome)."""

    data: bytes
    says: list[str] = field(default_factory=list)
    code: int | None = 1


class Writer:
    """Writes records in one format and knows the line (or record) each one starts on."""

    def __init__(self, fmt: str, name: str, indent: int | None, ascii_only: bool) -> None:
        self.fmt, self.name, self.indent, self.ascii_only = fmt, name, indent, ascii_only
        self.array = fmt in ("json", "alpaca-eval")

    def text(self, rows: list[dict[str, Any]]) -> str:
        if self.fmt == "csv":
            return self.csv_rows([list(rows[0]), *[[str(v) for v in r.values()] for r in rows]])
        if self.array:
            return json.dumps(rows, indent=self.indent, ensure_ascii=self.ascii_only)
        return "".join(json.dumps(r, ensure_ascii=self.ascii_only) + "\n" for r in rows)

    @staticmethod
    def csv_rows(rows: list[list[str]]) -> str:
        out = io.StringIO()
        csv.writer(out).writerows(rows)
        return out.getvalue()

    def where(self, rows: list[dict[str, Any]], k: int) -> str:
        """How an error names record ``k`` (from 0)."""
        if self.array:
            return f"(record {k + 1})"
        if self.fmt == "csv":
            return f"{self.name} line {self.csv_line(rows, k)}"
        return f"{self.name} line {k + 1}"

    def csv_line(self, rows: list[dict[str, Any]], k: int) -> int:
        before = self.text(rows[:k]) if k else self.csv_rows([list(rows[0])])
        return before.count("\n") + 1


def value_spoilers(fmt: str) -> list[str]:
    json_only = ["surrogate", "nan", "wrong_type", "deep", "doubled_member"]
    csv_only = ["doubled_column", "short_row", "unclosed_quote"]
    common = ["bad_byte", "truncate", "missing", "duplicate_id"]
    return common + (csv_only if fmt == "csv" else json_only)


@st.composite
def spoiled_files(draw: st.DrawFn, fmt: str, name: str) -> Spoiled:
    rows = draw(datasets(fmt))
    writer = Writer(fmt, name, draw(st.sampled_from([None, 1, 2])), draw(st.booleans()))
    how = draw(st.sampled_from(value_spoilers(fmt)))
    k = draw(st.integers(0, len(rows) - 1))
    column = draw(st.sampled_from(TEXT_FIELDS))
    bom = b"\xef\xbb\xbf" if draw(st.booleans()) else b""

    def marked(value: str) -> str:
        rows[k][column] = value
        return writer.text(rows)

    if how == "bad_byte":
        text = marked(rows[k][column] + MARK)
        data = text.encode().replace(MARK.encode(), b"\xff")
        return Spoiled(bom + data, [writer.where(rows, k), f"field {column!r} is not UTF-8 text"])
    if how == "surrogate":
        text = marked(rows[k][column] + MARK).replace(MARK, "\\ud800")
        return Spoiled(
            bom + text.encode(), [writer.where(rows, k), f"field {column!r} holds a lone surrogate"]
        )
    if how == "doubled_member":
        text = marked(MARK).replace(json.dumps(MARK), f'"one", "{column}": "two"')
        says = [writer.where(rows, k), f"{column!r} appears twice in one object"]
        return Spoiled(bom + text.encode(), says)
    if how in ("nan", "wrong_type", "deep"):
        text = marked(MARK)
        choices = {
            "nan": ["NaN", "Infinity", "-Infinity"],
            "wrong_type": ["[1]", '{"a": 1}', "true"],
            "deep": ["[" * 100_000],
        }[how]
        value = draw(st.sampled_from(choices))
        data = text.replace(json.dumps(MARK), value).encode()
        says = [writer.where(rows, k)]
        if how == "deep":
            says += ["nested too deeply", f"in field {column!r}"]
        else:
            shown = {"[1]": "list", '{"a": 1}': "dict", "true": "bool"}.get(value, value)
            says += [f"field {column!r} (", f"must be text, got {shown}"]
        return Spoiled(bom + data, says)
    if how == "truncate":
        data = writer.text(rows).encode()
        cut = draw(st.integers(1, len(data) - 1))
        return Spoiled(bom + data[:cut], [], code=None)
    if how == "missing":
        if fmt == "csv":
            for row in rows:
                del row[column]
            return Spoiled(bom + writer.text(rows).encode(), [f"{name} line 2: no column for"])
        del rows[k][column]
        says = [writer.where(rows, k), f"{column!r}" if k else "no column for"]
        return Spoiled(bom + writer.text(rows).encode(), says)
    if how == "duplicate_id":
        j = draw(st.integers(0, len(rows) - 2))
        k = draw(st.integers(j + 1, len(rows) - 1))
        file = next(_FILES)
        for i, row in enumerate(rows):
            row["id"] = f"f{file}-{i}"
            rows[i] = {"id": row.pop("id"), **row}
        rows[k]["id"], rows[k]["instruction"] = rows[j]["id"], rows[j]["instruction"] + " again"
        says = [
            writer.where(rows, k),
            f"id {rows[j]['id']!r} is already used by",
            writer.where(rows, j),
            "which has a different instruction",
        ]
        return Spoiled(bom + writer.text(rows).encode(), says)
    return csv_spoiled(draw, how, rows, writer, bom)


def csv_spoiled(
    draw: st.DrawFn, how: str, rows: list[dict[str, Any]], writer: Writer, bom: bytes
) -> Spoiled:
    header = list(rows[0])
    table = [[str(v) for v in r.values()] for r in rows]
    name = writer.name
    if how == "doubled_column":
        i, j = draw(
            st.sampled_from(
                [(a, b) for a in range(len(header)) for b in range(len(header)) if a < b]
            )
        )
        header[j] = header[i]
        text = writer.csv_rows([header, *table])
        return Spoiled(bom + text.encode(), [f"{name} line 1: column {header[i]!r} appears twice"])
    k = draw(st.integers(0, len(rows) - 1))
    if how == "short_row":
        table[k] = table[k][:-1]
        text = writer.csv_rows([header, *table])
        start = writer.csv_rows([header, *table[:k]]).count("\n") + 1
        return Spoiled(
            bom + text.encode(),
            [f"{name} line {start}: {len(header) - 1} cells but the header has {len(header)}"],
        )
    # An unclosed quote in the last row: nothing after it holds a quote that could close it.
    j = draw(st.integers(0, len(header) - 1))
    last = table[-1]
    head = writer.csv_rows([last[:j]]).rstrip("\r\n") + "," if j else ""
    tail = ",".join(c.replace('"', "") for c in last[j:])
    before = writer.csv_rows([header, *table[:-1]])
    text = before + head + '"' + tail + "\n"
    line = before.count("\n") + head.count("\n") + 1
    return Spoiled(
        bom + text.encode(),
        [f"{name} line {line} (column {header[j]!r}): a quoted cell is never closed"],
    )


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hostile-import")


def seeded_project(folder: Path) -> Path:
    """A project holding some pairs and verdicts already, so a change would show."""
    project = Path(tempfile.mkdtemp(dir=folder)) / "p.tiebreak"
    open_project(project, create=True).close()
    seed = project.parent / "seed.jsonl"
    seed.write_text(
        json.dumps({"id": "seed", "instruction": "q", "output_1": "a", "output_2": "b"}) + "\n"
    )
    with open_project(project) as store:
        from desktop.services.importing import import_file

        import_file(store, seed)
    return project


def check(
    hostile: Hostile, project: Path, data: Path, spoiled: Spoiled, state: dict[str, str]
) -> None:
    """Run the import in this process; the outcome as ``spoiled`` says."""
    before = state.get("before") or fingerprint(project)
    run = hostile.main("import", project, data)
    if spoiled.code is None and run.code == 0:
        hostile.succeeded(run)
        state["before"] = fingerprint(project)
        return
    state["before"] = before
    hostile.refused(run, says=(str(data), *spoiled.says), project=project, before=before)
    placed = ("line " in run.stderr) or ("record " in run.stderr) or ("no records" in run.stderr)
    assert placed, run.stderr


@pytest.mark.parametrize("fmt", list(SUFFIX))
def test_generated_spoiled_files_are_refused_in_one_line(
    hostile: Hostile, workspace: Path, fmt: str
) -> None:
    project = seeded_project(workspace)
    data = project.parent / f"data{SUFFIX[fmt]}"
    state: dict[str, str] = {}

    # The hostile fixture holds no state between examples; only the node id.
    @settings(
        max_examples=50,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(spoiled_files(fmt, str(data)))
    def case(spoiled: Spoiled) -> None:
        data.write_bytes(spoiled.data)
        check(hostile, project, data, spoiled, state)

    case()


# ---------------------------------------------------------------- the real command

Build = Callable[[Path], tuple[Path, tuple[str, ...]]]


def big_bad_jsonl(folder: Path) -> tuple[Path, tuple[str, ...]]:
    lines = [
        json.dumps({"instruction": f"q{i}", "output_1": "a", "output_2": "b"}).encode()
        for i in range(20_001)
    ]
    lines.append(b'{"instruction": "x", "output_1": "caf\xe9", "output_2": "b"}')
    path = folder / "big.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, ("big.jsonl line 20002: field 'output_1' is not UTF-8 text",)


def written(name: str, text: str, says: str) -> Build:
    """A builder of one small file."""

    def build(folder: Path) -> tuple[Path, tuple[str, ...]]:
        (folder / name).write_text(text)
        return folder / name, (says,)

    build.__name__ = name
    return build


SMALL = [
    written(
        "deep.json",
        '[{"instruction": "i", "output_1": "a", "output_2": "b"},\n' + "[" * 100_000,
        "deep.json line 2, column 1 (record 2): nested too deeply",
    ),
    written(
        "s.jsonl",
        '{"instruction": "i", "output_1": "a\\udfff", "output_2": "b"}\n',
        "s.jsonl line 1: field 'output_1' holds a lone surrogate (\\udfff)",
    ),
    written(
        "nan.json",
        '[\n  {"instruction": "i", "output_1": NaN, "output_2": "b"}\n]',
        "nan.json line 2 (record 1): field 'output_1' (response_a) must be text, got NaN",
    ),
    written(
        "short.csv",
        "instruction,output_1,output_2\nq,a\n",
        "short.csv line 2: 2 cells but the header has 3",
    ),
    written(
        "open.csv",
        'instruction,output_1,output_2\nq,a,b\nq2,"a,b\n',
        "open.csv line 3 (column 'output_1'): a quoted cell is never closed",
    ),
]


def id_clash_folder(folder: Path) -> tuple[Path, tuple[str, ...]]:
    data = folder / "results"
    (data / "b").mkdir(parents=True)
    (data / "a.jsonl").write_text(
        '{"id": "7", "instruction": "i", "output_1": "a", "output_2": "b"}\n'
    )
    (data / "b" / "c.csv").write_text("id,instruction,output_1,output_2\n8,j,a,b\n7,i,a,c\n")
    return data, ("c.csv line 3: id '7' is already used by", "a.jsonl line 1", "response_b")


@pytest.mark.parametrize(
    "build", [big_bad_jsonl, *SMALL, id_clash_folder], ids=lambda build: build.__name__
)
def test_the_real_command_refuses_in_one_line(
    hostile: Hostile, workspace: Path, build: Build
) -> None:
    project = seeded_project(workspace)
    data, says = build(project.parent)
    before = fingerprint(project)
    hostile.refused(hostile.cli("import", project, data), says=says, project=project, before=before)
