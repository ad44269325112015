"""The export's CSV lines are byte for byte ``csv.writer``'s (its default dialect) for any
cell an export writes: text with every character the writer quotes for, or doubles, or
leaves alone, numbers, the numerals a file gave, none."""

from __future__ import annotations

import csv
import io
import random

from desktop.adapters.formats.csv_lines import csv_line
from desktop.domain.numerals import Numeral

_PIECES = ['"', ",", "\r", "\n", "\r\n", " ", "'", ";", "\t", "=", "-", "é", "東京", "🙂", "a", ""]
_CELLS = [
    "",
    "plain",
    'say "hi"',
    '"',
    '""',
    "a,b",
    "line\nbreak",
    "cr\ronly",
    "\r\n",
    " leading space",
    "trailing space ",
    "tab\there",
    "\x00nul",
    "'quoted'",
    "=1+1",
    0,
    7,
    -3,
    10**30,
    0.1,
    1e-7,
    1.5e300,
    float("inf"),
    float("nan"),
    -0.0,
    True,
    None,
    Numeral("1E2"),
    Numeral("1.50"),
]


def _written(rows: list[list[object]]) -> str:
    out = io.StringIO(newline="")
    csv.writer(out).writerows(rows)
    return out.getvalue()


def test_every_kind_of_cell_is_written_as_the_csv_writer_writes_it() -> None:
    rows = [[cell] for cell in _CELLS] + [_CELLS, [], [""], ["", ""], [None]]
    for row in rows:
        assert csv_line(row) == _written([row]), row


def test_random_texts_are_written_as_the_csv_writer_writes_them() -> None:
    rng = random.Random(33)
    rows = [
        ["".join(rng.choices(_PIECES, k=rng.randint(0, 12))) for _ in range(rng.randint(1, 6))]
        for _ in range(3000)
    ]
    assert "".join(map(csv_line, rows)) == _written(rows)
