"""Data as it is published (issue 30, item 9): a gzip or zstd file is read by its content,
whatever its name, in every format and under a folder, as a stream; a damaged, cut-short
or bomb file stops the import in one line naming the file, leaving the project as it was."""

from __future__ import annotations

import csv
import gzip
import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.formats.compressed import MAX_RATIO
from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import count_pairs
from tests.helpers import new_project, table_digest, tiebreak
from tests.peak_memory import launcher, read_report

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
HH = SHARED / "hh_rlhf" / "harmless-base-test-sample100.jsonl"
needs_hh = pytest.mark.skipif(not HH.is_file(), reason="../shared/data/hh_rlhf is absent")

ROWS = [
    {"instruction": f"question {i}", "output_1": f"first {i}", "output_2": f"second {i}"}
    for i in range(30)
]


def zstd_module() -> Any:
    try:
        from compression import zstd  # type: ignore[import-not-found]
    except ImportError:
        zstd = pytest.importorskip("backports.zstd")
    return zstd


def jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def as_csv(rows: list[dict[str, Any]]) -> bytes:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode()


def imported(tmp_path: Path, data: Path) -> int:
    """Import ``data`` on the command line into a new project; the pairs it holds."""
    project = tmp_path / f"{data.name}.tiebreak"
    assert tiebreak("new", project).returncode == 0
    proc = tiebreak("import", project, data)
    assert proc.returncode == 0, proc.stderr
    with open_project(project, readonly=True) as store:
        return count_pairs(store)


def refused(tmp_path: Path, data: Path) -> str:
    """Import ``data`` on the command line into a project holding one pair: the one line
    of error, with the project left as it was."""
    project = tmp_path / "p.tiebreak"
    if not project.exists():
        new_project(tmp_path)
        seed = tmp_path / "seed.jsonl"
        seed.write_bytes(jsonl([{"instruction": "s", "output_1": "a", "output_2": "b"}]))
        assert tiebreak("import", project, seed).returncode == 0
    before = table_digest(project)
    proc = tiebreak("import", project, data)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"tiebreak: error: {data}: "), proc.stderr
    assert table_digest(project) == before
    return lines[0].removeprefix(f"tiebreak: error: {data}: ")


@needs_hh
def test_hh_rlhf_as_published_imports_like_the_plain_file(tmp_path: Path) -> None:
    gz = tmp_path / "test.jsonl.gz"
    gz.write_bytes(gzip.compress(HH.read_bytes()))
    assert imported(tmp_path, gz) == imported(tmp_path, HH) == 100


@needs_hh
def test_a_folder_of_hh_rlhf_parts_imports_each(tmp_path: Path) -> None:
    folder = tmp_path / "hh-rlhf"
    lines = HH.read_bytes().splitlines(keepends=True)
    for part, chunk in (("harmless-base", lines[:60]), ("helpful-base", lines[60:])):
        (folder / part).mkdir(parents=True)
        (folder / part / "test.jsonl.gz").write_bytes(gzip.compress(b"".join(chunk)))
    (folder / "README.md").write_text("not data")
    assert imported(tmp_path, folder) == 100


@pytest.mark.parametrize(
    ("name", "content"),
    [
        pytest.param("pairs.jsonl.gz", jsonl(ROWS), id="jsonl"),
        pytest.param("pairs.json.gz", json.dumps(ROWS, indent=2).encode(), id="json"),
        pytest.param("pairs.csv.gz", as_csv(ROWS), id="csv"),
        pytest.param("pairs.tsv.gz", as_csv(ROWS).replace(b",", b"\t"), id="tsv"),
        # The content decides, not the name: gzip named as plain, and a bare ".gz".
        pytest.param("pairs.jsonl", jsonl(ROWS), id="gzip-named-jsonl"),
        pytest.param("pairs.csv", as_csv(ROWS), id="gzip-named-csv"),
        pytest.param("export.gz", json.dumps(ROWS).encode(), id="json-in-bare-gz"),
    ],
)
def test_every_format_is_read_through_gzip(tmp_path: Path, name: str, content: bytes) -> None:
    data = tmp_path / name
    data.write_bytes(gzip.compress(content))
    assert imported(tmp_path, data) == len(ROWS)


