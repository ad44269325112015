"""What `tiebreak report` says is true of the data it shows: its header names the project,
the judges, the day and the release; a figure that pools several generators says so, and a
table gives each generator its own row, as `stats --by model` computes them; the judges'
biases and the reviewers' agreement are there as `stats` gives them; a win rate is called
a generator's against a baseline only where the pairs have one, and a table of the judge
against the reviewers appears only where some pair has both."""

from __future__ import annotations

import json
import math
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from desktop import __version__
from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.cli.main import main
from desktop.domain.verdicts import Verdict
from desktop.services.importing import import_file
from desktop.services.overrides import override
from tests.helpers import new_project, write_jsonl
from tests.openai_server import OpenAIServer, Reply
from tests.test_stats_votes import imported, simulated

RUBRIC = "href-overall"
GENERATORS = ("gen-x", "gen-y", "<b>gen-z</b>")  # the last one's name is markup, shown as text


class _Tables(HTMLParser):
    """The page's text and its tables, each a list of rows of cell texts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[list[list[str]]] = []
        self.text: list[str] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "svg"):
            self._skip += 1
        elif tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "svg"):
            self._skip -= 1
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.tables[-1].append(self._row)
            self._row = None

    def handle_data(self, data: str) -> None:
        if self._skip:
            return
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def report(project: Path, out: Path, *args: str) -> tuple[str, list[list[list[str]]]]:
    assert main(["report", str(project), str(out), *args]) == 0
    page = _Tables()
    page.feed(out.read_text(encoding="utf-8"))
    page.close()
    return " ".join(" ".join(page.text).split()), page.tables


def table_headed(tables: list[list[list[str]]], *head: str) -> list[dict[str, str]]:
    """Every table whose heading starts with ``head``, its rows as dicts."""
    found = [t for t in tables if t and t[0][: len(head)] == list(head)]
    assert found, f"no table headed {head}"
    return [dict(zip(t[0], row, strict=True)) for t in found for row in t[1:]]


def stats_json(project: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    capsys.readouterr()
    assert main(["stats", str(project), "--json", *args]) == 0
    return json.loads(capsys.readouterr().out)


def _by_generator(data: dict) -> Reply:
    """gen-x wins most of its pairs, gen-y half, gen-z few; a probability per pair."""
    text = json.dumps(data)
    i = int(re.search(r"question (\d+)", text).group(1))
    share = 0.8 if "answer x" in text else 0.5 if "answer y" in text else 0.15
    verdict = "B" if (i * 7919 % 100) / 100 < share else "A"
    other = "A" if verdict == "B" else "B"
    return Reply(content=verdict, top_logprobs={verdict: math.log(0.7), other: math.log(0.3)})


def judged_by_ranker(project: Path) -> None:
    """Every pair judged through the command line by the test server as profile ranker."""
    with OpenAIServer(responder=_by_generator) as server:
        args = ["profile", "add", "ranker", "--base-url", server.base_url, "--model", "ranker"]
        assert main([*args, "--no-key"]) == 0
        assert main(["judge", str(project), "--rubric", RUBRIC, "--profile", "ranker"]) == 0


@pytest.fixture
def pooled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three generators against one baseline, 30 pairs each, judged; two reviewers give
    verdicts on a third of them (the same pairs, so they can be compared)."""
    folder = tmp_path_factory.mktemp("pooled")
    project = new_project(folder)
    rows = [
        {
            "id": f"{g}-{i}",
            "instruction": f"question {i}",
            "response_a": f"base answer {i}",
            "response_b": f"answer {'xyz'[n]} {i}" + " and some more words" * (n * i % 4),
            "reference": f"r{i}",
            "model_a": "base",
            "model_b": g,
        }
        for n, g in enumerate(GENERATORS)
        for i in range(1, 31)
    ]
    with open_project(project) as store:
        import_file(store, write_jsonl(folder / "pairs.jsonl", rows))
    judged_by_ranker(project)
    with open_project(project) as store:
        for n, g in enumerate(GENERATORS):
            for i in range(1, 31, 3):
                for reviewer, flip in (("ada", False), ("bob", i % 4 == 1)):
                    b = (n == 0) != flip
                    override(
                        store,
                        find_pair(store, f"{g}-{i}"),
                        rubric=RUBRIC,
                        dimension="overall",
                        verdict=Verdict.B if b else Verdict.A,
                        reviewer=reviewer,
                        note=None,
                        mode="cli",
                    )
    return project


