"""`tiebreak report`: one HTML file with every rubric's and judge's figures, charts inline
as SVG and nothing from anywhere else, text from data escaped; a target that is the
project, one of its sidecars, a folder or a read-only place is refused in one line, with
nothing written. The project is judged through the real command line by the test server
(two profiles, one named like an attack), and reviewed through the real services."""

from __future__ import annotations

import json
import math
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.cli.main import main
from desktop.domain.verdicts import Verdict
from desktop.services.importing import import_file
from desktop.services.overrides import override
from tests.helpers import new_project, write_jsonl
from tests.openai_server import OpenAIServer, Reply

N = 40
RUBRIC = "href-overall"
EVIL = "<script>alert('judge')</script>$x^2$"  # a judge's name: HTML and mathtext
GENERATOR = "<img src=x onerror=alert(1)>"
#: Attributes that would make a browser fetch or run something.
REFERENCES = {"href", "xlink:href", "src", "srcset", "action", "formaction", "data", "poster"}
FORBIDDEN = {"script", "link", "iframe", "object", "embed", "img", "image", "base", "frame"}


def _number(data: dict) -> int:
    return int(re.search(r"question (\d+)", json.dumps(data)).group(1))


def _confident(data: dict) -> Reply:
    """B on every third pair, A on the rest, with a probability that varies by pair."""
    i = _number(data)
    verdict, other = ("B", "A") if i % 3 == 0 else ("A", "B")
    p = 0.55 + 0.1 * (i % 5)
    return Reply(content=verdict, top_logprobs={verdict: math.log(p), other: math.log(1 - p)})


def _mostly_a(data: dict) -> Reply:
    i = _number(data)
    verdict = "B" if i % 7 == 0 else "A"
    return Reply(
        content=verdict, top_logprobs={verdict: -0.1, "B" if verdict == "A" else "A": -2.4}
    )


@pytest.fixture
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project of N pairs judged by two profiles (kept as a jury), half of it reviewed."""
    folder = tmp_path_factory.mktemp("report")
    project = new_project(folder)
    rows = [
        {
            "id": f"p{i}",
            "instruction": f"question {i}",
            "response_a": f"answer a{i}",
            "response_b": f"answer b{i}",
            "reference": f"r{i}",
            "model_a": "base",
            "model_b": GENERATOR,
        }
        for i in range(1, N + 1)
    ]
    with open_project(project) as store:
        import_file(store, write_jsonl(folder / "pairs.jsonl", rows))
    with OpenAIServer(responder=_confident) as one, OpenAIServer(responder=_mostly_a) as two:
        for name, server, model in (("evil", one, EVIL), ("plain", two, "judge-plain")):
            args = ["profile", "add", name, "--base-url", server.base_url, "--model", model]
            assert main([*args, "--no-key"]) == 0
        args = ["judge", str(project), "--rubric", RUBRIC, "--profile", "evil"]
        assert main([*args, "--profile", "plain", "--jury", "both"]) == 0
    with open_project(project) as store:
        for i in range(1, N + 1, 2):
            override(
                store,
                find_pair(store, f"p{i}"),
                rubric=RUBRIC,
                dimension="overall",
                verdict=Verdict.B if i % 3 == 0 or i % 11 == 0 else Verdict.A,
                reviewer="ada",
                note=None,
                mode="cli",
            )
    return project


class _Page(HTMLParser):
    """Every element and attribute of a page, and the text of its style elements."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.styles: list[str] = []
        self.text: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_style = tag == "style"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        (self.styles if self._in_style else self.text).append(data)


def parsed(path: Path) -> tuple[str, _Page]:
    html = path.read_text(encoding="utf-8")
    page = _Page()
    page.feed(html)
    page.close()
    return html, page


