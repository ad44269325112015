"""The streamed JSON reader: the same records as ``json.loads`` whatever the read size,
one record in memory at a time, and the line and record of every error."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from desktop.adapters.formats import json_stream
from desktop.adapters.formats.json_stream import JsonError, iter_array
from desktop.adapters.formats.readers import read_records
from desktop.domain import numerals
from desktop.domain.errors import ImportDataError

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
records = st.lists(st.dictionaries(st.text(max_size=10), values, max_size=5), max_size=6)


class CountingFile(io.BytesIO):
    """A file that remembers how many bytes were read from it."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.served = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.served += len(data)
        return data


@settings(max_examples=200, deadline=None)
@given(
    records,
    st.sampled_from([1, 2, 3, 7, 64]),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["", " ", "\n", "\r\n  "]),
    st.booleans(),
)
def test_same_records_as_json_loads_at_any_read_size(
    rows: list[dict],
    chunk: int,
    wrapped: bool,
    ascii_only: bool,
    space: str,
    bom: bool,
) -> None:
    """Read sizes of a few bytes split records, numbers and UTF-8 characters anywhere."""
    body = json.dumps(rows, ensure_ascii=ascii_only, indent=1 if space else None)
    text = (
        f'{space}{{"count": 12345, "data": {body}, "more": {{"x": [1, 2]}}}}{space}'
        if wrapped
        else f"{space}{body}{space}"
    )
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(json_stream, "CHUNK", chunk)
        got = list(iter_array(io.BytesIO(data)))
    # Numbers come as the text the file wrote (the text json.dumps wrote for them here).
    assert [value for _, _, value in got] == numerals.loads(body)
    assert [number for number, _, _ in got] == list(range(1, len(rows) + 1))
    starts = [line for _, line, _ in got]
    assert starts == sorted(starts)


def test_records_are_read_one_window_at_a_time() -> None:
    """Streaming: the first record arrives after one window, not the whole file."""
    record = {"instruction": "q" * 500, "output_1": "a", "output_2": "b"}
    text = json.dumps([record] * 5000)  # about 2.6 MB
    fh = CountingFile(text.encode())
    stream = iter_array(fh)
    assert next(stream)[2] == record
    assert fh.served <= 2 * json_stream.CHUNK < len(text) / 4
    assert sum(1 for _ in stream) == 4999


@pytest.mark.parametrize(
    ("text", "line", "column", "record", "member", "what"),
    [
        ('[\n {"a": 1},\n {"a": 2 "b": 3}\n]', 3, 10, 2, "a", "Expecting ',' delimiter"),
        ('[\n {"a": 1},\n {"a": 2,\n', 4, 1, 2, None, "cut short"),
        ('[\n {"a": 1}\n {"a": 2}]', 3, 2, None, None, "expected ',' or ']' after record 1"),
        ('[{"a": 1}] [', 1, 12, None, None, "unexpected data after the end"),
        ('{"a": [1], "b": [2]}', 1, 17, None, None, "found two ('a', 'b')"),
        ('{"a": 1}', 1, 9, None, None, "an object without one"),
        ('"text"', 1, 1, None, None, "expected a JSON array of objects"),
        ("[" + "[" * 5000, 1, 2, 1, None, "nested too deeply"),
        ('[{"x": "y", "deep": ' + "[" * 5000, 1, 2, 1, "deep", "nested too deeply"),
    ],
)
def test_errors_name_line_column_record_and_member(
    text: str, line: int, column: int, record: int | None, member: str | None, what: str
) -> None:
    with pytest.raises(JsonError) as info:
        list(iter_array(io.BytesIO(text.encode())))
    exc = info.value
    assert (exc.line, exc.column, exc.record, exc.member) == (line, column, record, member)
    assert what in exc.what


def test_a_hundred_thousand_brackets_are_one_line_not_a_crash(tmp_path: Path) -> None:
    for name in ("deep.json", "deep.jsonl"):
        path = tmp_path / name
        path.write_text("[" * 100_000 + "\n")
        with pytest.raises(ImportDataError, match=rf"{name} line 1.*nested too deeply"):
            list(read_records(path, "json" if name.endswith("json") else "jsonl"))


def test_each_record_knows_its_line() -> None:
    text = '[\n  {"a": 1},\n\n  {"a": "x\\ny",\n   "b": 2},  {"a": 3}\n]\n'
    assert [(n, line) for n, line, _ in iter_array(io.BytesIO(text.encode()))] == [
        (1, 2),
        (2, 4),
        (3, 5),
    ]


@settings(max_examples=200, deadline=None)
@given(values)
def test_numbers_written_back_as_they_were_read(value: object) -> None:
    """JSON read with its numbers kept as text and written again is the same JSON, digit
    for digit, whatever numbers it holds and however deep."""
    text = json.dumps(value, ensure_ascii=False)
    assert numerals.to_json(numerals.loads(text)) == text


@pytest.mark.parametrize("number", ["1.50", "1E2", "-0", "1.99999999999999999999", "1" * 5000])
def test_a_number_is_read_as_its_text(number: str) -> None:
    (got,) = [
        value for _, _, value in iter_array(io.BytesIO(f'[{{"n": {number}, "s": "t"}}]'.encode()))
    ]
    assert got == {"n": number, "s": "t"}
    assert numerals.to_json(got) == f'{{"n": {number}, "s": "t"}}'


@pytest.mark.parametrize("text", ["1.", "+1", ".5", "1_0", "١٢"])
def test_text_json_cannot_write_as_a_number_stays_text(text: str) -> None:
    """A CSV cell read as a number (float() takes all of these) is kept as JSON text."""
    written = numerals.to_json({"p": numerals.as_numeral(text)})
    assert json.loads(written) == {"p": text}
