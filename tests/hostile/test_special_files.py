"""A named pipe (FIFO) or a device where a file is expected: a project, a data file (given,
or found under a folder), a rubric, a file to merge, a batch output, an export target.

Opening a FIFO for reading waits for a writer, for good, and ``/dev/zero`` never ends, so
each is refused in one line that says what it is, before anything opens it: within a
second of what the same command takes to refuse a missing file (measured in the same
test), and never a hang (each command runs in a child process with a timeout that fails
the case). Nothing changes: the project's ``.dump`` hash, the pipe still a pipe.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, Run, fingerprint

HANG = 20  # seconds: a command still running then is killed, and the case fails
ROWS = [{"id": "p1", "instruction": "i", "output_1": "a", "output_2": "b"}]
ZERO = Path("/dev/zero")
needs_devices = pytest.mark.skipif(not ZERO.exists(), reason="no /dev/zero here")


def timed(hostile: Hostile, *args: str | os.PathLike[str]) -> tuple[Run, float]:
    start = time.perf_counter()
    run = hostile.cli(*args, timeout=HANG)
    return run, time.perf_counter() - start


def refused_in_time(
    hostile: Hostile,
    args: tuple[str | os.PathLike[str], ...],
    special: Path,
    *,
    says: tuple[str, ...],
    project: Path | None = None,
    before: str | None = None,
) -> None:
    """Refused, and within a second of the same command given a missing path instead of
    ``special`` (its start-up and imports included)."""
    missing = special.with_name("missing-" + special.name)
    _, reference = timed(hostile, *(missing if a == special else a for a in args))
    run, seconds = timed(hostile, *args)
    hostile.refused(run, says=says, project=project, before=before)
    assert seconds < reference + 1.0, f"took {seconds:.2f} s (a missing path: {reference:.2f} s)"


@pytest.fixture
def pipe(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.tiebreak"
    os.mkfifo(path)
    return path


def project_commands(project: Path, tmp_path: Path) -> dict[str, tuple[str | Path, ...]]:
    data = write_jsonl(tmp_path / "pairs.jsonl", ROWS)
    return {
        "stats": ("stats", project),
        "export": ("export", project, tmp_path / "out.csv"),
        "import": ("import", project, data),
        "override": ("override", project, "p1", "overall", "A", "--rubric", "href-overall"),
    }


@pytest.mark.parametrize("command", ["stats", "export", "import", "override"])
def test_a_project_path_that_is_a_pipe_is_refused_at_once(
    tmp_path: Path, pipe: Path, command: str, hostile: Hostile
) -> None:
    args = project_commands(pipe, tmp_path)[command]
    refused_in_time(
        hostile, args, pipe, says=(f"{pipe}: is a named pipe (FIFO), not a project file",)
    )
    assert stat.S_ISFIFO(pipe.lstat().st_mode)
    assert not (tmp_path / "out.csv").exists()


@needs_devices
def test_a_project_path_that_is_a_device_is_refused(tmp_path: Path, hostile: Hostile) -> None:
    link = tmp_path / "zero.tiebreak"
    link.symlink_to(ZERO)
    for args in project_commands(link, tmp_path).values():
        refused_in_time(hostile, args, link, says=("is a character device, not a project",))


def test_a_pipe_given_as_the_import_file(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    data = tmp_path / "data.jsonl"
    os.mkfifo(data)
    refused_in_time(
        hostile,
        ("import", project, data),
        data,
        says=(f"{data}: is a named pipe (FIFO), not a data file or a folder",),
        project=project,
        before=before,
    )
    for fmt in ("csv", "json", "alpaca-eval"):  # no sniffing first: the reader must refuse
        refused_in_time(
            hostile,
            ("import", project, data, "--format", fmt),
            data,
            says=("is a named pipe (FIFO)",),
            project=project,
            before=before,
        )


@needs_devices
def test_dev_zero_given_as_the_import_file(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    refused_in_time(
        hostile,
        ("import", project, ZERO),
        ZERO,
        says=("/dev/zero: is a character device, not a data file or a folder",),
        project=project,
        before=before,
    )


def test_a_pipe_inside_an_imported_folder(tmp_path: Path, hostile: Hostile) -> None:
    """The folder's good file is not imported either: the import is all or nothing."""
    project = new_project(tmp_path)
    before = fingerprint(project)
    folder = tmp_path / "results"
    folder.mkdir()
    write_jsonl(folder / "a.jsonl", ROWS)
    os.mkfifo(folder / "b.csv")
    refused_in_time(
        hostile,
        ("import", project, folder),
        folder,
        says=(f"{folder / 'b.csv'}: is a named pipe (FIFO), not a data file",),
        project=project,
        before=before,
    )


