"""Inputs that printed "unexpected <Python exception>": each now gets one line saying what
and where, and leaves the project as it was. A path longer than the system allows, a disk
that fills during an export, a TOML rubric nested 5,000 deep, and an answer holding a lone
surrogate (which stopped the whole job; now that pair is a parse failure with its raw
text kept). A 5,000-digit integer in a record (past Python's int-to-text limit) is now
kept as the digits the file wrote, as import keeps every number; a preference of 5,000
digits is refused in one line. A rubric file with a byte-order mark is read."""

from __future__ import annotations

import errno
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import REPO, Hostile, Run, fingerprint
from tests.judging_helpers import MODEL
from tests.openai_server import OpenAIServer, Reply

DIGITS = "9" * 5000


def _pairs(folder: Path, n: int = 3) -> Path:
    project = new_project(folder)
    rows = [
        {"id": f"p{i}", "instruction": "q", "output_1": "a", "output_2": "b", "reference": "r"}
        for i in range(n)
    ]
    write_jsonl(folder / "pairs.jsonl", rows)
    return project


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("id.jsonl", '{"instruction": "q", "output_1": "a", "output_2": "b", "id": %s}\n'),
        ("text.jsonl", '{"instruction": %s, "output_1": "a", "output_2": "b"}\n'),
        ("array.json", '[{"instruction": "q", "output_1": "a", "output_2": "b", "n": %s}]\n'),
    ],
)
def test_an_integer_of_5000_digits_in_a_record_is_kept(
    tmp_path: Path, hostile: Hostile, name: str, text: str
) -> None:
    """Python turns at most 4,300 digits into a number: the import keeps the digits as the
    file wrote them, and they come back out of an export whole."""
    project = new_project(tmp_path)
    (tmp_path / name).write_text(text % DIGITS, encoding="utf-8")
    hostile.succeeded(hostile.cli("import", project, tmp_path / name))
    hostile.succeeded(hostile.cli("export", project, tmp_path / "out.jsonl"))
    assert DIGITS in (tmp_path / "out.jsonl").read_text(encoding="utf-8")


def test_a_preference_of_5000_digits_is_refused_in_one_line(
    tmp_path: Path, hostile: Hostile
) -> None:
    project = new_project(tmp_path)
    record = '{"instruction": "q", "output_1": "a", "output_2": "b", "preference": %s}\n'
    (tmp_path / "p.jsonl").write_text(record % DIGITS, encoding="utf-8")
    before = fingerprint(project)
    hostile.refused(
        hostile.cli("import", project, tmp_path / "p.jsonl"),
        says=("p.jsonl line 1", "field 'preference'"),
        project=project,
        before=before,
    )


def _too_long(folder: Path) -> Path:
    return folder / ("x" * 300 + ".tiebreak")


def _too_deep(folder: Path) -> Path:
    return folder.joinpath(*(["y" * 200] * 25), "p.tiebreak")


@pytest.mark.parametrize("where", ["project", "import file", "export target", "rubric file"])
@pytest.mark.parametrize("shape", [_too_long, _too_deep], ids=["a long name", "a long path"])
def test_a_path_longer_than_the_system_allows(
    tmp_path: Path, hostile: Hostile, where: str, shape
) -> None:
    project = _pairs(tmp_path)
    hostile.succeeded(hostile.cli("import", project, tmp_path / "pairs.jsonl"))
    before = fingerprint(project)
    long = shape(tmp_path)
    args = {
        "project": ("stats", long),
        "import file": ("import", project, long),
        "export target": ("export", project, long),
        "rubric file": ("rubric", "add", project, long),
    }[where]
    run = hostile.cli(*args)
    hostile.refused(run, says="too long", project=project, before=before)
    assert len(run.stderr) < 400, run.stderr  # the path shortened, not 5,000 characters


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A real filesystem of 256 KB (a tmpfs, mounted for the test): an export of a few
    hundred kilobytes runs out of space on it with ENOSPC, as on a full disk."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mount)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def _export_project(folder: Path, hostile: Hostile) -> Path:
    project = new_project(folder)
    rows = [
        {"id": f"p{i}", "instruction": "q" * 200, "output_1": "a" * 300, "output_2": "b" * 300}
        for i in range(2000)
    ]
    write_jsonl(folder / "pairs.jsonl", rows)
    hostile.succeeded(hostile.cli("import", project, folder / "pairs.jsonl"))
    return project


def _old_export_kept(run: Run, target: Path, hostile: Hostile, project: Path, before: str,
                     says: str) -> None:  # fmt: skip
    hostile.refused(run, says=(str(target), says, "the old file is kept"), project=project,
                    before=before)  # fmt: skip
    assert target.read_text() == "the old export\n"
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # no temporary file