def test_the_header_names_the_project_the_judges_the_day_and_the_release(
    pooled: Path, tmp_path: Path
) -> None:
    _, tables = report(pooled, tmp_path / "r.html")
    header = {row[0]: row[1] for row in tables[0]}
    assert header["project"] == pooled.name
    assert header["rubric"] == f"{RUBRIC}: judge ranker"
    today = datetime.now(UTC).strftime("%Y-%m-%d")
    assert header["made"].startswith(today) and header["made"].endswith(f"Tiebreak {__version__}")
    assert header["intervals"] == "at 95%"


def test_a_pooled_figure_says_so_and_each_generator_has_its_row(
    pooled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, tables = report(pooled, tmp_path / "r.html")
    assert "set 3 generators (B) against one baseline, base (A): a win rate here pools all 3" in (
        text
    )
    assert "each win rate is" not in text  # no one generator's figure is claimed
    rows = table_headed(tables, "generator", "baseline", "win rate")
    board = stats_json(pooled, capsys, "--by", "model")["rubrics"][0]["rows"]
    assert sorted(r["generator"] for r in rows) == sorted(GENERATORS)
    assert len(rows) == len(board) == 3
    for expected in board:
        (row,) = [r for r in rows if r["generator"] == expected["generator"]]
        assert row["baseline"] == "base"
        assert row["win rate"] == f"{expected['win_rate']:.4f}"
        assert row["std error"] == f"{expected['standard_error']:.4f}"
        assert (row["wins"], row["losses"], row["n"]) == tuple(
            str(expected[k]) for k in ("n_wins", "n_wins_base", "n_total")
        )
        assert row["avg length"] == str(expected["avg_length"])
    # The reviewers gave verdicts, so each row also has B's win rate three ways.
    assert "B's win rate by the judge alone, the humans alone and PPI++" in text
    # Best first, as the leaderboard ranks them.
    assert [r["generator"] for r in rows] == [r["generator"] for r in board]


def test_the_biases_and_the_reviewers_agreement_are_those_stats_gives(
    pooled: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, tables = report(pooled, tmp_path / "r.html")
    (figures,) = stats_json(pooled, capsys)["rubrics"]
    (bias,) = table_headed(tables, "judge", "dimension", "longer")
    (expected,) = [b for b in figures["judge_biases"] if b["biases"] is not None]
    assert (bias["judge"], bias["dimension"]) == ("ranker", "overall")
    assert bias["longer"] == f"{100 * expected['biases']['prefer_longer']:.1f}%"
    assert bias["verdicts"] == f"{expected['biases']['preferences']:,}"
    assert "how often the judge prefers output_1" in text
    (agreement,) = table_headed(tables, "dimension", "reviewers", "pairs")
    reviewers = figures["overall"]["dimensions"][0]["reviewers"]
    assert agreement["reviewers"] == "2 (ada, bob)"
    assert agreement["pairs"] == str(reviewers["pairs"]) == "30"
    assert agreement["Cohen's κ"] == f"{reviewers['cohen_kappa']:.3f}"
    assert agreement["Fleiss' κ"] == f"{reviewers['fleiss_kappa']:.3f}"


def test_votes_data_with_no_baseline_is_not_called_a_generators_win_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """MT-bench's votes: every pair of four models, in both places, several experts per
    question. The page says a win rate there is position B's, pooled, and gives the
    reviewers' agreement as FastChat counts it, among them and with the judge."""
    project = imported(tmp_path, simulated(5))
    text, tables = report(project, tmp_path / "r.html")
    assert "compare models in both places, with no single baseline" in text
    assert "each win rate is" not in text and "against one baseline" not in text
    (rubric,) = stats_json(project, capsys)["rubrics"]
    votes = rubric["overall"]["dimensions"][0]["vote_agreement"]
    rows = table_headed(tables, "turn", "between", "with ties")
    for expected in votes:
        who = (
            "reviewers"
            if expected["reviewers"] == "all"
            else f"reviewers {expected['reviewers']}_*"
        )
        between = f"judge and {who}" if expected["judge"] else who
        (row,) = [r for r in rows if (r["turn"], r["between"]) == (str(expected["turn"]), between)]
        assert row["with ties"].startswith(f"{expected['agree']:,} of {expected['total']:,} (")
        assert row["without ties"].startswith(
            f"{expected['agree_without_ties']:,} of {expected['total_without_ties']:,} ("
        )
    assert {r["between"] for r in rows} >= {"reviewers", "judge and reviewers"}
    # One row per model pair and turn's generator (model_b) against its baseline (model_a).
    board = table_headed(tables, "generator", "baseline", "win rate")
    assert len({(r["generator"], r["baseline"]) for r in board}) == len(board) > 4


def test_a_judge_without_reviews_has_no_empty_table_of_agreement(
    tmp_path: Path,
) -> None:
    """One generator, judged, never reviewed: the page says there is nothing to hold the
    judge against, and names whose win rate the figures are."""
    project = new_project(tmp_path)
    rows = [
        {
            "id": f"p{i}",
            "instruction": f"question {i}",
            "response_a": f"base answer {i}",
            "response_b": f"answer x {i}",
            "reference": f"r{i}",
            "model_a": "base",
            "model_b": "gen-x",
        }
        for i in range(1, 21)
    ]
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "pairs.jsonl", rows))
    judged_by_ranker(project)
    text, tables = report(project, tmp_path / "r.html")
    assert "Every pair has gen-x as B and base as A: each win rate is gen-x's against base" in text
    assert "No pair has both this judge's verdict and a reviewer's" in text
    assert not [t for t in tables if t and "w/ human" in t[0]]
    assert "Agreement among the reviewers" not in text


