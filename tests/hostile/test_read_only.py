"""Read-only places: reading a project needs no write access anywhere and leaves nothing
beside it; writing to one is refused in one line. Run as a user for whom permission bits
bind (``plain_user``): root ignores them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import new_project
from tests.hostile.conftest import Hostile, User, fingerprint
from tests.hostile.test_export_targets import labelled_project

READERS = (
    ("export", "{p}", "{out}/labelled.csv"),
    ("export", "{p}", "{out}/labelled.jsonl"),
    ("stats", "{p}"),
    ("stats", "{p}", "--json"),
    ("queue", "{p}"),
    ("rubrics", "--project", "{p}"),
    ("rubric", "show", "href-overall", "--project", "{p}"),
    ("merge", "{mine}", "{p}"),  # the other reviewer's project is only read
)
WRITERS = (
    ("import", "{p}", "{out}/more.jsonl"),
    ("override", "{p}", "p1", "overall", "A", "--rubric", "href-overall"),
    ("rubric", "add", "{p}", "{out}/judge.txt"),
)


@pytest.fixture
def places(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A folder for the project, and a writable one for what the commands write."""
    folder, out = tmp_path / "shared", tmp_path / "out"
    folder.mkdir()
    out.mkdir()
    (out / "more.jsonl").write_text('{"instruction": "q9", "output_1": "a", "output_2": "b"}\n')
    (out / "judge.txt").write_text("Which is better, {output_1} or {output_2}? Answer A or B.")
    yield folder, out
    folder.chmod(0o755)


def _args(words: tuple[str, ...], project: Path, out: Path, mine: Path) -> list[str]:
    return [w.format(p=project, out=out, mine=mine) for w in words]


def _check(hostile: Hostile, user: User, project: Path, out: Path) -> None:
    mine = new_project(out, "mine.tiebreak")
    before, listing = fingerprint(project), sorted(project.parent.iterdir())
    for words in READERS:
        run = hostile.cli(*_args(words, project, out, mine), user=user)
        hostile.succeeded(run)
        assert sorted(project.parent.iterdir()) == listing, (words, "left a file beside it")
        assert fingerprint(project) == before
    for words in WRITERS:
        run = hostile.cli(*_args(words, project, out, mine), user=user)
        hostile.refused(run, says=(str(project), "read-only"), project=project, before=before)
        assert sorted(project.parent.iterdir()) == listing, words


@pytest.mark.parametrize("where", ["folder", "file"])
def test_a_read_only_project_can_be_read_and_leaves_nothing_beside_it(
    places: tuple[Path, Path], plain_user: User, hostile: Hostile, where: str
) -> None:
    """A WAL project in a ``chmod 555`` folder (SQLite cannot make -shm there), and a
    ``chmod 444`` project in a writable one (reading it used to leave -wal and -shm)."""
    folder, out = places
    project = labelled_project(folder)
    (folder if where == "folder" else project).chmod(0o555 if where == "folder" else 0o444)
    _check(hostile, plain_user, project, out)


def test_reading_a_writable_project_leaves_nothing_beside_it(
    places: tuple[Path, Path], hostile: Hostile
) -> None:
    folder, out = places
    project = labelled_project(folder)
    mine = new_project(out, "mine.tiebreak")
    before, listing = fingerprint(project), sorted(folder.iterdir())
    for words in READERS:
        hostile.succeeded(hostile.cli(*_args(words, project, out, mine)))
        assert sorted(folder.iterdir()) == listing, words
    assert fingerprint(project) == before