def test_the_report_holds_every_judge_and_needs_nothing_else(
    judged: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    capsys.readouterr()
    assert main(["report", str(judged), str(out)]) == 0
    said = capsys.readouterr().out
    html, page = parsed(out)
    svgs = [a for t, a in page.tags if t == "svg"]
    assert f"{out}: 1 rubric, 3 judge sections, {len(svgs)} charts" in said
    # Nothing fetched, nothing run: no element that loads or runs, every reference inside.
    assert not [t for t, _ in page.tags if t in FORBIDDEN]
    for tag, attrs in page.tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)
        for name, value in attrs.items():
            if name in REFERENCES:
                assert value is not None and value.startswith("#"), (tag, name, value)
            if name == "style":
                assert "url(" not in (value or "").replace("url(#", ""), (tag, value)
    style = "".join(page.styles)
    assert "@import" not in style and "url(" not in style.replace("url(#", "")
    # Several charts inline in one page share no id.
    ids = [a["id"] for _, a in page.tags if a.get("id")]
    assert len(ids) == len(set(ids))
    # Each judge and the jury has its section, its name shown as text, never as markup.
    text = "".join(page.text)
    for judge in (EVIL, "judge-plain", "both"):
        assert f"{RUBRIC} · judge {judge}" in text
    assert EVIL in text and "<script" not in html.replace("&lt;script", "")
    assert "A jury: the majority of" in text and f"{EVIL}, judge-plain" in text
    # The three win rates, the calibration curve, the confusion matrix and the agreement
    # figures, for each judge; the jurors' own figures for the jury.
    for needle in ("judge alone", "humans alone", "PPI++ (judge + humans)", "ECE", "reviewers"):
        assert needle in text, needle
    assert "jurors' Fleiss κ" in text and "each judge against the reviewers" in text
    # The overview; 3 per judge and jury; the jurors; ratings from each and the reviewers,
    # each plain and with style control.
    assert len(svgs) == 1 + 3 * 3 + 1 + 4 + 4
    assert "with style control (coefficients tokens" in text
    assert text.count("vs plain") == 4 * 2  # each generator's change, in each styled chart


def test_the_report_shows_the_figures_stats_computes(
    judged: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.html"
    assert main(["report", str(judged), str(out), "--alpha", "0.1"]) == 0
    capsys.readouterr()
    assert main(["stats", str(judged), "--judge-model", "both", "--alpha", "0.1", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)["rubrics"][0]["overall"]["dimensions"][0]
    _, page = parsed(out)
    text = "".join(page.text)
    for which in ("judge", "humans", "combined"):
        m = figures["win_rates"][which]
        shown = f"{100 * m['estimate']:.1f}% ({100 * m['lower']:.1f}–{100 * m['upper']:.1f})"
        assert shown in text, which
    assert "intervalsat 90%" in text  # the header: intervals | at 90%


def test_the_report_rates_the_generators_as_stats_does(
    judged: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A forest plot per source of verdicts (each judge, the jury, the reviewers): each
    generator's rating and sandwich interval as `stats --ratings` gives them."""
    out = tmp_path / "report.html"
    assert main(["report", str(judged), str(out)]) == 0
    _, page = parsed(out)
    text = "".join(page.text)
    assert "Ratings across generators" in text
    for judge, source in ((EVIL, EVIL), ("judge-plain", "judge-plain"), ("both", "both")):
        capsys.readouterr()
        args = ["stats", str(judged), "--ratings", "--rounds", "0", "--json"]
        assert main([*args, "--judge-model", judge]) == 0
        (rated,) = json.loads(capsys.readouterr().out)["ratings"]
        assert f"overall · verdicts of {source}: {rated['verdicts']:,} battles" in text
        for m in rated["models"]:
            low, high = m["sandwich"]
            row = f"{m['rating']:.0f} ({low:.0f}–{high:.0f}), rank {m['sandwich_rank']}"
            assert row in text, (judge, m["model"])
    assert "overall · verdicts of the reviewers: 20 battles" in text


def test_each_chart_is_svg_that_qt_draws(judged: Path, tmp_path: Path) -> None:
    """The window is to show the same charts through QtSvg."""
    from PySide6.QtCore import QByteArray
    from PySide6.QtSvg import QSvgRenderer

    out = tmp_path / "report.html"
    assert main(["report", str(judged), str(out)]) == 0
    charts = re.findall(r"<svg.*?</svg>", out.read_text(encoding="utf-8"), flags=re.S)
    assert charts
    for svg in charts:
        renderer = QSvgRenderer(QByteArray(svg.encode()))
        assert renderer.isValid() and not renderer.defaultSize().isEmpty()


@pytest.mark.parametrize(
    ("target", "says"),
    [
        (lambda p: p, "is the project itself"),
        (lambda p: Path(f"{p}-wal"), "is the project's"),
        (lambda p: p.parent, "is a folder"),
        (lambda p: p.parent / "no-such-folder" / "r.html", "no such folder"),
    ],
)
def test_a_target_that_would_lose_work_is_refused_in_one_line(
    judged: Path, capsys: pytest.CaptureFixture[str], target, says: str
) -> None:
    out = target(judged)
    before = sorted(os.listdir(judged.parent))
    capsys.readouterr()
    assert main(["report", str(judged), str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0], err
    assert sorted(os.listdir(judged.parent)) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_a_read_only_folder_is_refused_in_one_line(
    judged: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        capsys.readouterr()
        assert main(["report", str(judged), str(folder / "r.html")]) == 1
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "cannot be written" in err[0]
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o700)
