"""Export targets: the project itself (by any name) and its SQLite sidecars are never
written over; a read-only target is refused; what is not a file is refused."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.domain.verdicts import Verdict
from desktop.services.importing import import_file
from desktop.services.overrides import override
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, User, fingerprint

ROWS = [
    {"id": f"p{i}", "instruction": f"q{i}", "output_1": f"a{i}", "output_2": f"b{i}"}
    for i in range(3)
]


def labelled_project(folder: Path, name: str = "P.tiebreak") -> Path:
    """Three pairs and one human verdict: what an overwrite would lose."""
    path = new_project(folder, name)
    with open_project(path) as store:
        import_file(store, write_jsonl(folder / "pairs.jsonl", ROWS))
        override(
            store,
            find_pair(store, "p1"),
            rubric="href-overall",
            dimensions=("overall",),
            dimension="overall",
            verdict=Verdict.B,
            reviewer="ann",
            note="seen",
            mode="cli",
        )
    return path


def _targets(tmp: Path, project: Path) -> list[tuple[str, Path | str, str]]:
    """(how the target is named, the argument, what the refusal says)."""
    link = tmp / "link.csv"
    link.symlink_to(project)
    hard = tmp / "hard.csv"
    os.link(project, hard)
    out = [
        ("the same name", project.name, "is the project itself"),
        ("./P", f"./{project.name}", "is the project itself"),
        ("an absolute path", str(project), "is the project itself"),
        ("a path through ..", f"../{tmp.name}/{project.name}", "is the project itself"),
        ("a symlink to it", link.name, "is the project itself"),
        ("a hard link to it", hard.name, "is the project itself"),
    ]
    for suffix, what in (
        ("-wal", "write-ahead log"),
        ("-shm", "shared-memory"),
        ("-journal", "journal"),
    ):
        out += [
            (f"its {suffix} by name", f"{project.name}{suffix}", what),
            (f"its {suffix} by absolute path", f"{project}{suffix}", what),
        ]
    return out


@pytest.mark.parametrize("fmt", [None, "csv", "jsonl"])
def test_export_never_writes_over_the_project(
    tmp_path: Path, hostile: Hostile, fmt: str | None
) -> None:
    project = labelled_project(tmp_path)
    before = fingerprint(project)
    size = project.stat().st_size
    for how, target, says in _targets(tmp_path, project):
        extra = ["--format", fmt] if fmt else []
        run = hostile.cli("export", project.name, target, *extra, cwd=tmp_path)
        hostile.refused(run, says=(says, str(Path(target))), project=project, before=before)
        assert project.stat().st_size == size, how
        leftovers = sorted(p.name for p in tmp_path.iterdir() if "tiebreak" in p.name)
        assert leftovers == ["P.tiebreak"], (how, leftovers)  # no sidecar left or made


def test_export_through_a_symlinked_project_is_refused(tmp_path: Path, hostile: Hostile) -> None:
    """The project opened through a link: its real file and the sidecars SQLite keeps
    beside the real file are protected too."""
    real = tmp_path / "real"
    real.mkdir()
    project = labelled_project(real)
    (tmp_path / "alias.tiebreak").symlink_to(project)
    before = fingerprint(project)
    for target in ("real/P.tiebreak", "real/P.tiebreak-wal", "alias.tiebreak-shm"):
        run = hostile.cli("export", "alias.tiebreak", target, cwd=tmp_path)
        hostile.refused(run, says="part of the project" if "-" in target else "itself")
    assert fingerprint(project) == before


def test_batch_export_never_writes_over_the_project(tmp_path: Path, hostile: Hostile) -> None:
    project = labelled_project(tmp_path)
    before = fingerprint(project)
    for target in (project.name, f"{project}-wal"):
        run = hostile.cli(
            "batch", "export", project.name, "--rubric", "href-overall", target, cwd=tmp_path
        )
        hostile.refused(run, says=str(target), project=project, before=before)


def test_export_refuses_a_folder_and_a_pipe(tmp_path: Path, hostile: Hostile) -> None:
    """What is not a regular file is not replaced (a pipe here; as root, a device such as
    /dev/null would be replaced by a rename just the same)."""
    project = labelled_project(tmp_path)
    before = fingerprint(project)
    hostile.refused(
        hostile.cli("export", project, tmp_path), says="is a folder", project=project, before=before
    )
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    hostile.refused(
        hostile.cli("export", project, pipe),
        says="is a named pipe (FIFO), not a file",
        project=project,
        before=before,
    )
    assert stat.S_ISFIFO(pipe.lstat().st_mode)


def test_a_read_only_target_is_refused(tmp_path: Path, plain_user: User, hostile: Hostile) -> None:
    """As a user for whom permission bits bind (root ignores them): the rename that
    replaces the file must not go around the permission the user set."""
    work = tmp_path
    project = labelled_project(work)
    out = work / "out.csv"
    out.write_text("kept\n")
    out.chmod(0o444)
    before = fingerprint(project)
    for fmt in ("csv", "jsonl"):
        run = hostile.cli("export", project, out, "--format", fmt, user=plain_user)
        hostile.refused(run, says=(str(out), "read-only"), project=project, before=before)
        assert out.read_text() == "kept\n"
        assert stat.S_IMODE(out.stat().st_mode) == 0o444
    assert sorted(p.name for p in work.iterdir()) == ["P.tiebreak", "out.csv", "pairs.jsonl"]


def test_a_replaced_target_keeps_its_permission_bits(tmp_path: Path, hostile: Hostile) -> None:
    project = labelled_project(tmp_path)
    out = tmp_path / "shared.csv"
    out.write_text("old\n")
    out.chmod(0o640)
    hostile.succeeded(hostile.cli("export", project, out))
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert out.read_text().startswith("id,external_id,")


def test_export_through_a_symlinked_target_replaces_the_file_it_names(
    tmp_path: Path, hostile: Hostile
) -> None:
    """As a shell's ``>`` would: the link stays, the file it points to is replaced."""
    project = labelled_project(tmp_path)
    real = tmp_path / "exports"
    real.mkdir()
    (real / "latest.csv").write_text("old\n")
    (tmp_path / "latest.csv").symlink_to(real / "latest.csv")
    hostile.succeeded(hostile.cli("export", project, tmp_path / "latest.csv"))
    assert (tmp_path / "latest.csv").is_symlink()
    assert (real / "latest.csv").read_text().startswith("id,external_id,")
