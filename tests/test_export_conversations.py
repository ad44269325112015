"""Export of conversation pairs (issue 20 item 5): JSONL keeps every message exactly, a
CSV has a column per turn and side, a round trip import -> export JSONL -> import adds
nothing, and TRL / OpenAI preference records come from the final verdicts."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.domain.import_shapes.hh_rlhf import split_transcript
from desktop.domain.verdicts import Verdict
from desktop.services import rubric_catalog
from desktop.services.importing import import_file
from desktop.services.overrides import override
from tests.helpers import new_project, table_digest, tiebreak, write_jsonl

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
HH = SHARED / "hh_rlhf" / "harmless-base-test-sample100.jsonl"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is absent")
DEMO = Path(__file__).resolve().parents[1] / "resources"

TRICKY = 'She said "=13"\n\n\\u00e9 — ✅ {{ x }} \u2028 <|im_end|>'
SHARED_HISTORY = {
    "id": "talk-1",
    "model_a": "m1",
    "model_b": "m2",
    "conversation_a": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "=1+1"},
        {"role": "assistant", "content": "2"},
        {"role": "user", "content": "And 2+2?"},
        {"role": "assistant", "content": TRICKY},
    ],
    "conversation_b": [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "=1+1"},
        {"role": "assistant", "content": "2"},
        {"role": "user", "content": "And 2+2?"},
        {"role": "assistant", "content": "four"},
    ],
}
TWO_CONVERSATIONS = {
    "id": "talk-2",
    "conversation_a": [
        {"role": "user", "content": "Name a prime."},
        {"role": "assistant", "content": "7"},
        {"role": "user", "content": "One more?"},
        {"role": "assistant", "content": "13"},
        {"role": "user", "content": "Thanks"},  # after the compared turn: kept
    ],
    "conversation_b": [
        {"role": "user", "content": "Name a prime."},
        {"role": "assistant", "content": "Eleven."},
        {"role": "user", "content": "One more?"},
        {"role": "assistant", "content": "Seventeen."},
    ],
    "turn": 2,
}
SINGLE = {"id": "one", "instruction": "Capital of France?", "output_1": "Paris", "output_2": "Lyon"}


def project_of(tmp_path: Path, *rows: dict) -> Path:
    path = new_project(tmp_path)
    with open_project(path) as store:
        conversations = [r for r in rows if "conversation_a" in r]
        plain = [r for r in rows if "conversation_a" not in r]
        if conversations:
            import_file(store, write_jsonl(tmp_path / "talks.jsonl", conversations))
        if plain:
            import_file(store, write_jsonl(tmp_path / "plain.jsonl", plain))
    return path


def give(path: Path, ref: str, rubric: str, dimension: str, verdict: Verdict) -> None:
    """Reviewer ann's verdict, as the window and `tiebreak override` give one."""
    with open_project(path) as store:
        override(
            store,
            find_pair(store, ref),
            rubric=rubric,
            dimension=dimension,
            verdict=verdict,
            reviewer="ann",
        )


def export(path: Path, out: Path, *args: str) -> str:
    run = tiebreak("export", path, out, *args)
    assert (run.returncode, run.stderr) == (0, ""), run.stderr
    return run.stdout.strip()


def test_jsonl_keeps_every_message_exactly(tmp_path: Path) -> None:
    path = project_of(tmp_path, SHARED_HISTORY, TWO_CONVERSATIONS, SINGLE)
    export(path, tmp_path / "out.jsonl")
    rows = [
        json.loads(line) for line in (tmp_path / "out.jsonl").read_text("utf-8").split("\n")[:-1]
    ]
    by_id = {row["external_id"]: row for row in rows}
    for given in (SHARED_HISTORY, TWO_CONVERSATIONS):
        row = by_id[given["id"]]
        assert row["conversation_a"] == given["conversation_a"]
        assert row["conversation_b"] == given["conversation_b"]
    assert by_id["talk-1"]["turn"] == 2 and by_id["talk-1"]["response_a"] == TRICKY
    # A single-turn pair is the one-turn case, so every row has the same keys.
    assert by_id["one"]["turn"] == 1
    assert by_id["one"]["conversation_b"] == [
        {"role": "user", "content": "Capital of France?"},
        {"role": "assistant", "content": "Lyon"},
    ]
    assert len({tuple(row) for row in rows}) == 1


