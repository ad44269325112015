"""The offline judge reads a 16-bit copy of the bundled model, made once in the user's cache:
faster on every CPU, judging as the bundled file does, and never in the way (a copy that
cannot be made leaves the bundled file in use; a half-made one is never read).

The conversion is llama.cpp's own, run for real on the bundled model; the servers are the
real llama.cpp server, started as the app starts it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from desktop.adapters.llama_launch import (
    BAD_COPY_LINE,
    COPY_LINE,
    NO_COPY_LINE,
    copy_folder,
    with_sixteen_bit_copy,
)
from desktop.adapters.local_server import LocalServer, llama_command
from desktop.adapters.model_file import (
    STALE_PARTIAL_S,
    bundled_model,
    cache_dir,
    copy_path,
    sixteen_bit_copy,
)
from desktop.adapters.store import open_project
from desktop.domain.profiles import local_profile
from desktop.resources import resources_dir
from desktop.services.importing import import_file
from desktop.services.judging import JobOptions, JudgeJob
from desktop.services.project_rubrics import find_rubric
from tests.local_server_helpers import require_llama

pytestmark = pytest.mark.llama


def test_the_copy_is_made_once_and_named_for_its_source(tmp_path: Path) -> None:
    require_llama()
    import llama_cpp

    source = bundled_model()
    copy = sixteen_bit_copy(source, tmp_path)
    assert copy == copy_path(source, tmp_path, llama_cpp.__version__)
    assert copy.read_bytes()[:4] == b"GGUF"
    # F16 weights: 2 bytes each where Q4_1 takes 5 bits; nothing else is left in the folder.
    assert copy.stat().st_size > 2.5 * source.stat().st_size
    assert sorted(tmp_path.iterdir()) == [copy]

    made = copy.stat().st_mtime_ns
    time.sleep(0.01)
    assert sixteen_bit_copy(source, tmp_path) == copy
    assert copy.stat().st_mtime_ns == made  # read again, not converted again


def test_a_new_model_or_converter_gets_a_new_copy_and_the_old_ones_go(tmp_path: Path) -> None:
    require_llama()
    source = tmp_path / "model" / bundled_model().name
    source.parent.mkdir()
    source.write_bytes(bundled_model().read_bytes())
    cache = tmp_path / "cache"
    first = sixteen_bit_copy(source, cache)
    assert copy_path(source, cache, "0.0.1") != first  # another llama.cpp: another name

    os.utime(source, ns=(time.time_ns(), time.time_ns() + 10**9))  # a new file in its place
    dead = cache / f".{source.stem}.abc.partial"  # a conversion that died long ago
    dead.write_bytes(b"half")
    os.utime(dead, (time.time() - 2 * STALE_PARTIAL_S,) * 2)
    running = cache / f".{source.stem}.def.partial"  # one that another process is making
    running.write_bytes(b"half")

    second = sixteen_bit_copy(source, cache)
    assert second != first
    assert sorted(cache.iterdir()) == sorted([second, running])


def test_a_file_llama_cpp_cannot_convert_leaves_nothing(tmp_path: Path) -> None:
    require_llama()
    source = tmp_path / "broken.gguf"
    source.write_bytes(b"GGUF" + b"\0" * 4000)
    with pytest.raises(OSError, match=r"could not convert broken\.gguf"):
        sixteen_bit_copy(source, tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []


def test_without_room_or_folder_the_server_is_given_the_bundled_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_llama()
    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("a file where the cache folder should be")
    argv = ["--sixteen-bit-copy-in", str(not_a_folder), "--model", "/m.gguf", "--port", "1"]
    folder, server_argv = copy_folder(argv)
    assert with_sixteen_bit_copy(server_argv, folder) == ["--model", "/m.gguf", "--port", "1"]
    assert NO_COPY_LINE in capsys.readouterr().err


def judge_demo(
    server: LocalServer, path: Path, pair_ids: tuple[int, ...] = (1, 2, 3, 4), swap: bool = True
) -> dict[tuple[int, str], tuple[str, str, float]]:
    """href-overall (one verdict, its confidence from logprobs) on demo pairs, both orders
    unless not ``swap``: (pair, order) -> (status, verdict, confidence)."""
    with open_project(path, create=True) as store:
        import_file(store, resources_dir() / "demo_pairs.jsonl")
        job = JudgeJob(
            store,
            find_rubric(store, "href-overall"),
            local_profile(),
            base_url="",
            api_key=None,
            options=JobOptions(swap=swap, pair_ids=list(pair_ids)),
            server=server,
        )
        summary = job.run()
        assert not summary.errors and summary.stopped is None, summary
        rows = store.conn.execute(
            "SELECT pair_id, ord, status, verdicts, confidence FROM judge_results"
        ).fetchall()
    return {
        (p, o): (status, json.loads(v)["overall"], json.loads(c)["overall"])
        for p, o, status, v, c in rows
    }


def test_the_server_reads_the_copy_and_judges_as_with_the_bundled_file(tmp_path: Path) -> None:
    """What the user sees: the same verdicts with nearly the same confidences, from a server
    that says in its log which file it read; a second start reads the same copy."""
    require_llama()
    copy = LocalServer(command=llama_command(8192))
    bundled = LocalServer(command=llama_command(8192, sixteen_bit=False))
    try:
        with_copy = judge_demo(copy, tmp_path / "copy.tiebreak")
        log = copy.log_text()
        made = next(cache_dir().glob("*.f16.gguf"))
        copy.restart()
        again = copy.log_text()
        with_bundled = judge_demo(bundled, tmp_path / "bundled.tiebreak")
        bundled_log = bundled.log_text()
    finally:
        copy.stop()
        bundled.stop()
    assert f"{COPY_LINE}{made}" in log and f"{COPY_LINE}{made}" in again
    assert COPY_LINE not in bundled_log and NO_COPY_LINE not in bundled_log
    assert len(with_copy) == len(with_bundled) == 8
    for key, (_, verdict, confidence) in with_bundled.items():
        assert with_copy[key][1] == verdict, key
        assert abs(with_copy[key][2] - confidence) < 0.05, (key, with_copy[key], confidence)


def test_a_copy_damaged_since_it_was_made_is_replaced_not_fatal(tmp_path: Path) -> None:
    """A copy cut short after it was made (a full disk, a restored backup): the server reads
    the bundled file and answers; the next start makes the copy again."""
    require_llama()
    import llama_cpp

    made = sixteen_bit_copy(bundled_model(), cache_dir())
    whole = made.read_bytes()
    made.write_bytes(whole[: len(whole) // 2])
    server = LocalServer(command=llama_command(2048))
    try:
        server.ensure_started(logprobs=False)
        log = server.log_text()
        answers = judge_demo(server, tmp_path / "one.tiebreak", pair_ids=(1,), swap=False)
        assert [status for status, _, _ in answers.values()] == ["ok"]
        server.restart()
        again = server.log_text()
    finally:
        server.stop()
    assert f"{BAD_COPY_LINE}{made}" in log
    assert f"{COPY_LINE}{made}" in again and BAD_COPY_LINE not in again
    assert made == copy_path(bundled_model(), cache_dir(), llama_cpp.__version__)
    assert made.stat().st_size == len(whole)
