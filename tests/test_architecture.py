"""The layers hold by themselves: import-linter checks the contracts in pyproject.toml
(which layer may import which, only the window imports Qt, the domain does no I/O, and no
import cycle at any level) on every test run, so CI fails when one is broken."""

from __future__ import annotations

from pathlib import Path

from importlinter.cli import EXIT_STATUS_SUCCESS, lint_imports

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_imports_keep_the_contracts() -> None:
    """On failure the captured output names each broken contract and the imports that
    break it."""
    assert lint_imports(str(PYPROJECT), no_cache=True, no_logo=True) == EXIT_STATUS_SUCCESS
