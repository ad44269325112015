"""Import shapes (issue 19 item 3): the kinds of record one table lists, what `--format`
offers, the physical formats beside them, and who decides a pair's id. A file of votes
keyed by `question_id` (several per question, as MT-bench's and Arena's are) imports
every pair instead of stopping at the second vote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.domain.errors import ImportDataError
from desktop.services.importing import import_file
from tests.helpers import export_rows, new_project, tiebreak, write_jsonl

QUESTION = "Compose a travel blog post about a recent trip to Hawaii."
ANSWERS = {
    "alpaca-13b": "I went to Hawaii.",
    "gpt-3.5-turbo": "Aloha! My trip to Hawaii ...",
    "gpt-4": "Hawaii, a paradise ...",
    "vicuna-13b": "Aloha, fellow travellers ...",
}


def vote(model_a: str, model_b: str, judge: str, winner: str) -> dict[str, object]:
    """One person's vote on one question, flattened as people flatten MT-bench's human
    judgments to a table: the question's id, its text and both answers."""
    return {
        "question_id": 81,
        "question": QUESTION,
        "model_a": model_a,
        "model_b": model_b,
        "answer_a": ANSWERS[model_a],
        "answer_b": ANSWERS[model_b],
        "winner": winner,
        "judge": judge,
        "turn": 1,
    }


VOTES = [
    vote("alpaca-13b", "gpt-3.5-turbo", "author_2", "model_b"),
    vote("alpaca-13b", "gpt-3.5-turbo", "expert_3", "model_b"),  # a second vote, same pair
    vote("gpt-4", "vicuna-13b", "author_2", "tie"),  # same question, other models
    vote("gpt-3.5-turbo", "alpaca-13b", "author_0", "model_a"),  # the first pair swapped
]


def test_votes_sharing_a_question_id_are_pairs_not_a_clash(tmp_path: Path) -> None:
    """Before: 'line 3: id '81' is already used by line 1, which has a different
    response_a; nothing was imported'. A question's id names the question, which several
    pairs share: each pair is its texts and generators, and the id is kept."""
    project = new_project(tmp_path)
    data = write_jsonl(tmp_path / "votes.jsonl", VOTES)
    run = tiebreak("import", project, data)
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout.strip() == (
        f"{data}: 3 pairs added; 1 records repeat a pair read before them"
    )
    rows = export_rows(project, tmp_path / "out.csv")
    assert [(r["external_id"], r["model_a"], r["model_b"]) for r in rows] == [
        ("", "alpaca-13b", "gpt-3.5-turbo"),
        ("", "gpt-4", "vicuna-13b"),
        ("", "gpt-3.5-turbo", "alpaca-13b"),
    ]
    assert [json.loads(r["metadata"])["question_id"] for r in rows] == [81, 81, 81]
    again = tiebreak("import", project, data)
    assert again.stdout.strip() == f"{data}: nothing added; already in the project: 3 pairs"


def test_a_question_id_is_the_id_where_the_user_says_so(tmp_path: Path) -> None:
    """`--map external_id=question_id`: the user says each question has one pair; then a
    second pair on it is the clash it always was."""
    project = new_project(tmp_path)
    data = write_jsonl(tmp_path / "one.jsonl", VOTES[:2])
    with open_project(project) as store:
        report = import_file(store, data, mapping={"external_id": "question_id"})
        assert (report.added, report.duplicates) == (1, 1)
        assert find_pair(store, "81").model_b == "gpt-3.5-turbo"
        with pytest.raises(
            ImportDataError, match=r"two.jsonl line 1: id 81 is already used by pair #1"
        ):
            import_file(
                store,
                write_jsonl(tmp_path / "two.jsonl", VOTES[2:3]),
                mapping={"external_id": "question_id"},
            )


def test_an_id_column_still_names_the_pair(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    data = write_jsonl(tmp_path / "d.jsonl", [{**VOTES[0], "id": "v1"}, {**VOTES[2], "id": "v2"}])
    with open_project(project) as store:
        import_file(store, data)
        assert find_pair(store, "v2").model_a == "gpt-4"
        assert find_pair(store, "v1").metadata["question_id"] == 81


def test_format_offers_every_physical_format_and_every_shape() -> None:
    from desktop.adapters.formats.readers import FORMATS
    from desktop.domain.import_shapes import PLAIN, SHAPES

    names = [shape.name for shape in SHAPES]
    assert FORMATS == ("csv", "tsv", "jsonl", "json")
    assert names == [
        "alpaca-eval",
        "href",
        "votes",
        "judgebench",
        "fastchat-judgments",
        "fastchat",
        "arena-preference",
        "openai-preference",
        "hh-rlhf",
        "rewardbench",
        "trl",
        "messages",
        "pairs",
    ]
    assert SHAPES[-1] is PLAIN
    assert not set(names) & set(FORMATS)
    usage = tiebreak("import", "--help").stdout
    assert f"{{auto,csv,tsv,jsonl,json,{','.join(names)}}}" in usage


def test_format_pairs_keeps_a_preference_as_metadata(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    record = {"instruction": "i", "output_1": "a", "output_2": "b", "preference": 2}
    data = write_jsonl(tmp_path / "ann.jsonl", [record])
    with open_project(project) as store:
        report = import_file(store, data, fmt="pairs")
        assert (report.kind, report.added, report.judge_verdicts) == ("pairs", 1, 0)
        assert find_pair(store, "#1").metadata == {"preference": 2}
        # Named as the other shape, the same file gives the annotator's verdict too.
        again = import_file(store, data, fmt="alpaca-eval")
        assert (again.kind, again.added, again.judge_verdicts) == ("alpaca-eval", 0, 1)


def test_a_shape_named_with_format_reads_a_file_of_any_physical_format(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    data = tmp_path / "href.csv"
    data.write_text("instruction,output_1,output_2,annotations\ni,a,b,x\n", encoding="utf-8")
    with (
        open_project(project) as store,
        pytest.raises(
            ImportDataError,
            match=r"href.csv line 2: field 'annotations': annotations must be a list",
        ),
    ):
        import_file(store, data, fmt="href")


@pytest.mark.parametrize("name", ["pairs.tsv", "pairs.txt"])
def test_tsv_is_a_format_of_its_own(tmp_path: Path, name: str) -> None:
    """A tab-separated file whose header has a comma in a column name: by its suffix, or
    named with --format tsv whatever its name."""
    project = new_project(tmp_path)
    data = tmp_path / name
    data.write_text(
        "instruction\toutput_1\toutput_2\tnotes, free text\nQ, and more\ta,1\tb\tx\n",
        encoding="utf-8",
    )
    with open_project(project) as store:
        import_file(store, data, fmt="tsv" if name.endswith(".txt") else "auto")
        pair = find_pair(store, "#1")
        assert (pair.instruction, pair.response_a, pair.response_b) == ("Q, and more", "a,1", "b")
        assert pair.metadata == {"notes, free text": "x"}
