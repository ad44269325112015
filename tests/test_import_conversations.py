"""Importing conversations from the data sets people use: each shape found by itself and
named with --format, its verdicts kept, a re-import adding nothing, and bad input refused
in one line naming file, line and field with the project unchanged."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import iter_pairs
from desktop.domain.import_shapes.hh_rlhf import split_transcript, transcript
from desktop.services.importing import import_file
from tests.helpers import new_project, table_digest, tiebreak, write_jsonl

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
HH = SHARED / "hh_rlhf" / "harmless-base-test-sample100.jsonl"
MT_BENCH = SHARED / "mt_bench"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/data is absent")


def msgs(*turns: str) -> list[dict[str, str]]:
    """user, assistant, user, assistant ... as OpenAI message lists."""
    return [
        {"role": "user" if n % 2 == 0 else "assistant", "content": text}
        for n, text in enumerate(turns)
    ]


def pairs_of(project: Path) -> list[Any]:
    with open_project(project, readonly=True) as store:
        return list(iter_pairs(store))


def human_rows(project: Path) -> list[tuple[Any, ...]]:
    with open_project(project, readonly=True) as store:
        return store.conn.execute(
            "SELECT pair_id, rubric_name, dimension, verdict, reviewer, note, mode"
            " FROM human_verdicts ORDER BY id"
        ).fetchall()


def judge_rows(project: Path) -> list[tuple[Any, ...]]:
    with open_project(project, readonly=True) as store:
        return store.conn.execute(
            "SELECT pair_id, rubric_name, judge_model, ord, status, verdicts, raw_completion"
            " FROM judge_results ORDER BY id"
        ).fetchall()


def refused(project: Path, data: Path, says: str, *options: str) -> None:
    """The import stops in one line naming the place, and the project is unchanged."""
    before = table_digest(project)
    run = tiebreak("import", project, data, *options)
    assert run.returncode == 1, run.stdout
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
    assert says in run.stderr, run.stderr
    assert table_digest(project) == before


# ---------------------------------------------------------------- HH-RLHF


@needs_shared
def test_hh_rlhf_transcripts_split_into_messages_with_nothing_lost() -> None:
    records = [json.loads(line) for line in HH.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 100
    for record in records:
        for side in ("chosen", "rejected"):
            messages = split_transcript(record[side])
            assert transcript(messages) == record[side]  # byte for byte
            assert {m.role for m in messages} <= {"user", "assistant"}


@needs_shared
def test_hh_rlhf_imports_with_its_preference_as_a_reviewers_verdict(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    run = tiebreak("import", project, HH)
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout.strip() == f"{HH}: 100 pairs added, 100 human verdicts added"
    records = [json.loads(line) for line in HH.read_text(encoding="utf-8").splitlines()]
    pairs = pairs_of(project)
    verdicts = {row[0]: row for row in human_rows(project)}
    sides = []
    for record, pair in zip(records, pairs, strict=True):
        a, b = pair.conversations()
        chosen = split_transcript(record["chosen"])
        verdict = verdicts[pair.id]
        assert verdict[1:] == ("pair-v2", "overall", verdict[3], "hh-rlhf", None, "imported")
        # The verdict names the side that holds the chosen transcript, whichever it is.
        assert (a if verdict[3] == "A" else b) == chosen
        assert transcript(a if verdict[3] == "A" else b) == record["chosen"]
        sides.append(verdict[3])
    assert 30 < sides.count("A") < 70  # the preferred answer is not always A
    # Record 37 (line 2037 of the original) parts at answer 5 and has one more answer after.
    chosen_side = pairs[36].conversations()[sides[36] == "B"]
    assert pairs[36].turn == 5 and len(chosen_side) == 11 and chosen_side[-2].role == "assistant"
    again = tiebreak("import", project, HH, "--format", "hh-rlhf")
    assert again.stdout.strip().endswith(
        "nothing added; already in the project: 100 pairs, 100 human verdicts"
    )


def test_a_transcript_that_does_not_start_with_a_turn_is_refused(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    data = write_jsonl(
        tmp_path / "hh.jsonl",
        [
            {
                "chosen": "\n\nHuman: hi\n\nAssistant: hello",
                "rejected": "\n\nHuman: hi\n\nAssistant: go",
            },
            {"chosen": "\n\nHuman: hi\n\nAssistant: hello", "rejected": "Human: hi"},
        ],
    )
    refused(project, data, f"{data} line 2: field 'rejected': does not start with")


# ---------------------------------------------------------------- MT-bench / Arena votes


def vote(judge: Any, winner: str, turn: int = 2, **changes: Any) -> dict[str, Any]:
    """A record of lmsys/mt_bench_human_judgments (the hub's format, as FastChat's
    compute_agreement.py reads it): both whole two-turn conversations and the turn voted."""
    record = {
        "question_id": 81,
        "model_a": "alpaca-13b",
        "model_b": "gpt-3.5-turbo",
        "winner": winner,
        "judge": judge,
        "conversation_a": msgs("Write a blog post.", "I went.", "Now in 4 lines.", "Went, saw."),
        "conversation_b": msgs("Write a blog post.", "Aloha!", "Now in 4 lines.", "Sun, sea."),
        "turn": turn,
    }
    return {**record, **changes}


def test_several_votes_on_one_pair_are_several_reviewers(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    data = write_jsonl(
        tmp_path / "human.jsonl",
        [
            vote("expert_3", "model_b"),
            vote("author_0", "tie (bothbad)"),
            vote("expert_3", "model_a"),  # the same person again: a second vote, kept apart
            vote(["gpt-4", "pair-v2-multi-turn"], "tie (inconsistent)"),
            vote("expert_3", "model_a", turn=1),  # turn 1 of the same chats: another pair
        ],
    )
    run = tiebreak("import", project, data)
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout.strip() == (
        f"{data}: 2 pairs added, 1 annotator verdicts added, 4 human verdicts added;"
        " 3 records repeat a pair read before them"
    )
    pairs = pairs_of(project)
    assert [(p.turn, p.instruction, p.response_a, p.response_b) for p in pairs] == [
        (2, "Now in 4 lines.", "Went, saw.", "Sun, sea."),
        (1, "Write a blog post.", "I went.", "Aloha!"),
    ]
    assert pairs[0].metadata == {"question_id": 81}
    assert [row[3:6] for row in human_rows(project)] == [
        ("B", "expert_3", None),
        ("tie", "author_0", "tie (bothbad)"),
        ("A", "expert_3 (vote 2)", None),
        ("A", "expert_3", None),
    ]
    [answer] = judge_rows(project)
    assert answer[1:6] == ("pair-v2", "gpt-4", "AB", "ok", '{"overall": "tie"}')
    assert json.loads(answer[6]) == {
        "judge": ["gpt-4", "pair-v2-multi-turn"],
        "winner": "tie (inconsistent)",
    }
    before = table_digest(project)
    again = tiebreak("import", project, data, "--format", "votes")
    assert "nothing added" in again.stdout and table_digest(project) == before


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            {"conversation_b": "not a list"},
            "field 'conversation_b': is text that is not a JSON list",
        ),
        (
            {"conversation_a": {"role": "user"}},
            "field 'conversation_a': must be a list of messages",
        ),
        (
            {
                "conversation_a": [
                    {"role": "human", "content": "hi"},
                    {"role": "assistant", "content": "x"},
                ]
            },
            "field 'conversation_a': message 1 has role 'human'",
        ),
        (
            {"conversation_b": msgs("Write a blog post.", "Aloha!", "Something else.", "Sun.")},
            "field 'conversation_b': user turn 2 differs between A and B",
        ),
        ({"turn": 3}, "field 'turn': 3 is beyond the conversation: A has 2 assistant turns"),
        ({"winner": "model_c"}, "field 'winner': 'model_c' is not one of"),
    ],
)
def test_a_bad_vote_is_refused_naming_file_line_and_field(
    tmp_path: Path, change: dict[str, Any], says: str
) -> None:
    project = new_project(tmp_path)
    data = write_jsonl(
        tmp_path / "votes.jsonl",
        [vote("expert_1", "model_a"), {**vote("expert_2", "tie"), **change}],
    )
    refused(project, data, f"{data} line 2: {says}")


def test_arena_votes_keep_their_battle_as_metadata(tmp_path: Path) -> None:
    """lmsys/chatbot_arena_conversations: one battle, a shared first turn, the user's id."""
    project = new_project(tmp_path)
    battle = {
        "question_id": "58210e39b3fd4441a2bd4a518bb44c2d",
        "model_a": "chatglm-6b",
        "model_b": "koala-13b",
        "winner": "model_b",
        "judge": "arena_user_973",
        "conversation_a": msgs("What is the difference between OpenCL and CUDA?", "OpenCL is ..."),
        "conversation_b": msgs("What is the difference between OpenCL and CUDA?", "Both are ..."),
        "turn": 1,
        "anony": True,
        "language": "English",
        "tstamp": 1682351591.1322,
    }
    data = write_jsonl(tmp_path / "arena.jsonl", [battle])
    with open_project(project) as store:
        report = import_file(store, data)
    assert (report.kind, report.added, report.human_verdicts) == ("votes", 1, 1)
    [pair] = pairs_of(project)
    assert pair.turn is None  # one request, one answer: a single-turn pair
    assert pair.metadata == {
        "question_id": battle["question_id"],
        "anony": True,
        "language": "English",
        "tstamp": 1682351591.1322,
    }
    assert human_rows(project)[0][3:5] == ("B", "arena_user_973")


