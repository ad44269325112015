"""Pair identity (issue 12, item 3): a pair is its texts and its generators; an external id
names one pair, and a record that gives it different text is an error naming both places;
the import summary counts what was stored. Projects written before this rule have their
keys brought forward (migration m002_pair_identity)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlite_utils import Database

from desktop.adapters.store import open_project
from desktop.adapters.store.migrations import APPLICATION_ID, migrations
from desktop.domain.errors import ImportDataError
from desktop.services.importing import import_file
from desktop.services.merge import merge_file
from tests.helpers import new_project, table_digest, tiebreak, write_jsonl


def annotations(generator: str, outputs: list[str], preference: float) -> list[dict[str, Any]]:
    """An AlpacaEval annotations file of one model against the same baseline."""
    return [
        {
            "instruction": f"question {i}",
            "output_1": f"baseline answer {i}",
            "generator_1": "gpt4_1106_preview",
            "output_2": output,
            "generator_2": generator,
            "annotator": "alpaca_eval_gpt4",
            "preference": preference,
        }
        for i, output in enumerate(outputs)
    ]


def write_json(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


def verdicts(path: Path) -> list[tuple[str, str, str]]:
    with open_project(path, readonly=True) as store:
        return store.conn.execute(
            "SELECT p.response_b, p.model_b, json_extract(r.verdicts, '$.overall')"
            " FROM judge_results r JOIN pairs p ON p.id = r.pair_id ORDER BY p.id"
        ).fetchall()


def test_two_generators_with_the_same_output_are_two_pairs(tmp_path: Path) -> None:
    """tulu-2-dpo-13b, then wizardlm-13b: where both wrote the same answer, each keeps its
    own pair and its own verdict; the counts printed are the rows stored."""
    project = new_project(tmp_path)
    same = ["I cannot help with that.", "Paris.", "42"]
    tulu = write_json(tmp_path / "tulu.json", annotations("tulu-2-dpo-13b", [*same, "tulu"], 1))
    wizard = write_json(tmp_path / "wizard.json", annotations("wizardlm-13b", [*same, "wizard"], 2))
    with open_project(project) as store:
        first, second = import_file(store, tulu), import_file(store, wizard)
        stored = store.conn.execute("SELECT count(*) FROM judge_results").fetchone()[0]
    assert (first.added, first.judge_verdicts) == (4, 4)
    assert (second.added, second.judge_verdicts, second.duplicates) == (4, 4, 0)
    assert stored == first.judge_verdicts + second.judge_verdicts == 8
    rows = verdicts(project)
    assert ("Paris.", "tulu-2-dpo-13b", "A") in rows
    assert ("Paris.", "wizardlm-13b", "B") in rows


def test_a_reimport_reports_nothing_added(tmp_path: Path, alpaca_file: Path) -> None:
    project = new_project(tmp_path)
    first = tiebreak("import", str(project), str(alpaca_file))
    assert first.stdout.endswith(": 805 pairs added, 805 annotator verdicts added\n")
    again = tiebreak("import", str(project), str(alpaca_file))
    assert again.returncode == 0, again.stderr
    assert again.stdout.endswith(
        ": nothing added; already in the project: 805 pairs, 805 annotator verdicts\n"
    )
    with open_project(project) as store:
        report = import_file(store, alpaca_file)
    assert (report.added, report.judge_verdicts, report.judge_present) == (0, 0, 805)


def test_a_changed_verdict_is_reported_as_replaced(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    rows = annotations("m", ["x", "y"], 1)
    with open_project(project) as store:
        import_file(store, write_json(tmp_path / "a.json", rows))
        rows[1]["preference"] = 2
        report = import_file(store, write_json(tmp_path / "a.json", rows))
    assert (report.judge_verdicts, report.judge_replaced, report.judge_present) == (0, 1, 1)
    assert report.summary() == (
        "0 pairs added, 1 annotator verdicts replaced;"
        " already in the project: 2 pairs, 1 annotator verdicts"
    )
    assert [v for *_, v in verdicts(project)] == ["A", "B"]


def test_href_reimport_counts_human_verdicts_already_there(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    data = write_jsonl(
        tmp_path / "h.jsonl",
        [{"instruction": "i", "output_a": "a", "output_b": "b", "annotations": [1, 2]}],
    )
    with open_project(project) as store:
        assert import_file(store, data).human_verdicts == 2
        again = import_file(store, data)
    assert (again.human_verdicts, again.human_present) == (0, 2)
    assert again.summary() == "nothing added; already in the project: 1 pairs, 2 human verdicts"


PAIR = {"id": "q1", "instruction": "i", "output_1": "a", "output_2": "b"}


def refusal(project: Path, data: Path) -> str:
    """The import's error, the project unchanged."""
    before = table_digest(project)
    with open_project(project) as store, pytest.raises(ImportDataError) as info:
        import_file(store, data)
    assert table_digest(project) == before
    return str(info.value)


