"""The Figures dock (P): the figures of the rubric and judge on screen as charts, drawn off
the GUI thread, the same numbers as `tiebreak stats`, following the reviewer's verdicts
and the judge chosen. The project is test_report's: 40 pairs judged by two profiles kept as
a jury, half of them reviewed, one generator and one judge named like an attack."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFontInfo

from desktop.cli.main import main
from desktop.domain.verdicts import Verdict
from desktop.services.app_settings import AppSettings
from desktop.services.review_edits import ReviewState
from desktop.services.session import ReviewSession
from desktop.ui.figures_dock import FiguresDock
from desktop.ui.main_window import MainWindow
from desktop.ui.svg_chart import SvgChart
from tests.gui_helpers import press, save_render
from tests.test_report import EVIL, GENERATOR, RUBRIC, judged  # noqa: F401  (the fixture)


def _stats(project: Path, judge: str, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    assert main(["stats", str(project), "--rubric", RUBRIC, "--judge", judge, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _ppi_text(stats: dict) -> str:
    """The PPI++ estimate of `overall` and its interval, as the chart writes them."""
    (dim,) = stats["rubrics"][0]["overall"]["dimensions"]
    ppi = dim["win_rates"]["combined"]
    return f"{100 * ppi['estimate']:.1f}% ({100 * ppi['lower']:.1f}–{100 * ppi['upper']:.1f})"


def _charts(dock: FiguresDock) -> list[SvgChart]:
    assert dock.panel is not None
    column = dock.panel.column
    found = [column.itemAt(i).widget() for i in range(column.count())]
    return [w for w in found if isinstance(w, SvgChart)]


def _painted(chart: SvgChart) -> bool:
    """The chart drew something: more than one colour in it."""
    image = chart.grab().toImage()
    colours = {
        QColor(image.pixel(x, y)).rgb()
        for x in range(0, image.width(), 7)
        for y in range(0, image.height(), 7)
    }
    return len(colours) > 2


def _text_pixels(chart: SvgChart) -> float:
    """The chart's smallest text as painted on screen, in pixels."""
    smallest = min(float(size) for size in re.findall(r"font-size: ([\d.]+)px", chart.svg))
    return smallest * chart.width() / chart.drawn.width()


@pytest.fixture
def window(qtbot, judged: Path):  # noqa: F811
    settings = AppSettings(reviewer="ada")
    session = ReviewSession.open(judged, settings)
    session.choose_rubric(RUBRIC)
    session.choose_judge("both")
    win = MainWindow(session, settings)
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    qtbot.waitExposed(win)
    qtbot.waitUntil(win.isActiveWindow)
    win.pairs.focus()
    yield win
    win.context.runner.shutdown()


