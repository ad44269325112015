"""The window's background work (desktop/services/background.py) reads and writes the
project on a connection of its own, by its path, and never once the window's connection
has let go of the file: a path that names another file now is refused in one line, and
that other file is left as it was."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.domain.errors import ProjectError
from desktop.services import background, pair_list
from desktop.services.importing import import_file
from tests.helpers import new_project, table_digest, write_jsonl


def _pairs(n: int) -> list[dict[str, str]]:
    return [
        {"id": f"p{i}", "instruction": f"Q{i}", "response_a": "a", "response_b": "b"}
        for i in range(1, n + 1)
    ]


def test_work_reads_and_writes_on_its_own_connection(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    data = write_jsonl(tmp_path / "pairs.jsonl", _pairs(3))
    with open_project(path) as held:
        project = background.ProjectFile(path, held)
        told: list[object] = []
        imported = background.writing(
            project, lambda store, progress, cancel: import_file(store, data, progress=progress)
        )(told.append, threading.Event())
        assert imported.added == 3 and told  # progress reached the caller
        count = background.reading(project, lambda store: pair_list.counts(store, "r", None))
        assert count(told.append, threading.Event()).pairs == 3


def test_work_is_refused_once_the_window_let_go_of_a_file_replaced(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    with open_project(path) as held:
        project = background.ProjectFile(path, held)
        path.rename(tmp_path / "moved.tiebreak")
        other = new_project(tmp_path, "other.tiebreak").rename(path)  # another, by that name
        assert held.verify() is not None  # the window finds the file gone, and lets go
        before = table_digest(other)
        data = write_jsonl(tmp_path / "pairs.jsonl", _pairs(2))
        work = background.writing(project, lambda store, progress, cancel: import_file(store, data))
        with pytest.raises(ProjectError, match=str(path)):
            work(lambda _: None, threading.Event())
    assert table_digest(other) == before  # the other project was never opened