def test_no_space_left_on_the_device_during_an_export(
    tmp_path: Path, hostile: Hostile, full_disk: Path
) -> None:
    project = _export_project(tmp_path, hostile)
    target = full_disk / "out.csv"
    target.write_text("the old export\n")
    before = fingerprint(project)
    run = hostile.cli("export", project, target)
    _old_export_kept(run, target, hostile, project, before, "no space left on the device")


def _limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))


def test_a_file_size_limit_reached_during_an_export(tmp_path: Path, hostile: Hostile) -> None:
    """Where no filesystem can be mounted: a file-size limit (RLIMIT_FSIZE) stops the write
    part-way with EFBIG, the same path through the code as ENOSPC."""
    project = _export_project(tmp_path, hostile)
    (tmp_path / "out").mkdir()
    target = tmp_path / "out" / "out.csv"
    target.write_text("the old export\n")
    before = fingerprint(project)
    env = {k: v for k, v in os.environ.items() if k != "TIEBREAK_DEBUG"}
    done = subprocess.run(
        [sys.executable, "-m", "desktop", "export", str(project), str(target)],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=120,
        preexec_fn=_limit_file_size,
    )  # fmt: skip
    run = Run(done.returncode, done.stdout, done.stderr)
    _old_export_kept(run, target, hostile, project, before, "larger than this system lets")
    assert errno.EFBIG  # the error the limit gives, named in the line above


NESTED = "x = " + "[" * 5000 + "]" * 5000 + "\n"


def test_a_toml_rubric_nested_5000_deep_is_refused_by_rubric_add(
    tmp_path: Path, hostile: Hostile
) -> None:
    project = new_project(tmp_path)
    rubric = tmp_path / "deep.toml"
    rubric.write_text(NESTED, encoding="utf-8")
    before = fingerprint(project)
    hostile.refused(
        hostile.cli("rubric", "add", project, rubric),
        says=(str(rubric), "nested too deeply"),
        project=project,
        before=before,
    )


@pytest.mark.parametrize(
    "nested",
    [
        "{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}",  # Jinja's parser runs out of depth
        "{% if 1 %}" * 150 + "x" + "{% endif %}" * 150,  # Python's compiler does
    ],
    ids=["brackets 5,000 deep", "blocks 150 deep"],
)
def test_a_template_nested_deeply_is_refused_by_rubric_add(
    tmp_path: Path, hostile: Hostile, nested: str
) -> None:
    project = new_project(tmp_path)
    source = (REPO / "prompts" / "href-overall.toml").read_text(encoding="utf-8")
    rubric = tmp_path / "deep.toml"
    rubric.write_text(source.replace("{{ instruction }}", nested, 1), encoding="utf-8")
    before = fingerprint(project)
    hostile.refused(
        hostile.cli("rubric", "add", project, rubric),
        says="template nested too deeply",
        project=project,
        before=before,
    )


def _stored_rubric(folder: Path, hostile: Hostile, text: str) -> Path:
    """A project with pairs and a rubric of its own whose stored text is then ``text``
    (as another program, or a damaged copy, might leave it)."""
    project = _pairs(folder)
    hostile.succeeded(hostile.cli("import", project, folder / "pairs.jsonl"))
    source = (REPO / "prompts" / "href-overall.toml").read_text(encoding="utf-8")
    own = folder / "own.toml"
    own.write_text(source.replace('name = "href-overall"', 'name = "own"'), encoding="utf-8")
    hostile.succeeded(hostile.cli("rubric", "add", project, own))
    conn = sqlite3.connect(project)
    with conn:
        conn.execute("UPDATE rubrics SET text = ? WHERE name = 'own'", (text,))
    conn.close()
    return project


def test_a_project_rubric_nested_5000_deep_is_refused_when_loaded(
    tmp_path: Path, hostile: Hostile
) -> None:
    project = _stored_rubric(tmp_path, hostile, NESTED)
    before = fingerprint(project)
    with OpenAIServer() as server:
        run = hostile.cli(
            "judge", project, "--rubric", "own", "--base-url", server.base_url, "--model", MODEL
        )
    hostile.refused(run, says=("rubric own", "nested too deeply"), project=project,
                    before=before)  # fmt: skip


_SURROGATE_BODY = (  # the server's JSON escapes half of a UTF-16 pair: "A\ud800"
    b'{"id": "x", "object": "chat.completion", "created": 1, "model": "test-model",'
    b' "choices": [{"index": 0, "message": {"role": "assistant", "content": "A\\ud800"},'
    b' "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1,'
    b' "total_tokens": 2}}'
)