def test_p_shows_the_figures_as_charts_with_stats_numbers(
    qtbot,
    window: MainWindow,
    judged: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    dock = window.dock(FiguresDock)
    press(qtbot, window, Qt.Key.Key_P)
    assert dock.is_open() and window.shortcuts["toggle_figures"].isChecked()
    assert dock.panel is not None
    qtbot.waitUntil(lambda: len(_charts(dock)) > 0, timeout=30_000)
    panel = dock.panel
    assert "both" in panel.heading.text() and "40 pairs" in panel.heading.text()
    assert [panel.dimension.itemText(i) for i in range(panel.dimension.count())] == ["overall"]
    charts = _charts(dock)
    svgs = [c.svg for c in charts]
    # The win rate three ways first, with stats' PPI++ estimate of the same judge.
    assert "PPI++" in svgs[0] and _ppi_text(_stats(judged, "both", capsys)) in svgs[0]
    # The generators' ratings from the jury's verdicts and from the reviewers', the
    # generator's name as text (escaped in the SVG, shown literally).
    ratings = [s for s in svgs if "Elo scale" in s and "vs plain" not in s]
    assert len(ratings) == 2 and "verdicts of the reviewers" in ratings[1]
    assert all("&lt;img src=x onerror=alert(1)&gt;" in s for s in ratings)
    # Each source's ratings with style control right under its plain ones, as the report
    # draws them (`stats --ratings --style-control`'s figures).
    styled = [i for i, s in enumerate(svgs) if "vs plain" in s]
    assert [svgs[i - 1] in ratings for i in styled] == [True, True]
    assert "verdicts of the reviewers" in svgs[styled[1]]
    assert all("with style" in svgs[i] and "coefficients" in svgs[i] for i in styled)
    assert GENERATOR not in "".join(svgs)
    assert any("human" in s and "judge" in s for s in svgs)  # the confusion matrix
    assert any("Fleiss" in s for s in svgs)  # the jurors, each against the reviewers
    window.resizeDocks([dock.dock], [560], Qt.Orientation.Horizontal)
    qtbot.waitUntil(lambda: all(c.width() > 250 for c in charts))  # laid out in the dock
    for chart in charts:  # each as tall as its drawing makes it at that width
        drawn = chart.renderer().defaultSize()
        assert chart.height() >= chart.width() * drawn.height() / drawn.width() - 1
        assert _painted(chart)
    # A render to look at (save_render), once redrawn at a wider dock.
    window.resizeDocks([dock.dock], [700], Qt.Orientation.Horizontal)
    viewport = panel.scroller.viewport()
    qtbot.wait(1500)  # the resizes' redraws, each off the GUI thread
    qtbot.waitUntil(
        lambda: bool(_charts(dock)) and _charts(dock)[0].width() > viewport.width() - 40,
        timeout=30_000,
    )
    panel.scroller.ensureWidgetVisible(_charts(dock)[styled[0]])
    qtbot.wait(200)
    save_render(panel, "figures_dock_style.png")
    press(qtbot, window, Qt.Key.Key_P)
    assert not dock.is_open()


def test_the_charts_follow_a_verdict_and_the_judge_chosen(
    qtbot,
    window: MainWindow,
    judged: Path,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    dock = window.dock(FiguresDock)
    press(qtbot, window, Qt.Key.Key_P)
    qtbot.waitUntil(lambda: len(_charts(dock)) > 0, timeout=30_000)
    first = _charts(dock)[0].svg
    # Reviewing a pair not yet reviewed (p2) moves the humans' and PPI++'s figures.
    row = next(
        r for r in range(window.pairs.model.rowCount())
        if window.pairs.model.row_at(r).external_id == "p2"
    )  # fmt: skip
    window.editing.apply_state(
        window.pairs.model.row_at(row).id, "overall", ReviewState(Verdict.B, mode="gui")
    )
    # The figure the command line gives for the saved verdict, drawn once the dock has
    # caught up (a redraw at a new width also changes the SVG, so wait for the figure).
    expected = _ppi_text(_stats(judged, "both", capsys))
    assert expected not in first
    qtbot.waitUntil(lambda: _charts(dock) and expected in _charts(dock)[0].svg, timeout=30_000)
    # Another judge chosen in the picker: its figures, its name escaped in the chart.
    box = window.choices.judge_box
    box.setCurrentIndex(box.findData(EVIL))
    qtbot.waitUntil(
        lambda: _charts(dock) and "· judge both ·" not in dock.panel.heading.text()
        and "Computing" not in dock.panel.heading.text(),
        timeout=30_000,
    )  # fmt: skip
    assert "&lt;script&gt;" in _charts(dock)[0].svg
    assert _ppi_text(_stats(judged, EVIL, capsys)) in _charts(dock)[0].svg


def test_the_charts_text_is_the_windows_size_and_they_follow_the_docks_width(
    qtbot, window: MainWindow
) -> None:
    """The reviewer reads the charts at the window's font size, in a narrow dock and a wide
    one: a resize draws them again as wide as the dock, not scaled down or left narrow."""
    window.resize(1500, 900)
    dock = window.dock(FiguresDock)
    press(qtbot, window, Qt.Key.Key_P)
    qtbot.waitUntil(lambda: len(_charts(dock)) > 0, timeout=30_000)
    assert dock.panel is not None and dock.dock is not None
    font = QFontInfo(window.font()).pixelSize()
    viewport = dock.panel.scroller.viewport()
    seen = 0
    for width in (360, 700):
        window.resizeDocks([dock.dock], [width], Qt.Orientation.Horizontal)
        qtbot.waitUntil(lambda s=seen: abs(viewport.width() - s) > 200)  # the dock resized
        seen = viewport.width()

        def fills() -> bool:
            charts = _charts(dock)
            m = dock.panel.column.contentsMargins()
            room = viewport.width() - m.left() - m.right()
            return bool(charts) and abs(charts[0].width() - room) <= 2

        qtbot.waitUntil(fills, timeout=30_000)  # the win rates: as wide as the column
        styled = [c for c in _charts(dock) if "vs plain" in c.svg]
        if width == 360 and styled:  # a render to look at: the narrow dock's styled ratings
            dock.panel.scroller.ensureWidgetVisible(styled[0])
            qtbot.wait(200)
            save_render(dock.panel, "figures_dock_narrow.png")
        for chart in _charts(dock):
            assert _text_pixels(chart) >= font - 0.5, (width, chart.svg[:200])
            assert chart.width() <= viewport.width()  # none wider than the dock shows
            assert _painted(chart)
    ctrl = Qt.KeyboardModifier.ControlModifier
    try:  # larger text (Ctrl+plus): the charts' text grows with the window's
        for _ in range(4):
            press(qtbot, window, Qt.Key.Key_Plus, ctrl)
        qtbot.waitUntil(lambda: QFontInfo(window.font()).pixelSize() > font)
        larger = QFontInfo(window.font()).pixelSize()
        qtbot.waitUntil(
            lambda: all(_text_pixels(c) >= larger - 0.5 for c in _charts(dock)), timeout=30_000
        )
    finally:
        press(qtbot, window, Qt.Key.Key_0, ctrl)


def test_each_dimension_is_drawn_when_chosen_and_a_second_look_is_at_once(
    qtbot, tmp_path: Path
) -> None:
    """A rubric of four dimensions: the charts of the one shown are drawn, another's when
    it is chosen; the dock closed and opened again on the unchanged project shows them
    from what was kept, without computing (the heading never says so)."""
    from tests.bench.bench_stats_figures import REPO, build

    project = tmp_path / "four.tiebreak"
    build(REPO, project, 200, 60)
    settings = AppSettings(reviewer="ada")
    win = MainWindow(ReviewSession.open(project, settings), settings)
    qtbot.addWidget(win)
    win.show()
    win.activateWindow()
    qtbot.waitExposed(win)
    qtbot.waitUntil(win.isActiveWindow)
    win.pairs.focus()
    try:
        dock = win.dock(FiguresDock)
        press(qtbot, win, Qt.Key.Key_P)
        qtbot.waitUntil(lambda: len(_charts(dock)) > 0, timeout=60_000)
        panel = dock.panel
        assert panel is not None and panel.figures is not None
        names = [panel.dimension.itemData(i) for i in range(panel.dimension.count())]
        assert len(names) == 4
        drawn = [d.dimension for d in panel.figures.dimensions if d.charts is not None]
        assert drawn == [names[0]]  # the one shown, and no other
        first = [c.svg for c in _charts(dock)]
        panel.dimension.setCurrentIndex(2)
        qtbot.waitUntil(lambda: bool(_charts(dock)) and _charts(dock)[0].svg not in first)
        assert names[2] in _charts(dock)[0].svg  # its own charts, titled with its name
        press(qtbot, win, Qt.Key.Key_P)  # closed
        start = time.perf_counter()
        press(qtbot, win, Qt.Key.Key_P)  # opened again: the figures kept
        qtbot.waitUntil(lambda: not panel.heading.text().startswith("Computing"), timeout=5_000)
        assert time.perf_counter() - start < 1.0
        assert _charts(dock) and names[2] in _charts(dock)[0].svg
    finally:
        win.context.runner.shutdown()
