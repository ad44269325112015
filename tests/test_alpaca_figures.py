"""AlpacaEval's own numbers: preferences kept as given, exported at full precision, and
the win rate, standard error and counts of its leaderboard, per generator, to the digit."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.services.importing import import_file
from desktop.services.leaderboard import leaderboard
from desktop.services.stats import rubric_stats
from tests.conftest import SHARED
from tests.helpers import export_rows, new_project, tiebreak
from tests.stats_helpers import add_rubric, judge

ALPACA_DIR = SHARED / "data" / "alpaca_eval"
CLAUDE = ALPACA_DIR / "claude-2.1__weighted_alpaca_eval_gpt4_turbo.annotations.json"
BOARD = ALPACA_DIR / "weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
COLUMNS = (
    "win_rate",
    "standard_error",
    "n_wins",
    "n_wins_base",
    "n_draws",
    "n_total",
    "discrete_win_rate",
    "avg_length",
)


def _record(i: int, generator: str, preference: float | None, output_2: str) -> dict:
    return {
        "instruction": f"question {i}",
        "output_1": f"baseline answer {i}",
        "generator_1": "base",
        "output_2": output_2,
        "generator_2": generator,
        "annotator": "weighted_judge",
        "preference": preference,
    }


def hand_made(tmp_path: Path) -> Path:
    """Two generators against one baseline, in one AlpacaEval annotation file.

    g1: preferences 1.25, 2, 1.5 and 0 (AlpacaEval's old draw): B's shares .25, 1, .5, .5;
        output_2 lengths 3, 4, 5, 6.
    g2: preferences 1.9, 1.8 and null (no verdict, left out): shares .9, .8; lengths 2, 2, 9.
    """
    records = [
        _record(1, "g1", 1.25, "abc"),
        _record(2, "g1", 2, "abcd"),
        _record(3, "g1", 1.5, "abcde"),
        _record(4, "g1", 0, "abcdef"),
        _record(5, "g2", 1.9, "ab"),
        _record(6, "g2", 1.8, "ab"),
        _record(7, "g2", None, "abcdefghi"),
    ]
    data = tmp_path / "annotations.json"
    data.write_text(json.dumps(records), encoding="utf-8")
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, data)
    return path


def test_leaderboard_rows_by_hand(tmp_path: Path) -> None:
    with open_project(hand_made(tmp_path)) as store:
        board = leaderboard(store, "alpaca-eval")
    assert board.judge_model == "weighted_judge"
    g2, g1 = board.rows  # best win rate first
    assert (g1.generator, g1.baseline, g2.generator) == ("g1", "base", "g2")
    # g1: mean share (.25 + 1 + .5 + .5) / 4; deviations -.3125, .4375, -.0625, -.0625
    assert g1.win_rate == pytest.approx(56.25)
    assert g1.standard_error == pytest.approx(math.sqrt(0.296875 / 3) / 2 * 100)
    assert (g1.n_wins, g1.n_wins_base, g1.n_draws, g1.n_total) == (1, 1, 2, 4)
    assert g1.discrete_win_rate == pytest.approx(50.0)  # (1 win + 2 draws / 2) / 4
    assert g1.avg_length == 4  # 4.5, cut to an integer as AlpacaEval does
    # g2: shares .9 and .8; deviations ±.05, so the sample deviation is sqrt(.005)
    assert g2.win_rate == pytest.approx(85.0)
    assert g2.standard_error == pytest.approx(math.sqrt(0.005) / math.sqrt(2) * 100)
    assert (g2.n_wins, g2.n_wins_base, g2.n_draws, g2.n_total) == (2, 0, 0, 2)
    assert g2.discrete_win_rate == pytest.approx(100.0)
    assert g2.avg_length == 4  # (2 + 2 + 9) / 3 over every output, judged or not


def test_stats_name_the_generators_and_pool_them(tmp_path: Path) -> None:
    path = hand_made(tmp_path)
    with open_project(path) as store:
        stats = rubric_stats(store, "alpaca-eval")
    s = stats.overall
    assert (s.baseline, s.generator, s.generators) == ("base", None, 2)
    (o,) = s.dimensions
    assert o.judge_h2h.win_rate == pytest.approx((0.25 + 1 + 0.5 + 0.5 + 0.9 + 0.8) / 6 * 100)
    plain = tiebreak("stats", path)
    assert plain.returncode == 0, plain.stderr
    assert "pooled over 2 generators in B; '--by model' gives one row each" in plain.stdout
    by_model = tiebreak("stats", path, "--by", "model")
    assert by_model.returncode == 0, by_model.stderr
    rows = [line.split() for line in by_model.stdout.splitlines() if line[:3] in ("g1 ", "g2 ")]
    assert rows == [
        # No length-controlled figure on 4 pairs: a dash each, the line under says why.
        ["g2", "base", "85.0000", "5.0000", "2", "0", "0", "2", "100.0000", "4", "–", "–"],
        ["g1", "base", "56.2500", "15.7288", "1", "1", "2", "4", "50.0000", "4", "–", "–"],
    ]


def test_a_verdict_without_a_preference_counts_as_its_rounding(tmp_path: Path) -> None:
    """A judge that answered A, B or tie counts as preference 1, 2 or 1.5."""
    path = hand_made(tmp_path)
    with open_project(path) as store:
        add_rubric(store, "alpaca-eval", ("overall",))
        for pid, verdict in ((1, "B"), (2, "B"), (3, "A"), (4, "tie")):
            judge(store, pid, rubric="alpaca-eval", model="m", overall=verdict)
        (row,) = [r for r in leaderboard(store, "alpaca-eval", "m").rows if r.generator == "g1"]
    assert (row.win_rate, row.n_wins, row.n_wins_base, row.n_draws) == (62.5, 2, 1, 1)
    assert row.discrete_win_rate == 62.5


def test_preferences_are_exported_as_given(tmp_path: Path) -> None:
    rows = export_rows(hand_made(tmp_path), tmp_path / "out.csv")
    assert [r["overall_preference"] for r in rows] == ["1.25", "2", "1.5", "0", "1.9", "1.8", ""]
    assert [r["overall_model"] for r in rows] == ["A", "B", "tie", "tie", "B", "B", ""]


@pytest.fixture
def claude_file() -> Path:
    if not CLAUDE.is_file() or not BOARD.is_file():
        pytest.skip("../shared/data/alpaca_eval is not beside this checkout")
    return CLAUDE


def published(generator: str) -> dict[str, float]:
    with BOARD.open(newline="", encoding="utf-8") as fh:
        row = next(r for r in csv.DictReader(fh) if r[""] == generator)
    return {c: float(row[c]) for c in COLUMNS}


def test_the_published_leaderboard_row(tmp_path: Path, claude_file: Path) -> None:
    path = new_project(tmp_path)
    assert tiebreak("import", path, claude_file).returncode == 0
    proc = tiebreak("stats", path, "--by", "model", "--json")
    assert proc.returncode == 0, proc.stderr
    (board,) = json.loads(proc.stdout)["rubrics"]
    (row,) = board["rows"]
    assert (row["generator"], row["baseline"]) == ("claude-2.1", "gpt4_1106_preview")
    expected = published("claude-2.1")
    assert {c: row[c] for c in COLUMNS} == pytest.approx(expected, rel=1e-12)
    assert (expected["win_rate"], expected["standard_error"]) == pytest.approx(
        (15.7335, 1.1203), abs=5e-5
    )
    plain = tiebreak("stats", path)
    assert "win rates are B's (claude-2.1) against A (gpt4_1106_preview" in plain.stdout
    assert "15.7335 ± 1.1203   14.4099" in plain.stdout
    table = tiebreak("stats", path, "--by", "model").stdout
    assert "claude-2.1  gpt4_1106_preview   15.7335    1.1203    115    688     2" in table


def test_every_preference_is_exported_to_the_last_digit(tmp_path: Path, claude_file: Path):
    given = [r["preference"] for r in json.loads(claude_file.read_text(encoding="utf-8"))]
    path = new_project(tmp_path)
    with open_project(path) as store:
        import_file(store, claude_file)
    exported = [r["overall_preference"] for r in export_rows(path, tmp_path / "out.csv")]
    assert exported == [repr(p) for p in given]
    assert [float(p) for p in exported] == given


def test_an_older_project_gains_the_preference_column(tmp_path: Path) -> None:
    """A file written before m003 opens, keeps its answers, and counts them as verdicts."""
    from sqlite_utils import Database

    from desktop.adapters.store.migrations import APPLICATION_ID, migrations

    path = tmp_path / "old.tiebreak"
    db = Database(path)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    migrations.apply(db, stop_before="m003_judge_preference")
    db.execute(
        "INSERT INTO pairs(id, pair_key, instruction, response_a, response_b, model_a, model_b)"
        " VALUES (1, 'k', 'q', 'a', 'bb', 'base', 'gen')"
    )
    db.execute(
        "INSERT INTO rubrics VALUES ('h', 'alpaca-eval', 't', '[\"overall\"]', 'imported', 'x',"
        " '2024-01-01')"
    )
    db.execute(
        "INSERT INTO judge_results(pair_id, rubric_hash, rubric_name, judge_model,"
        " settings_hash, ord, verdicts, status, created_at) VALUES (1, 'h', 'alpaca-eval',"
        " 'old-judge', 's', 'AB', '{\"overall\": \"B\"}', 'ok', '2024-01-01')"
    )
    db.conn.commit()
    db.close()
    with open_project(path) as store:
        (row,) = leaderboard(store, "alpaca-eval").rows
        assert store.conn.execute("SELECT preference FROM judge_results").fetchall() == [(None,)]
    assert (row.generator, row.win_rate, row.n_wins, row.avg_length) == ("gen", 100.0, 1, 2)
