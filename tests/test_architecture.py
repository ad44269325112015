"""The layers hold by themselves: import-linter checks the contracts in pyproject.toml
(which layer may import which, only the window imports Qt, the domain does no I/O, and no
import cycle at any level) on every test run, so CI fails when one is broken; and no
module grows past the size one reads whole, nor any class past the methods one keeps in
mind."""

from __future__ import annotations

import ast
from pathlib import Path

from importlinter.cli import EXIT_STATUS_SUCCESS, lint_imports

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
MAX_MODULE_LINES = 450
MAX_METHODS = 25
MAX_ANY = 150


def test_imports_keep_the_contracts() -> None:
    """On failure the captured output names each broken contract and the imports that
    break it."""
    assert lint_imports(str(PYPROJECT), no_cache=True, no_logo=True) == EXIT_STATUS_SUCCESS


def test_no_module_is_longer_than_450_lines() -> None:
    """A module past 450 lines holds more than one job: split it where the jobs part.
    Every module of the app counts, none exempt; the failure lists each with its length."""
    sources = sorted((ROOT / "desktop").rglob("*.py"))
    assert len(sources) > 100  # the app's own modules were found, not an empty folder
    too_long = {
        str(path.relative_to(ROOT)): lines
        for path in sources
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert too_long == {}


def test_no_class_has_more_than_25_methods() -> None:
    """A class past 25 methods (properties and dunders count) is doing several objects'
    work: move what it only passes through to the module that does it. None exempt."""
    too_many = {}
    for path in sorted((ROOT / "desktop").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                methods = [
                    n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
                ]
                if len(methods) > MAX_METHODS:
                    too_many[f"{path.relative_to(ROOT)}:{node.name}"] = len(methods)
    assert too_many == {}


def test_any_stays_below_150_mentions() -> None:
    """`Any` hides from mypy the mistakes the tables invite (a misspelled figure, a missing
    column, a wrong worker result): counted as names in the code and in annotations
    written as strings, never in prose."""
    mentions = 0
    for path in sorted((ROOT / "desktop").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            mentions += _any_in(node)
    assert 0 < mentions < MAX_ANY


def _any_in(node: ast.AST) -> int:
    if isinstance(node, ast.Name):
        return int(node.id == "Any")
    if isinstance(node, ast.Attribute):
        return int(node.attr == "Any")
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        annotation = "[" in node.value and len(node.value) < 60  # not a text
        return node.value.count("Any") if annotation else 0
    return 0