def test_a_project_without_conversations_exports_the_columns_it_always_did(
    tmp_path: Path,
) -> None:
    path = project_of(tmp_path, SINGLE)
    export(path, tmp_path / "out.jsonl")
    export(path, tmp_path / "out.csv")
    (row,) = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().split("\n")[:-1]]
    assert "turn" not in row and "conversation_a" not in row
    header = (tmp_path / "out.csv").read_text().splitlines()[0]
    assert "turn" not in header


def test_csv_flattens_per_turn_and_stays_formula_safe(tmp_path: Path) -> None:
    path = project_of(tmp_path, SHARED_HISTORY, TWO_CONVERSATIONS, SINGLE)
    summary = export(path, tmp_path / "out.csv")
    with (tmp_path / "out.csv").open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames
        rows = {row["external_id"]: row for row in reader}
    assert header is not None
    start = header.index("category") + 1
    assert header[start : start + 8] == [
        "turn",
        "system",
        "turn_1_user",
        "turn_1_a",
        "turn_1_b",
        "turn_2_user",
        "turn_2_a",
        "turn_2_b",
    ]
    assert "turn_3_user" in header  # talk-2's third user message, after the compared turn
    talk = rows["talk-1"]
    assert (talk["turn"], talk["system"], talk["turn_2_a"], talk["turn_2_b"]) == (
        "2",
        "Be brief.",
        TRICKY,
        "four",
    )
    assert talk["turn_1_user"] == "'=1+1"  # guarded, as every exported text cell is
    assert "guarded against spreadsheet formulas" in summary
    other = rows["talk-2"]
    assert (other["turn_1_a"], other["turn_3_user"]) == ("7", "Thanks")
    assert (other["turn_1_b"], other["turn_3_a"], other["turn_3_b"]) == ("Eleven.", "", "")
    assert (rows["one"]["turn"], rows["one"]["turn_1_a"], rows["one"]["turn_2_user"]) == (
        "1",
        "Paris",
        "",
    )


