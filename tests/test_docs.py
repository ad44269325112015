"""README and the pages under docs/ hold true: every relative link names a file and a
heading that exist, docs/commands.md lists every command the parser has, and
docs/ARCHITECTURE.md's import-shape recipe is code that works (the shape it shows, put first
in the table as its steps say, imports a file of its kind with the verdicts it carries and
refuses a bad label in one line naming the file, line and field)."""

from __future__ import annotations

import argparse
import csv
import json
import re
import textwrap
from pathlib import Path

import pytest

from desktop import api
from desktop.cli.main import build_parser, subcommands
from desktop.domain import import_shapes
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes.base import FileVerdict, Shape, ShapedRecord
from desktop.domain.import_shapes.plain_pairs import kept, pair_fields
from desktop.domain.verdicts import Verdict
from tests.helpers import new_project, table_digest

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "ARCHITECTURE.md"
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "tests/bench/README.md")
# Written by another change; README and docs/commands.md may link it before it lands.
NOT_YET = {ROOT / "docs" / "batch-judging.md"}
FENCED = re.compile(r"```.*?```", re.S)


def heading_anchors(page: Path) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped,
    spaces as hyphens."""
    text = FENCED.sub("", page.read_text(encoding="utf-8"))
    return {
        re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
        for h in re.findall(r"^#+ (.+)$", text, re.M)
    }


def broken_links(page: Path) -> list[str]:
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", FENCED.sub("", page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            if dest not in NOT_YET:
                broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in heading_anchors(dest):
            broken.append(f"{target}: no such heading")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_readme_links_every_page_under_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} | {p.name for p in NOT_YET}
    assert sorted(p for p in pages if f"(docs/{p})" not in readme) == []


def command_names(parser: argparse.ArgumentParser, prefix: str = "") -> list[str]:
    """Every command and action, as typed: ``judge``, ``profile add``, ..."""
    names = []
    for name, sub in subcommands(parser).items():
        names.append(prefix + name)
        names += command_names(sub, f"{prefix}{name} ")
    return names


def test_the_commands_page_lists_every_command() -> None:
    page = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")
    names = command_names(build_parser())
    assert len(names) > 30
    assert [n for n in names if f"`tiebreak {n}" not in page] == []


def recipe_code(heading: str) -> str:
    """The one Python block of the page's section under ``heading``."""
    section = ARCHITECTURE.read_text(encoding="utf-8").split(f"\n## {heading}\n", 1)[1]
    (code,) = re.findall(r"```python\n(.*?)```", section.split("\n## ", 1)[0], re.S)
    return textwrap.dedent(code)


@pytest.fixture
def label_rows(monkeypatch: pytest.MonkeyPatch) -> Shape:
    """The recipe's shape, its module's imports given, first in ``SHAPES`` (step 2)."""
    names = {
        "ImportDataError": ImportDataError,
        "FileVerdict": FileVerdict,
        "Shape": Shape,
        "ShapedRecord": ShapedRecord,
        "Verdict": Verdict,
        "kept": kept,
        "pair_fields": pair_fields,
    }
    exec(recipe_code("How to add an import shape"), names)  # the page's own code, as written
    shape: Shape = names["LabelRows"]()
    monkeypatch.setattr(import_shapes, "SHAPES", (shape, *import_shapes.SHAPES))
    return shape


def write_rows(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_recipe_shape_imports_its_reviewers_verdicts(tmp_path: Path, label_rows) -> None:
    data = write_rows(
        tmp_path / "labels.jsonl",
        [
            {"prompt": "2+2?", "response_a": "4", "response_b": "5", "label": "A",
             "annotator": "ada", "source_url": "x"},
            {"prompt": "Capital of France?", "response_a": "Lyon", "response_b": "Paris",
             "label": "B"},
        ],
    )  # fmt: skip
    out = tmp_path / "labels.csv"
    with api.open_project(tmp_path / "p.tiebreak", create=True) as store:
        report = api.import_file(store, data)
        assert report.kind == "label-rows"
        assert api.import_file(store, data).added == 0  # importing it again adds nothing
        api.export_project(store, out, rubric="href-overall")
    rows = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [(r["instruction"], r["overall_human"], r["overall_reviewer"]) for r in rows] == [
        ("2+2?", "A", "ada"),
        ("Capital of France?", "B", "label"),
    ]
    assert json.loads(rows[0]["metadata"]) == {"annotator": "ada", "source_url": "x"}


def test_the_recipe_shape_refuses_a_label_it_cannot_read(tmp_path: Path, label_rows) -> None:
    data = write_rows(
        tmp_path / "bad.jsonl",
        [{"prompt": "p", "response_a": "a", "response_b": "b", "label": "A"},
         {"prompt": "q", "response_a": "a", "response_b": "b", "label": "maybe"}],
    )  # fmt: skip
    project = new_project(tmp_path)
    before = table_digest(project)
    with (
        api.open_project(project) as store,
        pytest.raises(ImportDataError, match=r"bad\.jsonl.*2.*field 'label': not A, B or tie"),
    ):
        api.import_file(store, data)
    assert table_digest(project) == before  # the good first row is not kept either
