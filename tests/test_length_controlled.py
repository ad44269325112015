"""AlpacaEval 2.0's length-controlled win rate in `stats --by model`, against alpaca-eval
0.6.6's own ``get_length_controlled_winrate`` run on the same annotations (its
``hf_hub_download`` of ``df_gamed.csv`` replaced by a local file), to 1e-6."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED
from tests.helpers import new_project, tiebreak

CLAUDE = (
    SHARED / "data" / "alpaca_eval" / "claude-2.1__weighted_alpaca_eval_gpt4_turbo.annotations.json"
)
VARIANTS = ("length_controlled_minimal", "length_controlled_noreg", "length_controlled_v1")


def gamed_file(folder: Path, instructions: int, seed: int = 0) -> Path:
    """A df_gamed.csv of AlpacaEval's shape: the baseline's rows (not gamed) carry each
    instruction's difficulty, two gamed baselines' rows regularise v1."""
    rng = random.Random(seed)
    lines = ["model,index,preference,std_delta_len,instruction_difficulty,not_gamed_baseline"]
    for model, not_gamed in (("base", True), ("verbose", False), ("concise", False)):
        for i in range(instructions):
            lines.append(
                f"{model},{i},{rng.random()!r},{rng.gauss(0, 1)!r},"
                f"{rng.gauss(0, 1) if not_gamed else 0.0!r},{not_gamed}"
            )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "df_gamed.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def reference(
    monkeypatch: pytest.MonkeyPatch, records: list[dict[str, Any]], variant: str, gamed: Path
) -> tuple[float, float]:
    glm = pytest.importorskip("alpaca_eval.metrics.glm_winrate")
    monkeypatch.setattr(glm, "hf_hub_download", lambda **_: str(gamed / "df_gamed.csv"))
    got = glm.get_length_controlled_winrate(
        records, glm_name=variant, save_weights_dir=None, is_warn_extreme_changes=False
    )
    return got["length_controlled_winrate"], got["lc_standard_error"]


def by_model(path: Path, *args: str | Path) -> dict[str, dict[str, Any]]:
    proc = tiebreak("stats", path, "--by", "model", "--json", *args)
    assert proc.returncode == 0, proc.stderr
    (board,) = json.loads(proc.stdout)["rubrics"]
    return {r["generator"]: r for r in board["rows"]}


@pytest.mark.parametrize("variant", VARIANTS)
def test_claude_as_alpaca_eval_computes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    if not CLAUDE.exists():
        pytest.skip(f"no {CLAUDE}")
    records = json.loads(CLAUDE.read_text(encoding="utf-8"))
    gamed = gamed_file(tmp_path / "lc", len(records))
    path = new_project(tmp_path)
    assert tiebreak("import", path, CLAUDE).returncode == 0
    row = by_model(path, "--lc", variant, "--lc-files", gamed)["claude-2.1"]
    expected = reference(monkeypatch, records, variant, gamed)
    assert row["lc_reason"] is None
    assert (row["lc_win_rate"], row["lc_standard_error"]) == pytest.approx(expected, abs=1e-6)
    assert 20 < row["lc_win_rate"] < 50  # far above the raw 15.73: claude-2.1 writes shorter


def test_the_default_is_minimal_and_named(tmp_path: Path) -> None:
    if not CLAUDE.exists():
        pytest.skip(f"no {CLAUDE}")
    path = new_project(tmp_path)
    assert tiebreak("import", path, CLAUDE).returncode == 0
    table = tiebreak("stats", path, "--by", "model")
    assert table.returncode == 0, table.stderr
    assert "LC win rate LC std err" in table.stdout
    assert "32.4052     0.0000" in table.stdout  # as alpaca-eval's minimal GLM gives it
    assert "variant length_controlled_minimal (not the leaderboard's length_controlled_v1" in (
        table.stdout
    )
    v1 = tiebreak("stats", path, "--by", "model", "--lc", "length_controlled_v1")
    assert v1.returncode == 1
    assert "--lc length_controlled_v1 needs AlpacaEval's df_gamed.csv" in v1.stderr
    report = tiebreak("report", path, tmp_path / "r.html")
    assert report.returncode == 0, report.stderr
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "LC win rate" in page and "32.4052" in page
    assert "variant length_controlled_minimal (not the leaderboard" in page
    bare = tiebreak("report", path, tmp_path / "s.html", "--lc", "none")
    assert bare.returncode == 0, bare.stderr
    assert "LC win rate" not in (tmp_path / "s.html").read_text(encoding="utf-8")
    off = tiebreak("stats", path, "--by", "model", "--lc", "none")
    assert "LC win rate" not in off.stdout


def _synthetic(
    n: int, seed: int = 7
) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Four generators against one baseline on n instructions, each with its own taste for
    length; "short" lacks two instructions and "shuffled" has them out of order."""
    rng = random.Random(seed)
    base = [("x" * rng.randint(50, 900)) for _ in range(n)]
    per: dict[str, list[dict[str, Any]]] = {}
    for g, bias in (("long", 0.004), ("terse", -0.003), ("short", 0.0), ("shuffled", 0.001)):
        rows = []
        for i in range(n):
            out = "y" * rng.randint(20, 1500)
            push = bias * (len(out) - len(base[i])) + rng.gauss(0, 1)
            p = min(1.0, max(0.0, 0.5 + push / 3))
            pref: float | None = 1 + p
            if i % 17 == 3:
                pref = None  # the annotator failed: a row without a preference
            elif i % 23 == 5:
                pref = 0  # AlpacaEval's old draw
            rows.append(
                {
                    "instruction": f"instruction {i}",
                    "output_1": base[i],
                    "generator_1": "base",
                    "output_2": out,
                    "generator_2": g,
                    "annotator": "weighted_judge",
                    "preference": pref,
                }
            )
        per[g] = rows
    per["short"] = per["short"][:-2]
    shuffled = per["shuffled"]
    shuffled[0], shuffled[1] = shuffled[1], shuffled[0]
    records = [r for g in ("long", "terse", "short") for r in per[g]]
    # "shuffled" goes in after the others, so the baseline's order is the others'.
    return records + shuffled, per