def test_zstd_is_read_where_python_can(tmp_path: Path) -> None:
    zstd = zstd_module()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "pairs.jsonl.zst").write_bytes(zstd.compress(jsonl(ROWS)))
    (tmp_path / "data" / "more.csv.zst").write_bytes(zstd.compress(as_csv(ROWS[:5])))
    assert imported(tmp_path, tmp_path / "data") == len(ROWS)


def test_a_cut_short_gzip_names_the_file_and_imports_nothing(tmp_path: Path) -> None:
    whole = gzip.compress(jsonl(ROWS * 50 + [{"instruction": "last", "output_1": "a"}]))
    data = tmp_path / "cut.jsonl.gz"
    data.write_bytes(whole[: len(whole) * 3 // 4])
    assert refused(tmp_path, data) == "the gzip data ends early (the file is cut short)"


def test_damaged_gzip_names_the_file_and_imports_nothing(tmp_path: Path) -> None:
    rng = random.Random(7)
    text = jsonl([{**r, "output_2": f"{rng.random()}"} for r in ROWS * 20])
    whole = bytearray(gzip.compress(text))
    whole[len(whole) // 2 : len(whole) // 2 + 16] = bytes(16)
    data = tmp_path / "damaged.jsonl.gz"
    data.write_bytes(bytes(whole))
    assert refused(tmp_path, data).startswith("damaged gzip data (")


def test_damaged_zstd_names_the_file(tmp_path: Path) -> None:
    zstd = zstd_module()
    whole = zstd.compress(jsonl(ROWS * 20))
    data = tmp_path / "cut.jsonl.zst"
    data.write_bytes(whole[: len(whole) // 2])
    assert refused(tmp_path, data) == "the zstd data ends early (the file is cut short)"


def test_a_decompression_bomb_stops_in_one_line(tmp_path: Path) -> None:
    """A record, then 1 GB of spaces in 1 MB (gzip members one after another): refused
    once past the floor, with the record not kept."""
    data = tmp_path / "bomb.jsonl.gz"
    data.write_bytes(gzip.compress(jsonl(ROWS[:1])) + gzip.compress(b" " * 2**20, 9) * 1024)
    assert data.stat().st_size * MAX_RATIO < 2**30
    message = refused(tmp_path, data)
    assert message.startswith(f"inflates to over {MAX_RATIO} times its gzip-compressed size")


def test_a_large_gzip_is_read_as_a_stream(tmp_path: Path) -> None:
    """The peak memory of importing 20 MB of JSONL gzipped is the plain file's, give or
    take a buffer: the inflated text is never held whole."""
    rng = random.Random(3)
    words = ["".join(rng.choices("abcdefghijklmnop", k=rng.randint(2, 9))) for _ in range(5000)]
    rows = [
        {"instruction": f"q{i}", "output_1": " ".join(rng.choices(words, k=8000)), "output_2": "b"}
        for i in range(400)
    ]
    plain = tmp_path / "big.jsonl"
    plain.write_bytes(jsonl(rows))
    assert plain.stat().st_size > 19 * 2**20
    packed = tmp_path / "big.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes(), compresslevel=1))
    peaks = []
    for data in (plain, packed):
        project = new_project(tmp_path, f"{data.name}.tiebreak")
        report = tmp_path / f"{data.name}.report"
        command = [sys.executable, "-m", "desktop", "import", str(project), str(data)]
        subprocess.run([*launcher(report), *command], check=True, capture_output=True)
        peaks.append(read_report(report).peak_bytes / 2**20)
    assert peaks[1] < peaks[0] + 10, peaks
