"""Import shapes (issue 19 item 3): a file of each kind of record the table lists is read as
that kind, detected or named with `--format`, and gives its pair and its verdict; what
`--format` offers, the physical formats beside them, and who decides a pair's id. A file
of votes keyed by `question_id` (several per question, as MT-bench's and Arena's are)
imports every pair instead of stopping at the second vote."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair, iter_pairs
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import ImportDataError
from desktop.domain.import_shapes import SHAPES, Shape
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


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


# One record of each shape as its source writes it: the question Q, answers a (by m1,
# where the shape names models) and b (by m2), and one verdict. FastChat's pairs come of a
# folder (fastchat_folder); a FastChat judgment file on its own is refused.
EXAMPLES: dict[str, list[dict[str, Any]]] = {
    "alpaca-eval": [
        {
            "instruction": "Q",
            **{"output_1": "a", "output_2": "b", "generator_1": "m1", "generator_2": "m2"},
            "preference": 2,
        }
    ],
    "href": [
        {
            "instruction": "Q",
            **{"output_1": "a", "output_2": "b", "generator_1": "m1", "generator_2": "m2"},
            "annotations": [2, {"annotator": "ann-2", "preference": 2}],
        }
    ],
    "votes": [
        {
            "question_id": 1,
            **{"model_a": "m1", "model_b": "m2", "turn": 1},
            "conversation_a": [user("Q"), assistant("a")],
            "conversation_b": [user("Q"), assistant("b")],
            **{"winner": "model_b", "judge": "expert_1"},
        }
    ],
    "judgebench": [
        {
            **{"pair_id": "j1", "question": "Q", "response_A": "a", "response_B": "b"},
            **{"label": "B>A", "source": "mmlu-pro"},
        }
    ],
    "fastchat-judgments": [
        {
            **{"question_id": 1, "model_1": "m1", "model_2": "m2", "turn": 1},
            **{"g1_winner": "model_2", "g2_winner": "model_2", "judge": ["gpt-4", "pair-v2"]},
        }
    ],
    "arena-preference": [
        {
            **{"id": 1, "model_a": "m1", "model_b": "m2", "prompt": json.dumps(["Q"])},
            **{"response_a": json.dumps(["a"]), "response_b": json.dumps(["b"])},
            **{"winner_model_a": 0, "winner_model_b": 1, "winner_tie": 0},
        }
    ],
    "openai-preference": [
        {
            "input": {"messages": [user("Q")]},
            "preferred_output": [assistant("a")],
            "non_preferred_output": [assistant("b")],
        }
    ],
    "hh-rlhf": [
        {"chosen": "\n\nHuman: Q\n\nAssistant: a", "rejected": "\n\nHuman: Q\n\nAssistant: b"}
    ],
    "rewardbench": [
        {
            **{"id": 1, "prompt": "Q", "chosen": "a", "rejected": "b"},
            **{"chosen_model": "m1", "rejected_model": "m2", "subset": "chat"},
        }
    ],
    "trl": [{"prompt": "Q", "chosen": "a", "rejected": "b"}],
    "messages": [
        {
            "messages_a": [user("Q"), assistant("a")],
            "messages_b": [user("Q"), assistant("b")],
            **{"model_a": "m1", "model_b": "m2"},
        }
    ],
    "pairs": [
        {"instruction": "Q", "response_a": "a", "response_b": "b", "model_a": "m1", "model_b": "m2"}
    ],
}
# The answer each example's verdict prefers, a judge's or people's (none: no verdict). A
# chosen/rejected shape puts the two sides as A and B by their content, so the verdict's
# letter depends on it; the answer it prefers does not.
PREFERRED = {
    "alpaca-eval": "b",
    "href": "b",
    "votes": "b",
    "judgebench": "b",
    "arena-preference": "b",
    "openai-preference": "a",
    "hh-rlhf": "a",
    "rewardbench": "a",
    "trl": "a",
}
# Shapes whose records name no models.
NO_MODELS = {"judgebench", "openai-preference", "hh-rlhf", "trl"}


def fastchat_folder(tmp_path: Path) -> Path:
    """FastChat's data/mt_bench layout at its smallest: one question, two models' answers."""
    folder = tmp_path / "mt_bench"
    (folder / "model_answer").mkdir(parents=True)
    write_jsonl(folder / "question.jsonl", [{"question_id": 1, "category": "x", "turns": ["Q"]}])
    for model, text in (("m1", "a"), ("m2", "b")):
        answer = {"question_id": 1, "model_id": model, "choices": [{"index": 0, "turns": [text]}]}
        write_jsonl(folder / "model_answer" / f"{model}.jsonl", [answer])
    return folder


def verdicts_given(store: ProjectStore) -> set[str]:
    """Every verdict stored, people's and judges'."""
    people = {row[0] for row in store.conn.execute("SELECT verdict FROM human_verdicts")}
    judges = store.conn.execute("SELECT verdicts FROM judge_results WHERE verdicts IS NOT NULL")
    return people | {v for (text,) in judges for v in json.loads(text).values()}


@pytest.mark.parametrize("fmt", ["auto", "named"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
def test_each_shape_imports_a_file_of_its_kind(tmp_path: Path, shape: Shape, fmt: str) -> None:
    """A file of each shape is read as that shape, detected or named with --format, and
    gives its pair and its verdict. A shape added to SHAPES needs an example here."""
    if shape.name == "fastchat":
        data = fastchat_folder(tmp_path)
    else:
        assert shape.name in EXAMPLES, f"add an example of the {shape.name!r} shape"
        data = write_jsonl(tmp_path / f"{shape.name}.jsonl", EXAMPLES[shape.name])
    project = new_project(tmp_path)
    with open_project(project) as store:
        if shape.name == "fastchat-judgments":
            with pytest.raises(ImportDataError, match="import the folder that holds question"):
                import_file(store, data, fmt="auto" if fmt == "auto" else shape.name)
            assert not list(iter_pairs(store))
            return
        report = import_file(store, data, fmt="auto" if fmt == "auto" else shape.name)
        assert (report.kind, report.added) == (shape.name, 1)
        (pair,) = iter_pairs(store)
        assert pair.instruction == "Q"
        assert {pair.response_a, pair.response_b} == {"a", "b"}
        if shape.name not in NO_MODELS:
            by_model = {pair.model_a: pair.response_a, pair.model_b: pair.response_b}
            assert by_model == {"m1": "a", "m2": "b"}
        shown = {"A": pair.response_a, "B": pair.response_b}
        preferred = {shown[verdict] for verdict in verdicts_given(store)}
        assert preferred == ({PREFERRED[shape.name]} if shape.name in PREFERRED else set())


def test_format_offers_every_physical_format_and_every_shape() -> None:
    """--format takes auto, every physical format and every shape by name, and no shape is
    named as a physical format is."""
    from desktop.adapters.formats.readers import FORMATS

    names = [shape.name for shape in SHAPES]
    assert {"csv", "tsv", "jsonl", "json"} <= set(FORMATS)
    assert not set(names) & set(FORMATS)
    assert set(EXAMPLES) | {"fastchat"} == set(names)  # no example of a shape that left
    usage = tiebreak("import", "--help").stdout
    assert f"{{auto,{','.join(FORMATS)},{','.join(names)}}}" in usage


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