def test_an_answer_with_a_lone_surrogate_is_a_parse_failure(
    tmp_path: Path, hostile: Hostile
) -> None:
    """The job goes on: that pair's verdict is a parse failure naming the code point, its
    raw text kept (the surrogate as U+FFFD: SQLite keeps UTF-8, which cannot hold one);
    the other pairs are judged."""
    project = _pairs(tmp_path)
    hostile.succeeded(hostile.cli("import", project, tmp_path / "pairs.jsonl"))
    with OpenAIServer(answer="B") as server:
        server.script([Reply(body=_SURROGATE_BODY, headers={"content-type": "application/json"})])
        run = hostile.cli(
            "judge", project, "--rubric", "href-overall", "--base-url", server.base_url,
            "--model", MODEL, "--concurrency", "1",
        )  # fmt: skip
    hostile.succeeded(run)
    assert "2 ok, 1 parse failures, 0 errors" in run.stdout, run.stdout
    conn = sqlite3.connect(project)
    rows = conn.execute(
        "SELECT status, raw_completion, error FROM judge_results ORDER BY pair_id"
    ).fetchall()
    conn.close()
    assert rows[0] == (
        "parse-failure",
        "A\ufffd",
        "the answer is not valid text: a lone surrogate U+D800 at character 2",
    )
    assert [status for status, _, _ in rows[1:]] == ["ok", "ok"]


BOM = "\ufeff"


def test_a_rubric_saved_with_a_byte_order_mark_is_added(tmp_path: Path, hostile: Hostile) -> None:
    """Windows Notepad starts a UTF-8 file with a BOM: a TOML rubric and an
    AlpacaEval-style template so saved are added, the mark not kept in the template."""
    project = new_project(tmp_path)
    source = (REPO / "prompts" / "href-overall.toml").read_text(encoding="utf-8")
    toml = tmp_path / "notepad.toml"
    toml.write_text(BOM + source.replace('name = "href-overall"', 'name = "notepad"'),
                    encoding="utf-8")  # fmt: skip
    hostile.succeeded(hostile.cli("rubric", "add", project, toml))
    template = tmp_path / "notepad-template.txt"
    template.write_text(BOM + "Which is better?\n{instruction}\nA: {output_1}\nB: {output_2}\n",
                        encoding="utf-8")  # fmt: skip
    hostile.succeeded(hostile.cli("rubric", "add", project, template, "--dimensions", "overall"))
    shown = hostile.cli("rubric", "show", "notepad-template", "--project", project)
    hostile.succeeded(shown)
    assert BOM not in shown.stdout and "Which is better?" in shown.stdout


def test_a_project_rubric_stored_with_a_byte_order_mark_is_loaded(
    tmp_path: Path, hostile: Hostile
) -> None:
    source = (REPO / "prompts" / "href-overall.toml").read_text(encoding="utf-8")
    project = _stored_rubric(tmp_path, hostile, BOM + source.replace("href-overall", "own"))
    with OpenAIServer() as server:
        run = hostile.cli(
            "judge", project, "--rubric", "own", "--base-url", server.base_url, "--model", MODEL
        )
    hostile.succeeded(run)


def test_built_in_rubrics_saved_with_a_byte_order_mark_are_read(
    tmp_path: Path, hostile: Hostile
) -> None:
    """A checkout whose prompts/ files were opened and saved in Notepad: every built-in is
    listed and judges."""
    copy = tmp_path / "checkout"
    shutil.copytree(
        REPO / "desktop", copy / "desktop", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copytree(REPO / "prompts", copy / "prompts")
    for path in (copy / "prompts").glob("*.toml"):
        path.write_text(BOM + path.read_text(encoding="utf-8"), encoding="utf-8")
    project = _pairs(tmp_path)
    # The copy's desktop/ first; the repository's tests/ for the in-memory keyring backend
    # that every test's environment names.
    env = {"PYTHONPATH": os.pathsep.join((str(copy), str(REPO)))}
    hostile.succeeded(hostile.cli("import", project, tmp_path / "pairs.jsonl", env=env))
    listed = hostile.cli("rubrics", cwd=copy, env=env)
    hostile.succeeded(listed)
    assert "not valid TOML" not in listed.stdout + listed.stderr
    with OpenAIServer() as server:
        run = hostile.cli(
            "judge", project, "--rubric", "href-overall", "--base-url", server.base_url,
            "--model", MODEL, cwd=copy, env=env,
        )  # fmt: skip
    hostile.succeeded(run)
