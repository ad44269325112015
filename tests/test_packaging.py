"""The wheel carries the built-in rubrics and demo data, found the same way as in a checkout."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from desktop.resources import prompts_dir

ROOT = Path(__file__).resolve().parents[1]


def test_checkout_finds_the_prompts() -> None:
    assert (prompts_dir() / "href-four.toml").is_file()


def test_wheel_contains_prompts_and_resources(tmp_path: Path) -> None:
    wheel_mod = pytest.importorskip("hatchling.builders.wheel")
    builder = wheel_mod.WheelBuilder(str(ROOT))
    built = list(builder.build(directory=str(tmp_path), versions=["standard"]))
    assert len(built) == 1
    names = set(zipfile.ZipFile(built[0]).namelist())
    shipped = {p.name for p in (ROOT / "prompts").glob("*.toml")}
    assert shipped and all(f"desktop/_data/prompts/{n}" in names for n in shipped)
    assert any(n.startswith("desktop/_data/resources/") for n in names)
    for shipped_file in ("tiebreak.desktop", "tiebreak-mime.xml", "tiebreak.svg"):
        assert f"desktop/_data/resources/desktop/{shipped_file}" in names
    assert "desktop/cli/main.py" in names
    assert not any(n.startswith("tests/") for n in names)
