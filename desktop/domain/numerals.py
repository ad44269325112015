"""Numbers kept as the text their file wrote.

Python's ``json`` reads ``1.50`` as 1.5, ``1E2`` as 100.0 and a preference of 21
significant digits as the nearest float, so what a data file said would be lost on the way
in. A number read from a data file is kept as a :class:`Numeral` (its text, a ``str``), and
:func:`to_json` writes it back into JSON as that same text: a number, digit for digit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

# JSON's grammar of a number: what may stand in JSON text unquoted (ASCII digits only:
# float() also reads the digits of other scripts, "١٢", which JSON does not).
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


class Numeral(str):
    """A number as its file wrote it ("1.50", "1E2", "-0"): text for a text field, a
    number (``float(n)``) where one is wanted, and in JSON written as it came."""

    __slots__ = ()

    def __repr__(self) -> str:  # an error message shows it as the file had it: got 1E2
        return str.__str__(self)


def as_numeral(text: str) -> str:
    """``text`` (stripped) as a :class:`Numeral` when JSON could write it as a number;
    else the text itself, which JSON keeps as a string ("1." or "+1.5" from a CSV)."""
    text = text.strip()
    return Numeral(text) if _JSON_NUMBER.fullmatch(text) else text


_numeral_decoder = json.JSONDecoder(parse_float=Numeral, parse_int=Numeral)


def loads(text: str) -> Any:
    """JSON text read with its numbers kept as :class:`Numeral`."""
    return _numeral_decoder.decode(text)


def to_json(value: object) -> str:
    """``json.dumps(value, ensure_ascii=False)``, but a :class:`Numeral` is written as its
    text, unquoted. Keys are text, as in anything read from JSON."""
    if not holds_numeral(value):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Numeral):
        return str.__str__(value)
    if isinstance(value, list):
        return "[" + ", ".join(to_json(v) for v in value) + "]"
    assert isinstance(value, dict)  # (holds_numeral: a Numeral, a list or a dict)
    parts: list[str] = []
    plain: dict[str, object] = {}  # a run of members without numerals: one json.dumps
    for key, member in value.items():
        if holds_numeral(member):
            if plain:
                parts.append(json.dumps(plain, ensure_ascii=False)[1:-1])
                plain = {}
            parts.append(f"{json.dumps(key, ensure_ascii=False)}: {to_json(member)}")
        else:
            plain[key] = member
    if plain:
        parts.append(json.dumps(plain, ensure_ascii=False)[1:-1])
    return "{" + ", ".join(parts) + "}"


def holds_numeral(value: object) -> bool:
    """Whether ``value`` is or holds a Numeral (a loop, not a call per member: the export
    asks this of every row)."""
    if isinstance(value, dict):
        members: Iterable[object] = value.values()
    elif isinstance(value, list):
        members = value
    else:
        return isinstance(value, Numeral)
    for member in members:
        if isinstance(member, (dict, list)):
            if holds_numeral(member):
                return True
        elif isinstance(member, Numeral):
            return True
    return False