# ---------------------------------------------------------------- FastChat's own files


def fastchat_folder(tmp_path: Path, judgments: list[dict[str, Any]] | None = None) -> Path:
    """FastChat's data/mt_bench layout: the shared questions and GPT-4 references, three
    models' answers in FastChat's answer format (gen_model_answer.py), and pairwise
    judgments as common.play_a_match_pair writes them."""
    folder = tmp_path / "mt_bench"
    (folder / "model_answer").mkdir(parents=True)
    shutil.copy(MT_BENCH / "question.jsonl", folder / "question.jsonl")
    (folder / "reference_answer").mkdir()
    shutil.copy(
        MT_BENCH / "reference_answer_gpt-4.jsonl", folder / "reference_answer" / "gpt-4.jsonl"
    )
    questions = [json.loads(line) for line in (folder / "question.jsonl").open(encoding="utf-8")]
    for model in ("vicuna-13b-v1.3", "alpaca-13b", "gpt-3.5-turbo"):
        write_jsonl(
            folder / "model_answer" / f"{model}.jsonl",
            [
                {
                    "question_id": q["question_id"],
                    "answer_id": f"{model}-{q['question_id']}",
                    "model_id": model,
                    "choices": [
                        {"index": 0, "turns": [f"{model} on {t[:20]}" for t in q["turns"]]}
                    ],
                    "tstamp": 1687221890.0,
                }
                for q in questions
            ],
        )
    if judgments is not None:
        (folder / "model_judgment").mkdir()
        write_jsonl(folder / "model_judgment" / "gpt-4_pair.jsonl", judgments)
    return folder