@needs_shared
def test_a_round_trip_through_jsonl_adds_nothing(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    for data in (
        HH,
        DEMO / "demo_conversations.jsonl",
        DEMO / "demo_pairs.jsonl",
        write_jsonl(tmp_path / "talks.jsonl", [SHARED_HISTORY, TWO_CONVERSATIONS]),
    ):
        assert tiebreak("import", path, data).returncode == 0
    export(path, tmp_path / "out.jsonl")
    before = table_digest(path)
    again = tiebreak("import", path, tmp_path / "out.jsonl")
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip().endswith("nothing added; already in the project: 125 pairs")
    assert table_digest(path) == before
    # Into an empty project: the same pairs, keys and all.
    other = new_project(tmp_path, "other.tiebreak")
    assert tiebreak("import", other, tmp_path / "out.jsonl").returncode == 0
    keys = "SELECT pair_key, conversation_a, conversation_b, turn FROM pairs ORDER BY id"
    with open_project(path) as a, open_project(other) as b:
        assert list(a.conn.execute(keys)) == list(b.conn.execute(keys))


@needs_shared
def test_trl_export_gives_back_hh_rlhfs_chosen_and_rejected(tmp_path: Path) -> None:
    path = new_project(tmp_path)
    assert tiebreak("import", path, HH).returncode == 0
    assert tiebreak("import", path, DEMO / "demo_conversations.jsonl").returncode == 0
    # a reviewer's tie against the data set's A: a dispute, left out until adjudicated
    give(path, "#1", "pair-v2", "overall", Verdict.TIE)
    summary = export(path, tmp_path / "trl.jsonl", "--format", "trl")
    assert summary.endswith(
        "99 trl records, the reviewers' labels (rubric pair-v2, dimension overall, judge"
        " none); left out: 0 ties, 3 without a label, 1 open disputes, 0 broken"
    )
    records = HH.read_text(encoding="utf-8").splitlines()[1:]
    out = (tmp_path / "trl.jsonl").read_text(encoding="utf-8").splitlines()
    for line, given in zip(out, records, strict=True):
        got, hh = json.loads(line), json.loads(given)
        for side in ("chosen", "rejected"):
            whole = [(m["role"], m["content"]) for m in got["prompt"] + got[side]]
            expected = split_transcript(hh[side])
            assert whole == [(m.role, m.content) for m in expected[: len(whole)]]
            assert got[side][-1]["role"] == "assistant"


def test_openai_preference_needs_one_shared_history(tmp_path: Path) -> None:
    path = project_of(tmp_path, SHARED_HISTORY, TWO_CONVERSATIONS, SINGLE)
    for ref, verdict in (("talk-1", Verdict.B), ("talk-2", Verdict.A), ("one", Verdict.A)):
        give(path, ref, "pair-v2", "overall", verdict)
    summary = export(path, tmp_path / "o.jsonl", "--format", "openai-preference")
    assert summary.endswith(
        "2 openai-preference records, the reviewers' labels (rubric pair-v2, dimension"
        " overall, judge none); left out: 0 ties, 0 without a label, 0 open disputes, 0 broken,"
        " 1 not one shared history"
    )
    first, single = (json.loads(x) for x in (tmp_path / "o.jsonl").read_text().split("\n")[:-1])
    provenance = ("id", "pair", "source", "reviewers")
    assert (first["id"], first["source"]) == ("talk-1", "reviewers")
    assert {k: v for k, v in first.items() if k not in provenance} == {
        "input": {
            "messages": SHARED_HISTORY["conversation_a"][:4],
            "tools": [],
            "parallel_tool_calls": True,
        },
        "preferred_output": [{"role": "assistant", "content": "four"}],
        "non_preferred_output": [{"role": "assistant", "content": TRICKY}],
    }
    assert single["preferred_output"] == [{"role": "assistant", "content": "Paris"}]
    trl = export(path, tmp_path / "t.jsonl", "--format", "trl")
    assert trl.startswith(f"{tmp_path / 't.jsonl'}: 3 trl records")
    second = json.loads((tmp_path / "t.jsonl").read_text().split("\n")[1])
    assert second["prompt"] == TWO_CONVERSATIONS["conversation_a"][:1]  # shared: the question
    assert second["chosen"] == TWO_CONVERSATIONS["conversation_a"][1:4]  # A's, to turn 2
    assert second["rejected"] == TWO_CONVERSATIONS["conversation_b"][1:4]


def test_a_dimension_the_rubric_lacks_is_refused(tmp_path: Path) -> None:
    path = project_of(tmp_path, SINGLE)
    give(path, "one", "href-four", "precision", Verdict.A)
    run = tiebreak("export", path, tmp_path / "t.jsonl", "--format", "trl", "--dimension", "x")
    assert run.returncode == 1 and not (tmp_path / "t.jsonl").exists()
    assert run.stderr.strip() == (
        "tiebreak: error: rubric href-four has no dimension 'x' (its dimensions:"
        f" {', '.join(rubric_catalog.get('href-four').dimensions)})"
    )


def test_a_single_turn_round_trip_adds_nothing(tmp_path: Path) -> None:
    """An export's ``id`` (the row id here) is not taken for the pair's name when the
    file has ``external_id`` (before: every pair came back as a new one, named 1, 2, ...)."""
    path = new_project(tmp_path)
    assert tiebreak("import", path, DEMO / "demo_pairs.jsonl").returncode == 0
    export(path, tmp_path / "out.jsonl")
    before = table_digest(path)
    again = tiebreak("import", path, tmp_path / "out.jsonl")
    assert again.stdout.strip().endswith("nothing added; already in the project: 20 pairs")
    assert table_digest(path) == before
