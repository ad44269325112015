"""A GGUF header's counts and lengths are not believed beyond what the file can hold.

A sparse file claiming 2^60 tokens, key-value pairs or tensors ran `tiebreak models` past
90 s, and a 1 GiB key took 3.1 GB and 18 s (copied twice). Each file here is a header of a
few dozen bytes written by hand, made sparse to a size that costs no disk; each is listed
with its reason (and refused by `profile add --gguf` in one line), the good file beside it
is still listed, and the whole listing takes seconds and little memory (the command's own
peak, measured by tests/peak_memory.py).
"""

from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.gguf_files import sparse_to, write_gguf
from tests.hostile.conftest import Hostile, Run
from tests.peak_memory import launcher, read_report

HANG = 60  # seconds: a command still running then is killed, and the case fails
SECONDS = 10.0  # the whole listing, its start-up included
PEAK = 300 << 20  # bytes of the command's own resident memory
SPARSE = 1 << 36  # 64 GiB of holes: the file's size, none of it on disk
_STRING, _ARRAY, _U32 = 8, 9, 4


def gguf_string(text: bytes, length: int | None = None) -> bytes:
    return struct.pack("<Q", len(text) if length is None else length) + text


def header(tensors: int, kvs: int, body: bytes = b"") -> bytes:
    return b"GGUF" + struct.pack("<IQQ", 3, tensors, kvs) + body


def hostile_files(folder: Path) -> dict[str, Path]:
    """Files whose headers claim what they cannot hold; each made sparse to SPARSE bytes."""
    tokens = gguf_string(b"tokenizer.ggml.tokens") + struct.pack("<IIQ", _ARRAY, _STRING, 1 << 60)
    scores = gguf_string(b"tokenizer.ggml.scores") + struct.pack("<IIQ", _ARRAY, 6, 1 << 60)
    contents = {
        "tokens.gguf": header(1, 1, tokens),
        "scores.gguf": header(1, 1, scores),
        "kvs.gguf": header(1, 1 << 60),
        "tensors.gguf": header(1 << 60, 0),
        # a 1 GiB key: its bytes are the file's holes
        "key.gguf": header(1, 1, struct.pack("<Q", 1 << 30)),
        # a 1 GiB name as a value (stepped over, not copied), and no weights
        "value.gguf": header(
            0, 1, gguf_string(b"general.name") + struct.pack("<IQ", _STRING, 1 << 30)
        ),
        # a 1 GiB tensor name, and a tensor of 2^31 dimensions
        "tensor_name.gguf": header(1, 0, struct.pack("<Q", 1 << 30)),
        "dims.gguf": header(1, 0, gguf_string(b"w") + struct.pack("<I", 1 << 31)),
    }
    made = {}
    for name, data in contents.items():
        path = folder / name
        path.write_bytes(data)
        sparse_to(path, SPARSE)
        made[name] = path
    made["arrays.gguf"] = many_arrays(folder / "arrays.gguf")
    return made


def many_arrays(path: Path, arrays: int = 16, each: int = 1 << 21) -> Path:
    """Each count within bounds, but not all together: ``arrays`` keys, each an array of
    ``each`` empty strings (holes), each key written where the array before it ends."""
    with open(path, "wb") as handle:
        handle.write(header(1, arrays))
        for i in range(arrays):
            handle.write(gguf_string(f"k{i}".encode()) + struct.pack("<IIQ", _ARRAY, _STRING, each))
            handle.seek(8 * each, 1)
    sparse_to(path, SPARSE)
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    folder = tmp_path / "models"
    folder.mkdir()
    probe = folder / "probe"
    probe.write_bytes(b"")
    try:
        sparse_to(probe, SPARSE)
    except OSError as exc:
        pytest.skip(f"no sparse files of {SPARSE} bytes here ({exc})")
    probe.unlink()
    return folder


def test_a_listing_of_headers_claiming_too_much_is_quick_and_small(
    tmp_path: Path, folder: Path, hostile: Hostile
) -> None:
    write_gguf(folder / "good.gguf", name="Good Model")
    bad = hostile_files(folder)
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if k != "TIEBREAK_DEBUG"}
    proc = subprocess.Popen(
        [*launcher(report), sys.executable, "-m", "desktop", "models", "--no-servers"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**env, "TIEBREAK_MODEL_PATH": str(folder)},
        start_new_session=True,  # a command that hangs is killed with its launcher
    )
    try:
        stdout, stderr = proc.communicate(timeout=HANG)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    run, measured = Run(proc.returncode, stdout, stderr), read_report(report)
    hostile.succeeded(run)
    lines = run.stdout.splitlines()
    assert any("good.gguf  Good Model" in line for line in lines), run.stdout
    for name in bad:
        (line,) = [x for x in lines if f" {name} " in x]
        assert "cannot be used:" in line, line
    assert measured.seconds < SECONDS, f"{measured.seconds:.1f} s"
    assert measured.peak_bytes < PEAK, f"{measured.peak_bytes >> 20} MB"


def test_profile_add_refuses_each_in_one_line(folder: Path, hostile: Hostile) -> None:
    for path in hostile_files(folder).values():
        run = hostile.cli("profile", "add", "mine", "--gguf", path, timeout=HANG)
        hostile.refused(run, says=(str(path),))
        assert "cut short" not in run.stderr, run.stderr