def judgment(qid: int, model_1: str, model_2: str, g1: str, g2: str, turn: int) -> dict[str, Any]:
    prompt = "pair-v2" if turn == 1 else "pair-v2-multi-turn"
    return {
        "question_id": qid,
        "model_1": model_1,
        "model_2": model_2,
        "g1_winner": g1,
        "g2_winner": g2,
        "judge": ["gpt-4", prompt],
        "g1_user_prompt": "[User Question] ...",
        "g1_judgment": f"... so [[{ {'model_1': 'A', 'model_2': 'B'}.get(g1, 'C') }]]",
        "g2_user_prompt": "[User Question] ...",
        "g2_judgment": "I cannot decide." if g2 == "error" else "... [[A]]",
        "turn": turn,
        "tstamp": 1687222000.0,
    }


@needs_shared
def test_a_fastchat_folder_pairs_every_two_models_per_question_and_turn(tmp_path: Path) -> None:
    folder = fastchat_folder(
        tmp_path,
        [
            judgment(81, "vicuna-13b-v1.3", "alpaca-13b", "model_1", "model_1", 1),
            judgment(111, "alpaca-13b", "gpt-3.5-turbo", "model_2", "error", 2),
        ],
    )
    project = new_project(tmp_path)
    run = tiebreak("import", project, folder)
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout.strip() == f"{folder}: 480 pairs added, 4 annotator verdicts added"
    pairs = pairs_of(project)
    assert {(p.model_a, p.model_b) for p in pairs} == {
        ("alpaca-13b", "gpt-3.5-turbo"),
        ("alpaca-13b", "vicuna-13b-v1.3"),
        ("gpt-3.5-turbo", "vicuna-13b-v1.3"),
    }
    by_place = {(p.metadata["question_id"], p.turn, p.model_a, p.model_b): p for p in pairs}
    math = by_place[(111, 2, "alpaca-13b", "gpt-3.5-turbo")]
    refs = [json.loads(line) for line in (MT_BENCH / "reference_answer_gpt-4.jsonl").open()]
    ref_111 = next(r for r in refs if r["question_id"] == 111)["choices"][0]["turns"]
    assert math.reference == ref_111[1] and math.metadata["reference_turns"] == ref_111
    assert math.category == "math" and len(math.conversations()[0]) == 4
    assert (
        math.instruction
        == json.loads((MT_BENCH / "question.jsonl").open().readlines()[30])["turns"][1]
    )
    answers = judge_rows(project)
    first = by_place[(81, 1, "alpaca-13b", "vicuna-13b-v1.3")].id  # vicuna was model_1: B
    assert [(a[0], a[2], a[3], a[4], a[5]) for a in answers] == [
        (first, "gpt-4", "BA", "ok", '{"overall": "B"}'),
        (first, "gpt-4", "AB", "ok", '{"overall": "B"}'),
        (math.id, "gpt-4", "AB", "ok", '{"overall": "B"}'),
        (math.id, "gpt-4", "BA", "parse-failure", None),
    ]
    assert answers[3][6] == "I cannot decide."  # the unread judgment is kept
    assert "nothing added" in tiebreak("import", project, folder).stdout


