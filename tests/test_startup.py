"""What `tiebreak` opens: the project named, else the last one, else the demo; a last
project that cannot be opened falls back to the demo with a warning, a named one fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.domain.errors import TiebreakError
from desktop.services.app_settings import AppSettings, save_settings
from desktop.services.demo import DEMO_NAME
from desktop.services.startup import open_start
from tests.helpers import new_project


def test_first_run_opens_the_demo() -> None:
    start = open_start(None)
    assert start.session.path.name == DEMO_NAME and start.warning == ""
    assert start.session.store.conn.execute("SELECT count(*) FROM pairs").fetchone()[0] >= 20
    start.session.close()


def test_the_last_project_opens_again(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    settings = AppSettings(reviewer="ada")
    settings.remember(project)
    save_settings(settings)
    start = open_start(None)
    assert start.session.path == project.resolve() and start.settings.reviewer == "ada"
    start.session.close()


def test_a_damaged_last_project_falls_back_to_the_demo(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.tiebreak"
    damaged.write_bytes(b"this is not a database" * 100)
    settings = AppSettings()
    settings.remember(damaged)
    save_settings(settings)
    start = open_start(None)
    assert start.session.path.name == DEMO_NAME
    assert str(damaged) in start.warning and "Opening the demo project instead." in start.warning
    assert "\n" in start.warning and "Traceback" not in start.warning
    start.session.close()


def test_a_named_project_that_cannot_open_is_an_error(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.tiebreak"
    damaged.write_bytes(b"this is not a database" * 100)
    with pytest.raises(TiebreakError, match=r"damaged\.tiebreak"):
        open_start(damaged)