def test_an_id_already_in_the_project_with_other_text_names_both(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "one.jsonl", [PAIR]))
    other = write_jsonl(
        tmp_path / "two.jsonl",
        [{**PAIR, "id": "q0"}, {**PAIR, "output_2": "a different answer"}],
    )
    assert refusal(project, other) == (
        f"{other} line 2: id 'q1' is already used by pair #1 of {project},"
        " which has a different response_b; nothing was imported"
    )


@pytest.mark.parametrize("gap", [1, 4500])
def test_an_id_repeated_in_the_same_file_with_other_text_names_both(
    tmp_path: Path, gap: int
) -> None:
    """Within one batch, and batches apart (the earlier record is found again by reading
    the file once more)."""
    filler = [
        {"id": f"f{i}", "instruction": f"q{i}", "output_1": "a", "output_2": "b"}
        for i in range(gap)
    ]
    data = write_jsonl(
        tmp_path / "d.jsonl", [PAIR, *filler, {**PAIR, "instruction": "another question"}]
    )
    assert refusal(new_project(tmp_path), data) == (
        f"{data} line {gap + 2}: id 'q1' is already used by {data} line 1,"
        " which has a different instruction; nothing was imported"
    )


def test_an_id_repeated_with_the_same_text_is_one_pair(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    with open_project(project) as store:
        report = import_file(store, write_jsonl(tmp_path / "d.jsonl", [PAIR, PAIR]))
    assert (report.added, report.duplicates) == (1, 1)


def test_an_id_with_another_generator_is_an_error_but_a_new_generator_is_not(
    tmp_path: Path,
) -> None:
    project = new_project(tmp_path)
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "a.jsonl", [PAIR]))
        # The first file named no generator: naming one now is no contradiction.
        named = {**PAIR, "model_b": "tulu"}
        assert import_file(store, write_jsonl(tmp_path / "b.jsonl", [named])).added == 0
        import_file(store, write_jsonl(tmp_path / "c.jsonl", [{**named, "id": "q2"}]))
        with pytest.raises(ImportDataError, match="which has a different model_b"):
            import_file(
                store, write_jsonl(tmp_path / "d.jsonl", [{**named, "id": "q2", "model_b": "w"}])
            )


def old_key(*texts: str | None) -> str:
    """pair_key as releases before m002_pair_identity computed it: the texts alone."""
    digest = hashlib.sha256()
    for part in texts:
        digest.update((part or "").encode("utf-8", "surrogatepass"))
        digest.update(b"\x00")
    return "sha256:" + digest.hexdigest()


def old_project(path: Path, rows: list[dict[str, Any]]) -> Path:
    """A project file as the release before this one wrote it: schema m001 only, and the
    pairs imported with its key (tulu and wizardlm's identical answers collapsed)."""
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    migrations.apply(Database(conn), stop_before="m002_pair_identity")
    seen = set()
    for row in rows:
        key = old_key(row["instruction"], row["output_1"], row["output_2"], None, None)
        if key in seen:
            continue
        seen.add(key)
        conn.execute(
            "INSERT INTO pairs (pair_key, instruction, response_a, response_b, model_a, model_b)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [
                key,
                row["instruction"],
                row["output_1"],
                row["output_2"],
                row["generator_1"],
                row["generator_2"],
            ],
        )
    conn.execute(
        "INSERT INTO pairs (pair_key, external_id, instruction, response_a, response_b)"
        " VALUES ('id:x1', 'x1', 'q', 'a', 'b')"
    )
    conn.commit()
    conn.close()
    return path


