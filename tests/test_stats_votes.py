"""MT-bench's figures from a project imported from its judgment records: agreement between
votes counted as FastChat's ``compute_agreement.py`` counts it, and each compared turn's
figures apart (`stats --by turn`).

The reference below restates the counting of ``fastchat/llm_judge/compute_agreement.py``
(lm-sys/FastChat, commit 0283a0bb971cecdc630e9dd647cd1d1b17cc09ee, Apache-2.0) rule for
rule, in this file's own words rather than a copy of its code:

- ``get_judge_name``: a judge ``["gpt-4", "pair..."]`` is "gpt4-pair", a name starting
  "expert" is "human", one starting "author" is "author";
- ``get_mt_bench_votes_data``: votes are kept per turn (``turn - 1``) under the key
  (question_id, model_a, model_b) when model_a < model_b, else under (question_id,
  model_b, model_a) with the winner reverted (model_a <-> model_b, a tie as it is), then
  per judge name, as a list in file order;
- ``convertvote``/``equalvote``: any winner containing "tie" is a tie; two votes agree when
  both are ties or when they are equal;
- ``get_mt_bench_agreement``: human against human, every i < j of a key's "human" votes;
  gpt4-pair against human, the key's one gpt4-pair vote against each "human" vote; in
  either, a comparison where a vote's converted value is banned ("tie", for the figures
  without ties) is skipped; it returns (agree, total).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import new_project, tiebreak, write_jsonl

# ---- the reference: FastChat's counting (see the module docstring) -----------------------


def fastchat_judge_name(judge: Any) -> str | None:
    if isinstance(judge, list):
        return "gpt4-pair" if judge[0] == "gpt-4" and judge[1].startswith("pair") else None
    if judge.startswith("expert"):
        return "human"
    if judge.startswith("author"):
        return "author"
    return None


def fastchat_reverted(winner: str) -> str:
    return {"model_a": "model_b", "model_b": "model_a"}.get(winner, winner)


def fastchat_votes_by_turn(records: list[dict]) -> list[dict]:
    by_turn: list[dict] = [{}, {}]
    for r in records:
        if r["model_a"] < r["model_b"]:
            key, winner = (r["question_id"], r["model_a"], r["model_b"]), r["winner"]
        else:
            key = (r["question_id"], r["model_b"], r["model_a"])
            winner = fastchat_reverted(r["winner"])
        name = fastchat_judge_name(r["judge"])
        by_turn[r["turn"] - 1].setdefault(key, {}).setdefault(name, []).append(winner)
    return by_turn


def fastchat_converted(vote: str) -> str:
    return "tie" if "tie" in vote else vote


def fastchat_equal(first: str, second: str) -> bool:
    return ("tie" in first and "tie" in second) or first == second


def fastchat_agreement(data: dict, first: str, second: str, ban: list[str]) -> tuple[int, int]:
    agree = total = 0
    for votes in data.values():
        if first == "gpt4-pair" and second == "human":
            if first not in votes or second not in votes:
                continue
            assert len(votes[first]) == 1
            judge = votes[first][0]
            if fastchat_converted(judge) in ban:
                continue
            for v in votes[second]:
                if fastchat_converted(v) in ban:
                    continue
                total += 1
                agree += fastchat_equal(judge, v)
        elif first == second == "human":
            humans = votes.get("human", [])
            for i in range(len(humans) - 1):
                for j in range(i + 1, len(humans)):
                    if fastchat_converted(humans[i]) in ban or fastchat_converted(humans[j]) in ban:
                        continue
                    total += 1
                    agree += fastchat_equal(humans[i], humans[j])
        else:
            raise ValueError("unsupported judges")
    return agree, total


# ---- MT-bench-shaped records ---------------------------------------------------------------

QUESTIONS = {
    81: ("Write a travel blog post.", "Now in four lines."),
    82: ("Draft an email.", "Make it shorter."),
    83: ("Compare two phones.", "As a limerick."),
}
MODELS = ("alpaca-13b", "claude-v1", "gpt-3.5-turbo", "vicuna-13b-v1.2")
WINNERS = ("model_a", "model_b", "tie", "tie (bothbad)")


def chat(question: int, model: str) -> list[dict[str, str]]:
    first, second = QUESTIONS[question]
    return [
        {"role": "user", "content": first},
        {"role": "assistant", "content": f"{model}'s first answer to {question}"},
        {"role": "user", "content": second},
        {"role": "assistant", "content": f"{model}'s second answer to {question}"},
    ]


def record(question: int, a: str, b: str, turn: int, judge: Any, winner: str) -> dict:
    """A record of lmsys/mt_bench_human_judgments: both whole two-turn chats, the turn."""
    return {
        "question_id": question,
        "model_a": a,
        "model_b": b,
        "winner": winner,
        "judge": judge,
        "conversation_a": chat(question, a),
        "conversation_b": chat(question, b),
        "turn": turn,
    }


def hand_made() -> list[dict]:
    """Question 81, alpaca-13b against gpt-3.5-turbo, turn 1: four experts, one of whom
    (expert_2) saw the models the other way round, an author, and GPT-4 once; turn 2: two
    experts in opposite orders, GPT-4 in the second order."""
    a, b = "alpaca-13b", "gpt-3.5-turbo"
    gpt4 = ["gpt-4", "pair-v2"]
    return [
        record(81, a, b, 1, "expert_0", "model_a"),
        record(81, a, b, 1, "expert_1", "tie"),
        record(81, b, a, 1, "expert_2", "model_b"),  # alpaca wins, seen as B
        record(81, a, b, 1, "expert_3", "tie (bothbad)"),
        record(81, a, b, 1, "author_0", "model_b"),
        record(81, a, b, 1, gpt4, "model_a"),
        record(81, a, b, 2, "expert_0", "model_b"),
        record(81, b, a, 2, "expert_2", "model_a"),  # gpt-3.5 wins, seen as A: agrees
        record(81, b, a, 2, ["gpt-4", "pair-v2-multi-turn"], "model_b"),
    ]


def simulated(seed: int) -> list[dict]:
    """Votes on every question, model pair and turn: two to five experts, each in an order
    of its own, sometimes an author, GPT-4 once in one order."""
    rng = random.Random(seed)
    out = []
    for question in QUESTIONS:
        for i, first in enumerate(MODELS):
            for second in MODELS[i + 1 :]:
                for turn in (1, 2):
                    experts = rng.sample(range(8), rng.randint(2, 5))
                    for e in experts:
                        a, b = (first, second) if rng.random() < 0.5 else (second, first)
                        out.append(record(question, a, b, turn, f"expert_{e}", rng.choice(WINNERS)))
                    if rng.random() < 0.3:
                        out.append(record(question, first, second, turn, "author_1", "tie"))
                    a, b = (first, second) if rng.random() < 0.5 else (second, first)
                    gpt4 = ["gpt-4", "pair-v2" if turn == 1 else "pair-v2-multi-turn"]
                    out.append(record(question, a, b, turn, gpt4, rng.choice(WINNERS[:3])))
    return out


def imported(tmp_path: Path, records: list[dict]) -> Path:
    path = new_project(tmp_path)
    done = tiebreak("import", path, write_jsonl(tmp_path / "votes.jsonl", records))
    assert done.returncode == 0, done.stderr
    return path


def stats_json(path: Path, *args: str) -> dict:
    done = tiebreak("stats", path, "--json", *args)
    assert done.returncode == 0, done.stderr
    (rubric,) = json.loads(done.stdout)["rubrics"]
    return rubric


def counted(rows: list[dict], turn: int, reviewers: str, judge: bool) -> tuple[tuple, tuple]:
    (row,) = [
        r for r in rows if (r["turn"], r["reviewers"], r["judge"]) == (turn, reviewers, judge)
    ]
    return (row["agree"], row["total"]), (row["agree_without_ties"], row["total_without_ties"])


@pytest.mark.parametrize("records", [hand_made, lambda: simulated(5)], ids=["hand", "simulated"])
def test_agreement_between_votes_equals_fastchats_counting(tmp_path: Path, records) -> None:
    votes = records()
    rubric = stats_json(imported(tmp_path, votes))
    assert rubric["judge_model"] == "gpt-4"
    (overall,) = rubric["overall"]["dimensions"]
    rows = overall["vote_agreement"]
    reference = fastchat_votes_by_turn(votes)
    for turn in (1, 2):
        data = reference[turn - 1]
        humans, humans_no_ties = counted(rows, turn, "expert", judge=False)
        assert humans == fastchat_agreement(data, "human", "human", [])
        assert humans_no_ties == fastchat_agreement(data, "human", "human", ["tie"])
        judge, judge_no_ties = counted(rows, turn, "expert", judge=True)
        assert judge == fastchat_agreement(data, "gpt4-pair", "human", [])
        assert judge_no_ties == fastchat_agreement(data, "gpt4-pair", "human", ["tie"])


def test_the_hand_made_counts_and_what_the_text_says(tmp_path: Path) -> None:
    path = imported(tmp_path, hand_made())
    rows = stats_json(path)["overall"]["dimensions"][0]["vote_agreement"]
    # turn 1, experts: A, tie, A (expert_2, flipped), tie: six comparisons, two agree with
    # ties (A-A, tie-tie); without ties only A-A is left, and agrees
    assert counted(rows, 1, "expert", judge=False) == ((2, 6), (1, 1))
    # everyone, the author's B included: ten comparisons
    assert counted(rows, 1, "all", judge=False) == ((2, 10), (1, 3))
    # GPT-4 said A: against A, tie, A, tie two agree; without ties, A against A twice
    assert counted(rows, 1, "expert", judge=True) == ((2, 4), (2, 2))
    # turn 2: expert_0's B and expert_2's A on the other order (so B) agree; GPT-4's B on
    # the other order is A here, against both
    assert counted(rows, 2, "expert", judge=False) == ((1, 1), (1, 1))
    assert counted(rows, 2, "expert", judge=True) == ((0, 2), (0, 2))
    text = tiebreak("stats", path).stdout
    assert "agreement between votes as FastChat counts it" in text
    line = next(x for x in text.splitlines() if x.split()[:3] == ["1", "reviewers", "expert_*"])
    assert line.split()[3:] == ["2", "of", "6", "(33.3%)", "1", "of", "1", "(100.0%)"]


def test_each_turn_has_its_own_figures(tmp_path: Path) -> None:
    path = imported(tmp_path, hand_made())
    rubric = stats_json(path, "--by", "turn")
    turns = {s["name"]: s for s in rubric["turns"]}
    assert list(turns) == ["turn 1", "turn 2"]
    # turn 1: the pair in alpaca's order (three experts, the author, GPT-4) and the pair in
    # the other order (expert_2); turn 2: one pair each way
    assert (turns["turn 1"]["pairs"], turns["turn 1"]["judged"], turns["turn 1"]["reviewed"]) == (
        2,
        1,
        2,
    )
    assert (turns["turn 2"]["pairs"], turns["turn 2"]["judged"]) == (2, 1)
    one = turns["turn 1"]["dimensions"][0]
    # GPT-4's A against the reviewers' consensus on its pair (A, tie, tie, B: latest tie)
    assert one["vs_human"]["n"] == 1
    assert one["win_rates"] is None and one["vote_agreement"] is None  # all pairs only
    assert rubric["overall"]["pairs"] == 4
    text = tiebreak("stats", path, "--by", "turn").stdout.splitlines()
    head = next(i for i, line in enumerate(text) if line.startswith("turn "))
    assert text[head + 1].startswith("turn 1") and text[head + 2].startswith("turn 2")
    assert "turns" in stats_json(path) and stats_json(path)["turns"] == []
