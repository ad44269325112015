"""Dimension names: they name export columns (``<dim>_model`` ...), so a dimension is a
plain word starting with a letter. A rubric with a dimension named ``-1`` is refused where
a rubric comes in (``rubric add``, a TOML file or a template); an older project that has
one exports header cells a spreadsheet cannot run as formulas; and a merge never stores a
verdict on a dimension its rubric lacks (a ``bogus_human`` column).
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.adapters.store.rubrics import record_rubric
from desktop.domain.verdicts import Verdict
from desktop.services.overrides import override
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, fingerprint

ROWS = [
    {"id": "p1", "instruction": "i1", "output_1": "a", "output_2": "b"},
    {"id": "p2", "instruction": "i2", "output_1": "a", "output_2": "b"},
]
TEMPLATE = "Compare.\n{instruction}\nA: {output_1}\nB: {output_2}\nAnswer A, B or tie for each."
TOML = """name = "neg"
title = "Negative"
description = ""
dimensions = [%s]

[answer]
kind = "comma-list"

[[messages]]
role = "user"
content = "{{ instruction }} {{ response_a }} {{ response_b }}"
"""


def pairs_project(tmp_path: Path) -> Path:
    project = new_project(tmp_path)
    with open_project(project) as store:
        from desktop.services.importing import import_file

        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", ROWS))
    return project


@pytest.mark.parametrize("bad", ["-1", "_x", "1st", "+1", "=cmd", "@x"])
def test_rubric_add_refuses_a_dimension_that_is_no_plain_word(
    tmp_path: Path, bad: str, hostile: Hostile
) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    template = tmp_path / "judge.txt"
    template.write_text(TEMPLATE, encoding="utf-8")
    run = hostile.cli("rubric", "add", project, template, f"--dimensions={bad},overall")
    says = f"dimension {bad!r} must be letters, digits, - or _, starting with a letter"
    hostile.refused(run, says=says, project=project, before=before)
    toml = tmp_path / "judge.toml"
    toml.write_text(TOML % f'"{bad}", "overall"', encoding="utf-8")
    hostile.refused(
        hostile.cli("rubric", "add", project, toml), says=says, project=project, before=before
    )


def test_plain_dimension_names_are_taken(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    toml = tmp_path / "judge.toml"
    toml.write_text(TOML % '"précision", "step-2", "over_all"', encoding="utf-8")
    hostile.succeeded(hostile.cli("rubric", "add", project, toml))


def older_project(tmp_path: Path) -> Path:
    """A project whose rubric has a dimension '-1' and a verdict on it, as a release
    before the rule could make."""
    project = pairs_project(tmp_path)
    with open_project(project) as store:
        with store.transaction():
            record_rubric(
                store,
                hash="older",
                name="neg",
                title="Negative",
                dimensions=("-1", "x"),
                kind="imported",
                text="{}",
            )
        override(
            store,
            find_pair(store, "p1"),
            rubric="neg",
            dimensions=("-1", "x"),
            dimension="-1",
            verdict=Verdict.A,
            reviewer="ann",
            mode="cli",
        )
    return project


def test_header_cells_are_guarded_against_formulas(tmp_path: Path, hostile: Hostile) -> None:
    project = older_project(tmp_path)
    out = tmp_path / "out.csv"
    run = hostile.cli("export", project, out)
    hostile.succeeded(run)
    with out.open(newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    parts = ("model", "human", "source", "final", "confidence", "preference", "consistent")
    parts += ("reviewer", "mode", "time")  # who gave the human verdict, how and when
    assert [h for h in header if "-1" in h] == [f"'-1_{part}" for part in parts]
    assert "x_model" in header
    assert f"{len(parts)} cells guarded" in run.stdout
    hostile.succeeded(hostile.cli("export", project, out, "--no-formula-guard"))
    with out.open(newline="", encoding="utf-8") as fh:
        assert "-1_model" in next(csv.reader(fh))  # exactly, for programs


def export_with_column(tmp_path: Path, project: Path, column: str, value: str) -> Path:
    """The project exported with the href-overall rubric, and a column added by hand."""
    with open_project(project) as store:
        override(
            store,
            find_pair(store, "p1"),
            rubric="href-overall",
            dimensions=("overall",),
            dimension="overall",
            verdict=Verdict.B,
            reviewer="bob",
            mode="cli",
        )
    exported = tmp_path / "exported.csv"
    with open_project(project, readonly=True) as store:
        from desktop.services.exporting import export_project

        export_project(store, exported, rubric="href-overall")
    with exported.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    bob = tmp_path / "bob.csv"
    with bob.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow([*rows[0], column])
        for row in rows[1:]:
            writer.writerow([*row, value])
    return bob


def test_merge_refuses_a_verdict_on_a_dimension_the_rubric_lacks(
    tmp_path: Path, hostile: Hostile
) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    bob = export_with_column(tmp_path, pairs_project(theirs), "bogus_human", "A")
    project = pairs_project(tmp_path)
    before = fingerprint(project)
    hostile.refused(
        hostile.cli("merge", project, bob),
        says=(
            f"{bob} line 2: column bogus_human: rubric 'href-overall' has no dimension"
            " 'bogus' (its dimensions: overall)"
        ),
        project=project,
        before=before,
    )


def test_merge_refuses_a_dimension_that_is_no_plain_word(tmp_path: Path, hostile: Hostile) -> None:
    """For a rubric this project has never seen, the names are all there is to check."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    bob = export_with_column(tmp_path, pairs_project(theirs), "-1_human", "A")
    project = pairs_project(tmp_path)
    before = fingerprint(project)
    hostile.refused(
        hostile.cli("merge", project, bob, "--rubric", "colleagues-own"),
        says=("column -1_human: dimension '-1' must be letters, digits, - or _",),
        project=project,
        before=before,
    )


def test_an_empty_column_of_an_unknown_dimension_is_no_verdict(
    tmp_path: Path, hostile: Hostile
) -> None:
    """Only a verdict given is refused: an empty column stores nothing."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    bob = export_with_column(tmp_path, pairs_project(theirs), "bogus_human", "")
    project = pairs_project(tmp_path)
    run = hostile.cli("merge", project, bob)
    hostile.succeeded(run)
    assert "1 human verdicts added" in run.stdout
