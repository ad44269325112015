"""Where the shipped rubric files and demo data are, in a checkout and in an installed wheel.

The wheel carries ``prompts/`` and ``resources/`` inside the package as ``desktop/_data/``;
a checkout (or an editable install) has them at the repository's top level.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    packaged = _PACKAGE / "_data" / name
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / name


def prompts_dir() -> Path:
    """The folder of built-in rubric files."""
    return _data_dir("prompts")


def resources_dir() -> Path:
    """The folder of demo data and other shipped files."""
    return _data_dir("resources")