@needs_devices
def test_a_link_to_dev_zero_inside_an_imported_folder(tmp_path: Path, hostile: Hostile) -> None:
    """It ended in MemoryError after 20 s: a CSV line that never ends."""
    project = new_project(tmp_path)
    before = fingerprint(project)
    folder = tmp_path / "results"
    folder.mkdir()
    write_jsonl(folder / "a.jsonl", ROWS)
    (folder / "zero.csv").symlink_to(ZERO)
    refused_in_time(
        hostile,
        ("import", project, folder),
        folder,
        says=(f"{folder / 'zero.csv'}: is a character device, not a data file",),
        project=project,
        before=before,
    )


@pytest.mark.parametrize("name", ["judge.toml", "judge.txt"])
def test_a_pipe_given_as_a_rubric_file(tmp_path: Path, name: str, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    rubric = tmp_path / name
    os.mkfifo(rubric)
    refused_in_time(
        hostile,
        ("rubric", "add", project, rubric),
        rubric,
        says=(f"{rubric}: is a named pipe (FIFO), not a rubric file",),
        project=project,
        before=before,
    )


def test_a_pipe_given_to_merge(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    other = tmp_path / "bob.csv"
    os.mkfifo(other)
    refused_in_time(
        hostile,
        ("merge", project, other),
        other,
        says=(f"{other}: is a named pipe (FIFO), not a project file or an export",),
        project=project,
        before=before,
    )


def test_a_pipe_given_as_a_batch_output(tmp_path: Path, hostile: Hostile) -> None:
    project = new_project(tmp_path)
    before = fingerprint(project)
    results = tmp_path / "results.jsonl"
    os.mkfifo(results)
    refused_in_time(
        hostile,
        ("batch", "import", project, results),
        results,
        says=(f"{results}: is a named pipe (FIFO), not a batch output file",),
        project=project,
        before=before,
    )


@needs_devices
def test_an_export_target_that_links_to_a_device(tmp_path: Path, hostile: Hostile) -> None:
    """A rename would put the export in the device's place (as root, /dev/null itself)."""
    project = new_project(tmp_path)
    write_jsonl(tmp_path / "pairs.jsonl", ROWS)
    hostile.succeeded(hostile.cli("import", project, tmp_path / "pairs.jsonl"))
    before = fingerprint(project)
    link = tmp_path / "out.csv"
    link.symlink_to(ZERO)
    refused_in_time(
        hostile,
        ("export", project, link),
        link,
        says=(f"{link}: is a character device, not a file",),
        project=project,
        before=before,
    )
    assert link.is_symlink() and stat.S_ISCHR(ZERO.stat().st_mode)


@pytest.mark.parametrize("kind", ["pipe", "device", "link to a device"])
def test_a_pipe_or_a_device_given_as_a_gguf_model(
    tmp_path: Path, kind: str, hostile: Hostile
) -> None:
    """`profile add --gguf FIFO` waited for good for a writer."""
    if kind == "pipe":
        model = tmp_path / "model.gguf"
        os.mkfifo(model)
        what = "a named pipe (FIFO)"
    else:
        if not ZERO.exists():
            pytest.skip("no /dev/zero here")
        model = ZERO if kind == "device" else tmp_path / "zero.gguf"
        if model != ZERO:
            model.symlink_to(ZERO)
        what = "a character device"
    refused_in_time(
        hostile,
        ("profile", "add", "mine", "--gguf", model),
        model,
        says=(f"{model}: is {what}, not a GGUF model file",),
    )
    assert hostile.cli("profile", "list").stdout.count("mine") == 0
