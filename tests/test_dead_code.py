"""No dead code in desktop/ (issue 34 item 8): vulture finds every function, method, class
and property that nothing in desktop/ names, and the test fails on each one. A name used
in a way vulture cannot see (Qt's virtual methods, Python's and Jinja's protocols, a name
the tests read the product's state through) is listed with its reason in
tests/vulture_whitelist.py; anything else found is removed.

By hand: python -m vulture desktop tests/vulture_whitelist.py --min-confidence 60
--ignore-decorators @migrations (it also lists unused variables and attributes, which this
test leaves alone: fields of named tuples and dataclasses, read by name or position)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

vulture = pytest.importorskip(
    "vulture", reason="vulture is not installed (pip install -e '.[test]' installs it)"
)

ROOT = Path(__file__).resolve().parent.parent
WHITELIST = ROOT / "tests" / "vulture_whitelist.py"
# 60% is vulture's confidence for a function, method, class or property nobody names (100%
# is only code after a return); the kinds of name it reports there that this test holds.
CONFIDENCE = 60
KINDS = {"function", "method", "class", "property"}
# sqlite-utils runs every function so decorated, in order: the schema's migrations.
IGNORE_DECORATORS = ["@migrations"]


def unused(paths: list[Path]) -> list[str]:
    """vulture's report lines for the unused functions, methods, classes and properties in
    ``paths`` (the whitelist's uses counted)."""
    finder = vulture.Vulture(ignore_decorators=IGNORE_DECORATORS)
    finder.scavenge([str(p) for p in [*paths, WHITELIST]])
    return [
        item.get_report()
        for item in finder.get_unused_code(min_confidence=CONFIDENCE)
        if item.typ in KINDS
    ]


def test_desktop_has_no_unused_functions_classes_or_methods() -> None:
    found = unused([ROOT / "desktop"])
    assert not found, (
        "nothing in desktop/ uses these: remove them, or, if something calls them in a way"
        " vulture cannot see, list them in tests/vulture_whitelist.py saying who:\n"
        + "\n".join(found)
    )


def test_an_unused_function_is_found(tmp_path: Path) -> None:
    """The check finds what it is for: a function beside used ones that nothing calls."""
    module = tmp_path / "module.py"
    module.write_text(
        "def used() -> int:\n    return 1\n\n\n"
        "def forgotten() -> int:\n    return used()\n\n\n"
        "class Kept:\n    def method(self) -> int:\n        return 2\n\n\n"
        "print(Kept())\n",
        encoding="utf-8",
    )
    found = unused([module])
    assert any("unused function 'forgotten'" in line for line in found), found
    assert any("unused method 'method'" in line for line in found), found
    assert not any("'used'" in line or "'Kept'" in line for line in found), found


def test_every_whitelisted_name_still_exists() -> None:
    """A name renamed or removed from desktop/ leaves no stale line in the whitelist."""
    importlib.import_module("tests.vulture_whitelist")