def test_the_report_says_which_judge_to_trust_as_tiebreak_judges_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """JudgeBench-shaped data: two judges in both orders and a gold label per pair. The
    section has one table per dimension and reference (the gold labels are the only
    reviewers' verdicts here, so one table, called what it is), best first, as the CLI."""
    from tests.test_import_judgebench_shaped import imported as judgebench
    from tests.test_import_judgebench_shaped import reward_model_file

    project = judgebench(tmp_path)
    assert (
        main(["import", str(project), str(write_jsonl(tmp_path / "rm.jsonl", reward_model_file()))])
        == 0
    )
    text, tables = report(project, tmp_path / "report.html")
    assert "Which judge to trust" in text
    assert "overall · against gold labels from the data: 10 pairs with a reference" in text
    assert "against the reviewers' consensus" not in text
    rows = table_headed(tables, "", "judge", "orders", "pairs", "JudgeBench")
    capsys.readouterr()
    assert main(["judges", str(project), "--against", "gold", "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)["table"]["rows"]
    assert [(r["judge"], r["orders"]) for r in rows] == [(e["name"], e["use"]) for e in expected]
    assert rows[0][""] == "best" and rows[0]["judge"] == "reward_model/tiny-rm"
    jb = [e["judgebench"] for e in expected]
    assert [r["JudgeBench"] for r in rows] == [
        f"{100 * e['value']:.1f} [{100 * e['low']:.1f}, {100 * e['high']:.1f}]" for e in jb
    ]
