"""The annotations hold: mypy checks the package with the settings in pyproject.toml (the
domain and the services strictly) on every test run, so CI fails on a type error. Run
alone as `.venv/bin/python -m mypy` from the checkout's root."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_mypy_finds_no_type_error() -> None:
    """mypy's own cache (.mypy_cache in the checkout, as when it is run by hand) makes a
    run after a small change take seconds instead of the full check's half a minute."""
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, f"mypy found type errors:\n{run.stdout}{run.stderr}"
