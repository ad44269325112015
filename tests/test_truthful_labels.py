"""What the reviewer did is what the project keeps (issue 30): a note outlives the verdict
given after it and comes back with undo; Enter is an accept, never the reviewer's own
judgement; a split between reviewers is a dispute until an adjudicator settles it; skip,
both bad and broken are kept as what they are; preference files hold people's labels, each
with where it came from. Each test drives the window's keys or the command line and reads
the exported file, as a user meets them."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.ui import dialogs
from desktop.ui.main_window import MainWindow
from tests.gui_helpers import judge_all, my_verdict, open_window, press
from tests.helpers import export_rows, tiebreak
from tests.openai_server import OpenAIServer

pytestmark = pytest.mark.usefixtures("qapp")
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier
RUBRIC = "href-four"  # the window's: precision, correctness, format, overall


def by_id(rows: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    return {r["external_id"]: r for r in rows}


def stats_json(project: Path, *options: str) -> dict:
    done = tiebreak("stats", project, "--rubric", RUBRIC, "--json", *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["rubrics"][0]


def dimension(figures: dict, name: str) -> dict:
    return next(d for d in figures["overall"]["dimensions"] if d["dimension"] == name)


def trl(project: Path, out: Path, *options: str) -> tuple[list[dict], str]:
    done = tiebreak("export", project, out, "--format", "trl", "--rubric", RUBRIC, *options)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in out.read_text().splitlines()], done.stdout


def override(project: Path, pair: str, dim: str, answer: str, *options: str) -> None:
    done = tiebreak("override", project, pair, dim, answer, "--rubric", RUBRIC, *options)
    assert done.returncode == 0, done.stderr


# ---- notes --------------------------------------------------------------------------------
def test_a_note_written_before_the_verdict_is_kept_and_undo_restores_exactly(
    qtbot, window: MainWindow, project: Path, tmp_path: Path
) -> None:
    note = window.display.verdicts.note
    press(qtbot, window, Qt.Key.Key_N)
    qtbot.keyClicks(note, "B misreads the question")
    qtbot.keyClick(note, Qt.Key.Key_Return)
    press(qtbot, window, Qt.Key.Key_B)  # the reason first, then the decision
    views = window.session.verdict_views()
    assert views.notes == {"precision": "B misreads the question"}
    assert note.text() == "B misreads the question"
    row = by_id(export_rows(project, tmp_path / "out.csv"))["p1"]
    assert (row["precision_human"], row["note"]) == ("B", "B misreads the question")

    press(qtbot, window, Qt.Key.Key_Z, CTRL)  # the verdict goes; the note written before stays
    views = window.session.verdict_views()
    assert views.mine == {} and views.notes == {"precision": "B misreads the question"}
    press(qtbot, window, Qt.Key.Key_Z, CTRL)  # then the note
    assert window.session.verdict_views().notes == {}
    assert note.text() == ""
    press(qtbot, window, Qt.Key.Key_Z, CTRL | SHIFT)
    press(qtbot, window, Qt.Key.Key_Z, CTRL | SHIFT)  # both back, exactly
    views = window.session.verdict_views()
    assert views.notes == {"precision": "B misreads the question"}
    assert views.mine["precision"].value == "B"
    assert views.my_rows["precision"].mode == "gui"


def test_override_without_note_keeps_the_note_and_an_empty_one_clears_it(
    project: Path, tmp_path: Path
) -> None:
    override(project, "p1", "overall", "A", "--note", "A cites the source")
    override(project, "p1", "overall", "B")  # changed her mind: the reason stays
    row = by_id(export_rows(project, tmp_path / "a.csv"))["p1"]
    assert (row["overall_human"], row["note"]) == ("B", "A cites the source")
    override(project, "p1", "overall", "B", "--note", "")
    assert by_id(export_rows(project, tmp_path / "b.csv"))["p1"]["note"] == ""


# ---- accepts ------------------------------------------------------------------------------
def test_enter_records_an_accept_which_figures_leave_out_unless_asked(
    qtbot, window: MainWindow, project: Path, tmp_path: Path
) -> None:
    press(qtbot, window, Qt.Key.Key_J, CTRL)
    qtbot.waitUntil(lambda: not window.judging.running, timeout=10_000)
    press(qtbot, window, Qt.Key.Key_Return)  # p1: the judge's four verdicts accepted
    row = by_id(export_rows(project, tmp_path / "out.csv"))["p1"]
    assert [row[f"{d}_mode"] for d in ("precision", "overall")] == ["accepted", "accepted"]
    assert row["precision_source"] == "accepted" and row["precision_human"] == "A"

    figures = stats_json(project)
    assert figures["overall"]["accepted_left_out"] == 4
    assert dimension(figures, "precision")["vs_human"]["n"] == 0  # none given by a person
    text = tiebreak("stats", project, "--rubric", RUBRIC).stdout
    assert "4 accepted verdicts left out" in text
    included = stats_json(project, "--include-accepted")
    assert dimension(included, "precision")["vs_human"]["n"] == 1
    assert included["overall"]["accepted_left_out"] == 0


# ---- disputes -----------------------------------------------------------------------------
def test_a_colleagues_opposite_verdict_is_a_dispute_until_adjudicated(
    qtbot, project: Path, server: OpenAIServer, tmp_path: Path
) -> None:
    colleague = tmp_path / "bob.tiebreak"
    shutil.copy(project, colleague)
    override(project, "p1", "overall", "A", "--reviewer", "ada")
    override(colleague, "p1", "overall", "B", "--reviewer", "bob", "--note", "B is shorter")
    assert tiebreak("merge", project, colleague).returncode == 0

    row = by_id(export_rows(project, tmp_path / "out.csv"))["p1"]
    assert (row["overall_human"], row["overall_source"], row["overall_final"]) == (
        "",
        "dispute",
        "",
    )
    figures = stats_json(project)
    assert figures["overall"]["disputed"] == 1
    assert dimension(figures, "overall")["human_win"]["n"] == 0  # no label counted
    assert "1 open disputes" in tiebreak("stats", project, "--rubric", RUBRIC).stdout
    records, said = trl(project, tmp_path / "before.jsonl")
    assert records == [] and "1 open disputes" in said

    window = open_window(qtbot, project, server)
    try:
        press(qtbot, window, Qt.Key.Key_Q)  # the dispute is first in the queue
        assert window.session.current.external_id == "p1"
        assert window.display.verdicts.shown("overall").final == "dispute"
        press(qtbot, window, Qt.Key.Key_V)
        dialog = window.editing.adjudication
        qtbot.waitUntil(dialog.isActiveWindow)  # its keys act on the dimension selected
        shown = dialog.row_texts()
        assert any(r[:3] == ["overall", "bob", "B"] and r[5] == "B is shorter" for r in shown)
        assert any(r[:3] == ["overall", "ada", "A"] and r[3] == "cli" for r in shown)
        assert any(r[0] == "overall" and r[2] == "dispute: no majority" for r in shown)
        dialog.select("overall")
        qtbot.keyClick(dialog.table, Qt.Key.Key_A)  # settled: A
        qtbot.waitUntil(lambda: window.display.verdicts.shown("overall").final.startswith("A"))
        assert window.display.verdicts.shown("overall").final == "A (adjudicated)"
        assert any(
            r[0] == "overall" and r[2] == "label A (adjudicated)" for r in dialog.row_texts()
        )
        dialog.close()
    finally:
        window.context.runner.shutdown()

    row = by_id(export_rows(project, tmp_path / "after.csv"))["p1"]
    assert (row["overall_human"], row["overall_source"], row["overall_mode"]) == (
        "A",
        "adjudicated",
        "adjudicated",
    )
    assert row["overall_reviewer"] == "ada"
    assert stats_json(project)["overall"]["disputed"] == 0
    records, _ = trl(project, tmp_path / "after.jsonl")
    assert [(r["id"], r["source"]) for r in records] == [("p1", "adjudicated")]
    assert records[0]["reviewers"][0]["mode"] == "adjudicated"


def test_a_dispute_settled_on_the_command_line(project: Path, tmp_path: Path) -> None:
    override(project, "p2", "overall", "A", "--reviewer", "ada")
    override(project, "p2", "overall", "B", "--reviewer", "bob")
    override(project, "p2", "overall", "B", "--reviewer", "carol", "--adjudicate")
    row = by_id(export_rows(project, tmp_path / "out.csv"))["p2"]
    assert (row["overall_human"], row["overall_source"]) == ("B", "adjudicated")


# ---- preference files ---------------------------------------------------------------------
def test_the_trl_file_holds_the_reviewers_labels_with_their_provenance(
    qtbot, window: MainWindow, project: Path, tmp_path: Path
) -> None:
    judge_all(qtbot, window)  # the judge: overall A on all six pairs
    press(qtbot, window, Qt.Key.Key_J)  # p2
    press(qtbot, window, Qt.Key.Key_Return)  # p2: accepted
    override(project, "p3", "overall", "B", "--reviewer", "ada")

    records, said = trl(project, tmp_path / "people.jsonl")
    assert [(r["id"], r["source"]) for r in records] == [("p3", "reviewers")]
    assert records[0]["reviewers"] == [
        {
            "reviewer": "ada",
            "verdict": "B",
            "mode": "cli",
            "time": records[0]["reviewers"][0]["time"],
        }
    ]
    assert "Probably 7." in json.dumps(records[0]["chosen"])  # B, as ada said
    assert "1 only accepted from the judge" in said and "4 judged only" in said

    records, said = trl(project, tmp_path / "all.jsonl", "--include-judge")
    sources = {r["id"]: r["source"] for r in records}
    assert sources == {"p1": "judge", "p2": "judge", "p3": "reviewers", "p4": "judge"} | {
        "p5": "judge",
        "p6": "judge",
    }
    judged = next(r for r in records if r["id"] == "p1")
    assert judged["judge_model"] == "test-model" and "judge_confidence" in judged
    records, said = trl(
        project, tmp_path / "sure.jsonl", "--include-judge", "--min-confidence", "0.9"
    )
    assert [r["id"] for r in records] == ["p3"]  # no logprobs: no confidence to clear it
    assert "5 judge verdicts under the confidence floor" in said
    records, _ = trl(project, tmp_path / "acc.jsonl", "--include-accepted")
    assert [(r["id"], r["source"]) for r in records] == [("p2", "accepted"), ("p3", "reviewers")]

    # Read back, a label the judge gave (or that only accepted the judge's) is no one's
    # verdict, and where a label came from is the record's metadata, not its source text.
    for name in ("all.jsonl", "acc.jsonl"):
        again = tmp_path / f"again-{name}.tiebreak"
        assert tiebreak("new", again).returncode == 0
        done = tiebreak("import", again, tmp_path / name)
        assert done.returncode == 0, done.stderr
        with sqlite3.connect(again) as conn:
            people = conn.execute(
                "SELECT p.external_id, h.reviewer FROM human_verdicts h"
                " JOIN pairs p ON p.id = h.pair_id"
            ).fetchall()
            sources = {s for (s,) in conn.execute("SELECT source FROM pairs")}
            kept = [json.loads(m)["source"] for (m,) in conn.execute("SELECT metadata FROM pairs")]
        assert people == [("p3", "trl")], name  # ada's label alone
        assert sources == {None}
        assert "reviewers" in kept and set(kept) <= {"judge", "accepted", "reviewers"}


# ---- skip, both bad, broken ---------------------------------------------------------------
def test_both_bad_skip_and_broken_have_keys_and_export_as_what_they_are(
    qtbot, window: MainWindow, project: Path, tmp_path: Path, monkeypatch
) -> None:
    press(qtbot, window, Qt.Key.Key_X)  # p1 precision: both bad
    assert window.display.verdicts.shown("precision").mine == "both bad"
    press(qtbot, window, Qt.Key.Key_J)
    press(qtbot, window, Qt.Key.Key_W)  # p2: decide later
    assert window.session.current.external_id == "p3"
    monkeypatch.setattr(dialogs, "ask_text", lambda parent, title, question: "")
    press(qtbot, window, Qt.Key.Key_B, CTRL | SHIFT)  # no reason: not marked
    assert not window.session.verdict_views().broken
    reason = "response B is cut off mid-sentence"
    monkeypatch.setattr(dialogs, "ask_text", lambda parent, title, question: reason)
    press(qtbot, window, Qt.Key.Key_B, CTRL | SHIFT)
    assert window.session.verdict_views().broken
    assert window.display.verdicts.shown("overall").final == "broken"

    press(qtbot, window, Qt.Key.Key_U)  # past the broken p3 to p4; p2 (skipped) waits
    assert window.session.current.external_id == "p4"
    for key in (Qt.Key.Key_A, Qt.Key.Key_A, Qt.Key.Key_A, Qt.Key.Key_A):
        press(qtbot, window, key)  # p4 reviewed
    for expected in ("p5", "p6", "p2"):  # the skipped pair once no other is left
        if expected != "p5":
            for key in (Qt.Key.Key_B,) * 4:
                press(qtbot, window, key)
        press(qtbot, window, Qt.Key.Key_U)
        assert window.session.current.external_id == expected

    rows = by_id(export_rows(project, tmp_path / "out.csv"))
    assert rows["p1"]["precision_human"] == "bothbad"
    assert rows["p1"]["precision_source"] == "reviewers"
    assert [rows["p3"][f"{d}_source"] for d in ("precision", "overall")] == ["broken"] * 2
    assert rows["p3"]["overall_human"] == "" and rows["p3"]["note"] == reason
    assert rows["p2"]["overall_human"] == ""  # a skip is no verdict
    with open_rows(project, tmp_path / "out.jsonl") as lines:
        reviews = {r["external_id"]: r["reviews"] for r in lines}
    assert {r["mark"] for r in reviews["p2"]} == {"skip"}
    assert reviews["p1"][0]["mark"] == "bothbad" and reviews["p1"][0]["verdict"] == "tie"

    figures = stats_json(project)
    assert figures["overall"]["broken"] == 1 and figures["overall"]["pairs"] == 5
    assert "1 pairs marked broken" in tiebreak("stats", project, "--rubric", RUBRIC).stdout

    press(qtbot, window, Qt.Key.Key_Z, CTRL)  # the last edit, undone where it was made
    assert window.session.current.external_id == "p6"
    assert my_verdict(window.session, "overall") is None
    assert my_verdict(window.session, "format").value == "B"


class open_rows:
    """A JSONL export of the project, read back as records."""

    def __init__(self, project: Path, out: Path) -> None:
        done = tiebreak("export", project, out, "--rubric", RUBRIC)
        assert done.returncode == 0, done.stderr
        self.lines = [json.loads(line) for line in out.read_text().splitlines()]

    def __enter__(self) -> list[dict]:
        return self.lines

    def __exit__(self, *exc: object) -> None:
        return None


def test_a_broken_pair_needs_its_reason_on_the_command_line(project: Path) -> None:
    done = tiebreak("override", project, "p1", "overall", "broken", "--rubric", RUBRIC)
    assert done.returncode != 0 and "reason" in done.stderr and "Traceback" not in done.stderr
    override(project, "p1", "overall", "broken", "--note", "the prompt is missing")
    rows = by_id(export_rows(project, project.parent / "out.csv"))
    assert rows["p1"]["overall_source"] == "broken"
    assert rows["p1"]["precision_source"] == "broken"  # the whole pair is out
    assert rows["p1"]["note"] == "the prompt is missing"


# ---- another rubric's reviewers as the reference ------------------------------------------
def test_another_rubrics_reviewers_are_the_reference_only_when_chosen(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from desktop.adapters.profiles_file import save_profile
    from desktop.cli.main import main
    from desktop.domain.profiles import ModelProfile

    override(project, "p1", "overall", "B", "--reviewer", "ada")  # under href-four
    override(project, "p2", "overall", "A", "--reviewer", "ada")
    with OpenAIServer(answer="B") as server:
        save_profile(ModelProfile(name="t", model="m", base_url=server.base_url, needs_key=False))
        args = ["judge", str(project), "--rubric", "href-overall", "--profile", "t"]
        assert main([*args, "--one-order", "--limit", "2"]) == 0
    capsys.readouterr()
    alone = stats_json_of(project, "href-overall")
    assert dimension(alone, "overall")["vs_human"]["n"] == 0  # nobody reviewed href-overall
    chosen = stats_json_of(project, "href-overall", "--reference-rubric", RUBRIC)
    assert chosen["reference_rubric"] == RUBRIC
    assert dimension(chosen, "overall")["vs_human"]["n"] == 2
    assert dimension(chosen, "overall")["vs_human"]["agreement"] == 0.5  # p1 B = B, p2 A ≠ B
    text = tiebreak("stats", project, "--rubric", "href-overall", "--reference-rubric", RUBRIC)
    assert "the reviewers of rubric href-four" in text.stdout
    wrong = tiebreak("stats", project, "--rubric", "href-overall", "--reference-rubric", "nope")
    assert wrong.returncode == 1 and "nope" in wrong.stderr and "Traceback" not in wrong.stderr


def stats_json_of(project: Path, rubric: str, *options: str) -> dict:
    done = tiebreak("stats", project, "--rubric", rubric, "--json", *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["rubrics"][0]


def test_an_arena_both_bad_vote_stays_both_bad(tmp_path: Path) -> None:
    from tests.helpers import new_project, write_jsonl

    def talk(answer: str) -> list[dict]:
        return [
            {"role": "user", "content": "Name a prime."},
            {"role": "assistant", "content": answer},
        ]

    votes = write_jsonl(
        tmp_path / "arena.jsonl",
        [
            {
                "question_id": "q1",
                "model_a": "m1",
                "model_b": "m2",
                "winner": "tie (bothbad)",
                "judge": "arena_user_1",
                "conversation_a": talk("Nine."),
                "conversation_b": talk("Fifteen."),
            },
            {
                "question_id": "q2",
                "model_a": "m1",
                "model_b": "m2",
                "winner": "tie",
                "judge": "arena_user_1",
                "conversation_a": talk("Two."),
                "conversation_b": talk("Three."),
            },
        ],
    )
    project = new_project(tmp_path)
    done = tiebreak("import", project, votes)
    assert done.returncode == 0, done.stderr
    rows = export_rows(project, tmp_path / "out.csv")
    assert [r["overall_human"] for r in rows] == ["bothbad", "tie"]