@pytest.mark.parametrize("variant", VARIANTS)
def test_many_generators_each_against_its_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    n = 120
    records, per = _synthetic(n)
    data = tmp_path / "many.json"
    data.write_text(json.dumps(records), encoding="utf-8")
    gamed = gamed_file(tmp_path / "lc", n, seed=3)
    path = new_project(tmp_path)
    assert tiebreak("import", path, data).returncode == 0
    rows = by_model(path, "--lc", variant, "--lc-files", gamed)
    for g in ("long", "terse"):
        expected = reference(monkeypatch, per[g], variant, gamed)
        got = (rows[g]["lc_win_rate"], rows[g]["lc_standard_error"])
        assert got == pytest.approx(expected, abs=1e-6), g
    assert rows["long"]["lc_win_rate"] < rows["long"]["win_rate"]  # it liked length
    assert rows["short"]["lc_win_rate"] is None
    assert rows["short"]["lc_reason"] == f"{n - 2} of the baseline's {n} instructions"
    assert rows["shuffled"]["lc_win_rate"] is None
    assert "not in the baseline's order" in rows["shuffled"]["lc_reason"]
    table = tiebreak("stats", path, "--by", "model", "--lc", variant, "--lc-files", gamed)
    assert f"  – short (overall): {n - 2} of the baseline's {n} instructions" in table.stdout


def test_no_baseline_says_so(tmp_path: Path) -> None:
    rows = [
        {"instruction": f"q{i}", "response_a": "a" * i, "response_b": "b" * (30 - i)}
        for i in range(20)
    ]
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    path = new_project(tmp_path)
    assert tiebreak("import", path, data).returncode == 0
    proc = tiebreak("stats", path, "--by", "model", "--json")
    assert proc.returncode == 0, proc.stderr
    for board in json.loads(proc.stdout)["rubrics"]:
        for row in board["rows"]:
            assert row["lc_win_rate"] is None
            assert row["lc_reason"] == "the pairs name no generator or no baseline (model_a)"


def test_a_folder_without_df_gamed_is_one_line(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    proc = tiebreak("stats", path, "--by", "model", "--lc-files", tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.strip().endswith("no df_gamed.csv there (AlpacaEval's download)")
    assert "Traceback" not in proc.stderr