@needs_shared
def test_a_fastchat_folder_pairs_each_model_with_a_baseline(tmp_path: Path) -> None:
    folder = fastchat_folder(tmp_path)
    project = new_project(tmp_path)
    with open_project(project) as store:
        report = import_file(store, folder, pair_with="gpt-3.5-turbo")
    assert report.added == 80 * 2 * 2
    assert {p.model_a for p in pairs_of(project)} == {"gpt-3.5-turbo"}
    refused(
        project,
        folder,
        "--pair-with claude-v1: no answers from that model",
        "--pair-with",
        "claude-v1",
    )


@needs_shared
def test_a_fastchat_judgment_without_its_pair_is_refused(tmp_path: Path) -> None:
    folder = fastchat_folder(tmp_path, [judgment(81, "gpt-4", "alpaca-13b", "tie", "tie", 1)])
    project = new_project(tmp_path)
    place = folder / "model_judgment" / "gpt-4_pair.jsonl"
    refused(project, folder, f"{place} line 1: a judgment of alpaca-13b and gpt-4 on question 81")
    refused(project, place, f"{place} line 1: a FastChat judgment names its pair by question")


# ---------------------------------------------------------------- preference data sets


def test_kaggle_arena_rows_are_two_conversations_and_a_vote(tmp_path: Path) -> None:
    path = tmp_path / "train.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            [
                "id",
                "model_a",
                "model_b",
                "prompt",
                "response_a",
                "response_b",
                "winner_model_a",
                "winner_model_b",
                "winner_tie",
            ]
        )
        writer.writerow(
            [
                "30192",
                "gpt-4-1106-preview",
                "gpt-4-0613",
                json.dumps(["Is it morally right?"]),
                json.dumps(["It is a complex question."]),
                json.dumps(["No."]),
                1,
                0,
                0,
            ]
        )
        writer.writerow(
            [
                "53567",
                "koala-13b",
                "gpt-4-0613",
                json.dumps(["Hi", "Explain tokens"]),
                json.dumps(["Hello!", "Tokens are ..."]),
                json.dumps(["Hi!", "A token ..."]),
                0,
                0,
                1,
            ]
        )
    project = new_project(tmp_path)
    run = tiebreak("import", project, path)
    assert run.stdout.strip() == f"{path}: 2 pairs added, 2 human verdicts added"
    first, second = pairs_of(project)
    assert (first.external_id, first.turn, second.turn, second.instruction) == (
        "30192",
        None,
        2,
        "Explain tokens",
    )
    assert [row[3:5] for row in human_rows(project)] == [("A", "arena"), ("tie", "arena")]
    bad = tmp_path / "bad.csv"
    bad.write_text(path.read_text(encoding="utf-8").replace(",1,0,0", ",1,1,0"), encoding="utf-8")
    refused(project, bad, f"{bad} line 2: field 'winner_model_a': winner_model_a, winner_model_b")


