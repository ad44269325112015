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


#: The order the built-in rubrics are offered in; any other shipped file follows by name.
BUILTIN_RUBRICS = (
    "href-four",
    "href-four-corrected",
    "href-overall",
    "href-correctness",
    "just-eval",
    "text-grounded",
    "pair-v2",
    "pair-v2-multi-turn",
    "pair-math-v1",
    "pair-math-v1-multi-turn",
    "trajectory",
)


def builtin_rubric_files() -> list[Path]:
    """The shipped rubric files, in the order they are offered."""

    def key(path: Path) -> tuple[int, str]:
        stem = path.stem
        order = BUILTIN_RUBRICS.index(stem) if stem in BUILTIN_RUBRICS else len(BUILTIN_RUBRICS)
        return (order, stem)

    return sorted(prompts_dir().glob("*.toml"), key=key)


def resources_dir() -> Path:
    """The folder of demo data and other shipped files."""
    return _data_dir("resources")
