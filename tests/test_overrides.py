"""A reviewer's verdict given before any judge answered the rubric: from the window's keys
and from `tiebreak override` alike, the project keeps the rubric's text with it, so the
export and the figures know every dimension of the rubric, not only the one decided."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.ui.main_window import MainWindow
from tests.gui_helpers import human_rows, press
from tests.helpers import tiebreak

pytestmark = pytest.mark.usefixtures("qapp")
HREF_DIMS = ("precision", "correctness", "format", "overall")


def exported_dimensions(project: Path, out: Path) -> list[str]:
    proc = tiebreak("export", project, out)
    assert proc.returncode == 0, proc.stderr
    with out.open(newline="", encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    return [c.removesuffix("_human") for c in header if c.endswith("_human")]


def test_a_verdict_from_the_window_keeps_the_rubric(qtbot, window: MainWindow, project, tmp_path):
    press(qtbot, window, Qt.Key.Key_A)  # href-four, never judged: precision = A
    assert human_rows(project) == [("p1", "precision", "A", "ada")]
    assert exported_dimensions(project, tmp_path / "out.csv") == list(HREF_DIMS)


def test_a_verdict_from_the_command_line_keeps_the_rubric(project: Path, tmp_path: Path):
    proc = tiebreak("override", project, "p1", "overall", "B", "--rubric", "href-four")
    assert proc.returncode == 0, proc.stderr
    assert exported_dimensions(project, tmp_path / "out.csv") == list(HREF_DIMS)


def test_an_unknown_dimension_is_refused_by_both(qtbot, window: MainWindow, project, tmp_path):
    proc = tiebreak("override", project, "p1", "style", "A", "--rubric", "href-four")
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "tiebreak: error: rubric href-four has no dimension 'style' (it has precision,"
        " correctness, format, overall)"
    )
    with pytest.raises(Exception, match="has no dimension 'style'"):
        window.session.set_verdict(1, "style", None, note=None)
    assert human_rows(project) == []
