"""A damaged project: 8 KB of garbage a third into the file. Every command that opens it
says, in one line naming the file, that the file is damaged, and writes nothing: neither
to the damaged file nor, where another project is involved, to that one."""

from __future__ import annotations

import contextlib
import json
import random
import shutil
from pathlib import Path

import pytest

from desktop.cli.main import main
from tests.bench.bench_import_export import RUBRIC, add_verdicts, generate
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, fingerprint
from tests.openai_server import OpenAIServer

PAIRS = 3000  # about 13 MB: the garbage lands among the pairs' pages, as in the issue


@pytest.fixture(scope="module")
def sound_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sound")
    project = new_project(folder, "big.tiebreak")
    generate(folder / "pairs.jsonl", PAIRS)
    from desktop.adapters.store import open_project
    from desktop.services.importing import import_file

    with open_project(project) as store:
        import_file(store, folder / "pairs.jsonl")
    add_verdicts(project, PAIRS)
    # A batch sent off before the damage, so that its results file is a real one.
    requests = folder / "requests.jsonl"
    assert main(["batch", "export", str(project), "--rubric", "just-eval", str(requests)]) == 0
    custom_id = json.loads(requests.read_text().splitlines()[0])["custom_id"]
    write_jsonl(folder / "results.jsonl", [{"custom_id": custom_id, "error": {"message": "late"}}])
    return project


def damage(path: Path, seed: int = 12) -> None:
    """Overwrite 8 KB among the pairs' pages, a third of the way through the pairs, with
    (seeded) garbage, as a bad disk or a careless ``dd`` would. Found by the text of the
    pair there: the search index's pages (m005) lie between the pairs' since."""
    import sqlite3

    with contextlib.closing(
        sqlite3.connect(f"file:{path}?immutable=1", uri=True)
    ) as conn:  # nothing beside it
        (text,) = conn.execute(
            "SELECT instruction FROM pairs WHERE id = ?", [PAIRS // 3]
        ).fetchone()
    at = path.read_bytes().find(text[:60].encode())
    assert at > 0
    with path.open("r+b") as fh:
        fh.seek(at - at % 4096)
        fh.write(random.Random(seed).randbytes(8192))


@pytest.fixture
def damaged(sound_project: Path, tmp_path: Path) -> Path:
    path = tmp_path / "P.tiebreak"
    shutil.copyfile(sound_project, path)
    damage(path)
    return path


def _commands(project: Path, sound: Path, tmp: Path, base_url: str) -> list[list[str | Path]]:
    more = write_jsonl(tmp / "more.jsonl", [{"instruction": "q", "output_1": "a", "output_2": "b"}])
    judge = tmp / "judge.txt"
    judge.write_text("Which is better, {output_1} or {output_2}? Answer A or B.\n")
    results = sound.parent / "results.jsonl"
    rubric = ["--rubric", RUBRIC]
    return [
        ["import", project, more],
        ["override", project, "bench-000010", "overall", "B", *rubric],
        ["export", project, tmp / "out.csv", *rubric],
        ["export", project, tmp / "out.jsonl", *rubric],
        ["stats", project],
        ["stats", project, "--json", *rubric],
        ["queue", project, *rubric],
        ["judge", project, "--rubric", "just-eval", "--base-url", base_url, "--model", "m"],
        ["rubric", "add", project, judge],
        ["batch", "export", project, "--rubric", "just-eval", tmp / "requests.jsonl"],
        ["batch", "import", project, results],
        ["reparse", project, "--rubric", "just-eval"],
    ]


def test_every_command_says_the_file_is_damaged(
    damaged: Path, sound_project: Path, tmp_path: Path, hostile: Hostile
) -> None:
    before = fingerprint(damaged)
    assert before.startswith("bytes:")  # SQLite cannot even dump it
    with OpenAIServer(answer="A") as server:
        for args in _commands(damaged, sound_project, tmp_path, server.base_url):
            run = hostile.cli(*args)
            hostile.refused(
                run, says=(f"{damaged}: the file is damaged (",), project=damaged, before=before
            )
        assert server.requests == []  # the judge asked the model nothing
    made = {p.name for p in tmp_path.iterdir()}
    assert not made & {"out.csv", "out.jsonl", "requests.jsonl"}
    assert not [name for name in made if name.startswith(".out")]


def test_a_merge_names_the_damaged_side_and_changes_neither(
    damaged: Path, tmp_path: Path, hostile: Hostile
) -> None:
    mine = new_project(tmp_path, "mine.tiebreak")
    mine_before, damaged_before = fingerprint(mine), fingerprint(damaged)
    for args in (["merge", mine, damaged], ["merge", damaged, mine]):
        run = hostile.cli(*args)
        hostile.refused(
            run, says=f"{damaged}: the file is damaged (", project=mine, before=mine_before
        )
        assert fingerprint(damaged) == damaged_before


def test_the_damage_message_shows_no_garbage(
    damaged: Path, tmp_path: Path, hostile: Hostile
) -> None:
    """Text that is not UTF-8 is named by its column, never printed: it may hold
    terminal escapes."""
    run = hostile.cli("export", damaged, tmp_path / "out.csv", "--rubric", RUBRIC)
    hostile.refused(run, says="the file is damaged")
    assert run.stderr.isprintable() or (run.stderr.endswith("\n") and run.stderr[:-1].isprintable())