def test_an_old_project_recognises_its_pairs_after_the_upgrade(tmp_path: Path) -> None:
    same = ["Paris.", "42"]
    tulu_rows = annotations("tulu-2-dpo-13b", [*same, "tulu"], 1)
    wizard_rows = annotations("wizardlm-13b", [*same, "wizard"], 2)
    project = old_project(tmp_path / "old.tiebreak", tulu_rows + wizard_rows)
    tulu = write_json(tmp_path / "tulu.json", tulu_rows)
    wizard = write_json(tmp_path / "wizard.json", wizard_rows)
    with open_project(project) as store:
        applied = [r[0] for r in store.conn.execute("SELECT name FROM _sqlite_migrations")]
        assert "m002_pair_identity" in applied
        assert import_file(store, tulu).added == 0  # the same file: duplicates
        assert (
            import_file(
                store,
                write_jsonl(
                    tmp_path / "x.jsonl",
                    [{"id": "x1", "instruction": "q", "output_1": "a", "output_2": "b"}],
                ),
            ).added
            == 0
        )
        # The answers the old key had collapsed into tulu's pairs come in as their own.
        report = import_file(store, wizard)
    assert (report.added, report.duplicates) == (2, 1)
    assert ("Paris.", "wizardlm-13b", "B") in verdicts(project)


def test_merge_follows_the_same_identity(tmp_path: Path) -> None:
    mine, theirs = new_project(tmp_path, "mine.tiebreak"), new_project(tmp_path, "bob.tiebreak")
    rows = [{"instruction": "i", "output_1": "a", "output_2": "same", "model_b": "tulu"}]
    with open_project(mine) as store:
        import_file(store, write_jsonl(tmp_path / "m.jsonl", rows))
    with open_project(theirs) as store:
        import_file(store, write_jsonl(tmp_path / "t.jsonl", [{**rows[0], "model_b": "wizard"}]))
        import_file(store, write_jsonl(tmp_path / "i.jsonl", [{**PAIR, "model_a": "x"}]))
    with open_project(mine) as store:
        import_file(store, write_jsonl(tmp_path / "p.jsonl", [{**PAIR, "model_a": "y"}]))
    before = table_digest(mine)
    with open_project(mine) as store, pytest.raises(ImportDataError, match="different model_a"):
        merge_file(store, theirs)
    assert table_digest(mine) == before
    with open_project(theirs) as store:
        store.conn.execute("UPDATE pairs SET model_a = 'y' WHERE external_id = 'q1'")
    with open_project(mine) as store:
        report = merge_file(store, theirs)
    assert (report.matched, report.added_pairs) == (1, 1)  # wizard's answer is its own pair


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_merging_an_export_follows_the_same_identity(tmp_path: Path, fmt: str) -> None:
    """Bob's verdict on wizard's answer does not land on tulu's pair of the same text."""
    from desktop.services.exporting import export_project
    from tests.stats_helpers import add_rubric, review

    row = {"instruction": "i", "output_1": "a", "output_2": "same", "model_b": "tulu"}
    mine, theirs = new_project(tmp_path, "mine.tiebreak"), new_project(tmp_path, "bob.tiebreak")
    with open_project(mine) as store:
        import_file(store, write_jsonl(tmp_path / "m.jsonl", [row]))
    with open_project(theirs) as store:
        import_file(store, write_jsonl(tmp_path / "t.jsonl", [row, {**row, "model_b": "wiz"}]))
        add_rubric(store, "r", ("overall",))
        review(store, "#2", "overall", "B", reviewer="bob")
        export_project(store, tmp_path / f"bob.{fmt}", rubric="r", fmt=fmt)
    with open_project(mine) as store:
        report = merge_file(store, tmp_path / f"bob.{fmt}", reviewer="bob")
        assert (report.matched, report.added_pairs, report.verdicts_added) == (1, 1, 1)
        rows = store.conn.execute(
            "SELECT p.model_b, h.verdict FROM human_verdicts h JOIN pairs p ON p.id = h.pair_id"
        ).fetchall()
    assert rows == [("wiz", "B")]