def test_trl_records_in_every_form(tmp_path: Path) -> None:
    rows = [
        {"prompt": "The sky is", "chosen": " blue.", "rejected": " green."},  # standard
        {  # conversational
            "prompt": [{"role": "user", "content": "What color is the sky?"}],
            "chosen": [{"role": "assistant", "content": "It is blue."}],
            "rejected": [{"role": "assistant", "content": "It is green."}],
        },
        {  # implicit prompt: whole conversations, parting at the second answer
            "chosen": msgs("Hi", "Hello!", "Sky colour?", "Blue."),
            "rejected": msgs("Hi", "Hello!", "Sky colour?", "Green."),
        },
    ]
    project = new_project(tmp_path)
    data = write_jsonl(tmp_path / "trl.jsonl", rows)
    with open_project(project) as store:
        report = import_file(store, data)
    assert (report.kind, report.added, report.human_verdicts) == ("trl", 3, 3)
    pairs, verdicts = pairs_of(project), human_rows(project)
    chosen = [" blue.", "It is blue.", "Blue."]
    for pair, verdict, text in zip(pairs, verdicts, chosen, strict=True):
        assert (pair.response_a if verdict[3] == "A" else pair.response_b) == text
        assert verdict[4] == "trl"
    assert [p.turn for p in pairs] == [None, None, 2]
    assert pairs[2].conversations()[0][:3] == pairs[2].conversations()[1][:3]


def test_a_table_of_instruction_chosen_and_rejected_is_a_trl_file(tmp_path: Path) -> None:
    """Such a CSV was read as plain pairs, chosen always A; now as preferences (the same
    text as TRL's standard form gives the same pair), and `--format pairs` reads it as
    before."""
    path = tmp_path / "prefs.csv"
    path.write_text("instruction,chosen,rejected\nThe sky is, blue., green.\n", encoding="utf-8")
    project = new_project(tmp_path)
    run = tiebreak("import", project, path)
    assert run.stdout.strip() == f"{path}: 1 pairs added, 1 human verdicts added"
    trl = write_jsonl(
        tmp_path / "trl.jsonl",
        [{"prompt": "The sky is", "chosen": " blue.", "rejected": " green."}],
    )
    again = tiebreak("import", project, trl)
    assert "nothing added" in again.stdout
    [oriented] = pairs_of(project)
    assert (oriented.response_a, oriented.response_b) == (" green.", " blue.")  # chosen is B
    plain = tiebreak("import", project, path, "--format", "pairs")
    assert plain.stdout.strip() == f"{path}: 1 pairs added"
    as_before = pairs_of(project)[1]
    assert (as_before.response_a, as_before.response_b) == (" blue.", " green.")


def test_openai_preference_records(tmp_path: Path) -> None:
    record = {
        "input": {
            "messages": [
                {"role": "system", "content": "Be brief."},
                {
                    "role": "user",
                    "content": "Hello, can you tell me how cold San Francisco is today?",
                },
            ],
            "tools": [],
            "parallel_tool_calls": True,
        },
        "preferred_output": [
            {"role": "assistant", "content": "Today in San Francisco, it is 56°F."}
        ],
        "non_preferred_output": [{"role": "assistant", "content": "It is not that cold."}],
    }
    project = new_project(tmp_path)
    data = write_jsonl(tmp_path / "prefs.jsonl", [record])
    run = tiebreak("import", project, data)
    assert run.stdout.strip() == f"{data}: 1 pairs added, 1 human verdicts added"
    [pair] = pairs_of(project)
    assert pair.turn == 1 and pair.conversations()[0][0].role == "system"
    assert pair.metadata == {"input": {"tools": [], "parallel_tool_calls": True}}
    [verdict] = human_rows(project)
    assert (pair.response_a if verdict[3] == "A" else pair.response_b).endswith("56°F.")
    assert verdict[4] == "openai-preference"


def test_message_lists_in_csv_columns(tmp_path: Path) -> None:
    path = tmp_path / "chats.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "model_a", "model_b", "messages_a", "messages_b", "turn", "note"])
        writer.writerow(
            [
                "c1",
                "m1",
                "m2",
                json.dumps(msgs("Q1", "a1", "Q2", "a2")),
                json.dumps(msgs("Q1", "b1", "Q2", "b2")),
                "1",
                "kept",
            ]
        )
        writer.writerow(
            [
                "c2",
                "m1",
                "m2",
                json.dumps(msgs("Q1", "a1", "Q2", "a2")),
                json.dumps(msgs("Q1", "b1", "Q2", "b2")),
                "",
                "",
            ]
        )
    project = new_project(tmp_path)
    run = tiebreak("import", project, path)
    assert run.stdout.strip() == f"{path}: 2 pairs added"
    first, second = pairs_of(project)
    assert (first.turn, first.response_a, first.metadata) == (1, "a1", {"note": "kept"})
    assert (second.turn, second.response_b, second.model_a) == (2, "b2", "m1")
    bad = tmp_path / "bad.csv"
    bad.write_text(
        path.read_text(encoding="utf-8").replace(',"1",', ",9,").replace(",1,kept", ",9,kept"),
        encoding="utf-8",
    )
    refused(project, bad, f"{bad} line 2: field 'turn': 9 is beyond the conversation")


def test_an_id_given_twice_with_other_messages_is_refused(tmp_path: Path) -> None:
    first = {
        "id": "c1",
        "messages_a": msgs("Q1", "a1", "Q2", "a2"),
        "messages_b": msgs("Q1", "b1", "Q2", "b2"),
    }
    second = {**first, "messages_a": msgs("Q1", "a1 changed", "Q2", "a2")}
    project = new_project(tmp_path)
    data = write_jsonl(tmp_path / "chats.jsonl", [first, second])
    refused(
        project,
        data,
        f"{data} line 2: id 'c1' is already used by {data} line 1, which has a different"
        " conversation_a",
    )


@pytest.mark.parametrize(
    ("record", "says"),
    [
        (
            {"input": "hi", "preferred_output": [], "non_preferred_output": []},
            "field 'input': must be an object with messages",
        ),
        (
            {
                "input": {"messages": [{"role": "user", "content": "hi"}]},
                "preferred_output": [{"role": "assistant", "content": "yo"}],
                "non_preferred_output": [{"role": "tool", "content": "{}"}],
            },
            "field 'non_preferred_output': message 1: a tool result names neither the call",
        ),
    ],
)
def test_a_bad_openai_preference_record_is_refused(
    tmp_path: Path, record: dict[str, Any], says: str
) -> None:
    project = new_project(tmp_path)
    data = write_jsonl(tmp_path / "prefs.jsonl", [record])
    refused(project, data, f"{data} line 1: {says}")


def test_a_kaggle_turn_without_an_answer_is_refused(tmp_path: Path) -> None:
    row = {
        "id": 1,
        "model_a": "x",
        "model_b": "y",
        "prompt": json.dumps(["Hi", "More?"]),
        "response_a": json.dumps(["Hello", None]),
        "response_b": json.dumps(["Hey", "Sure."]),
        "winner_model_a": 0,
        "winner_model_b": 1,
        "winner_tie": 0,
    }
    project = new_project(tmp_path)
    data = write_jsonl(tmp_path / "train.jsonl", [row])
    refused(project, data, f"{data} line 1: field 'response_a': turn 2 must be text, got null")
