"""AlpacaEval's own judge templates through `rubric add` and `judge`: AlpacaEval 2's m/M
answer read from its logprobs as AlpacaEval's ``logprob_parser`` reads it, the ranking
judges' lists as its ``ranking_parser`` reads them, and a template whose answer Tiebreak
cannot read refused when it is added.

The m/M answers are GPT-4-turbo's own: the logprobs AlpacaEval kept in the raw completions
of its claude-2.1 annotations, served by the test server. AlpacaEval (not installed here)
shuffles the two outputs before asking and maps the answer back, so each file preference
is either the judge's own or its mirror image (3 - p).
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

import pytest

from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.domain.parsing import parse_answer
from desktop.domain.rubric import AnswerFormat, AnswerKind
from desktop.domain.verdicts import Verdict
from tests.helpers import new_project, table_digest, write_jsonl
from tests.openai_server import GENERATION_PATHS, OpenAIServer, Reply, TokenLogprob

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
CLAUDE = SHARED / "alpaca_eval" / "claude-2.1__weighted_alpaca_eval_gpt4_turbo.annotations.json"
TEMPLATES = Path(__file__).parent / "alpaca_eval_templates"
N = 12


@pytest.fixture
def server():
    with OpenAIServer() as s:
        yield s


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, list[str]]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err.strip().splitlines()


def add_profile(server: OpenAIServer, *extra: str) -> None:
    args = ["profile", "add", "gpt", "--base-url", server.base_url, "--model", "gpt-4-turbo"]
    assert main([*args, "--no-key", "--concurrency", "1", *extra]) == 0


def stored(project: Path) -> dict[int, dict[str, Any]]:
    with open_project(project, readonly=True) as store:
        rows = store.conn.execute(
            "SELECT pair_id, status, verdicts, confidence, preference, error"
            " FROM judge_results ORDER BY pair_id"
        ).fetchall()
    return {
        r[0]: {
            "status": r[1],
            "verdicts": json.loads(r[2]) if r[2] else None,
            "confidence": json.loads(r[3]) if r[3] else None,
            "preference": json.loads(r[4]) if r[4] else None,
            "error": r[5],
        }
        for r in rows
    }


def pairs_project(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    project = new_project(tmp_path)
    data = [
        {"instruction": r["instruction"], "response_a": r["output_1"], "response_b": r["output_2"]}
        for r in rows
    ]
    assert main(["import", str(project), str(write_jsonl(tmp_path / "pairs.jsonl", data))]) == 0
    return project


# ---- AlpacaEval 2's m/M answer --------------------------------------------------------------


def alpaca_preference(top: list[dict[str, Any]]) -> float:
    """AlpacaEval's ``logprob_parser`` with ``numerator_token="m"``, ``denominator_tokens=
    ["m", "M"]``, ``is_binarize=False``, as its source computes it: 2 - P(m) / (P(m) + P(M)),
    a token missing from the top logprobs at probability 0."""
    found = {t["token"]: t["logprob"] for t in top if t["token"] in ("m", "M")}
    m, big_m = found.get("m", -math.inf), found.get("M", -math.inf)
    top_lp = max(m, big_m)
    denominator = top_lp + math.log(math.exp(m - top_lp) + math.exp(big_m - top_lp))
    return 2 - math.exp(m - denominator)


@pytest.fixture
def gpt4_answers() -> list[dict[str, Any]]:
    if not CLAUDE.exists():
        pytest.skip("../shared/data/alpaca_eval is not beside this checkout")
    rows = json.loads(CLAUDE.read_text(encoding="utf-8"))
    return [r for r in rows if isinstance(r.get("raw_completion"), dict)][:N]


def gpt4_reply(row: dict[str, Any]) -> Reply:
    """GPT-4-turbo's answer as it gave it: its text and its first token's top logprobs."""
    raw = row["raw_completion"]
    first = raw["logprobs"]["content"][0]
    top = tuple((t["token"], t["logprob"]) for t in first["top_logprobs"])
    return Reply(
        content=raw["message"]["content"],
        logprobs=[TokenLogprob(first["token"], first["logprob"], top)],
        finish_reason=raw["finish_reason"],
    )


def test_alpaca_eval_2_template_reads_gpt4_turbo_answers_as_alpaca_eval_does(
    tmp_path: Path,
    server: OpenAIServer,
    capsys: pytest.CaptureFixture[str],
    gpt4_answers: list[dict[str, Any]],
) -> None:
    project = pairs_project(tmp_path, gpt4_answers)
    template = TEMPLATES / "alpaca_eval_clf_gpt4_turbo.txt"
    code, out, err = run(capsys, "rubric", "add", project, template, "--name", "ae2")
    assert code == 0, err
    assert "answer format identifier" in out
    add_profile(server)
    replies = {r["instruction"]: gpt4_reply(r) for r in gpt4_answers}
    server.responder = lambda data: next(
        reply for text, reply in replies.items() if text in data["messages"][-1]["content"]
    )
    code, _, err = run(capsys, "judge", project, "--rubric", "ae2", "--profile", "gpt")
    assert code == 0, err
    sent = [r.json for r in server.requests if r.path in GENERATION_PATHS]
    assert len(sent) == N
    asked = {(b["max_tokens"], b["logprobs"], b["top_logprobs"]) for b in sent}
    assert asked == {(1, True, 5)}  # AlpacaEval's completions_kwargs
    user = sent[0]["messages"][-1]["content"]
    first = gpt4_answers[0]
    assert user.index(first["output_1"]) < user.index('"model_identifier": "M"')

    results = stored(project)
    assert len(results) == N
    for pair_id, row in enumerate(gpt4_answers, start=1):
        got = results[pair_id]
        top = row["raw_completion"]["logprobs"]["content"][0]["top_logprobs"]
        expected = alpaca_preference(top)
        assert got["status"] == "ok"
        letter = row["raw_completion"]["message"]["content"]
        assert got["verdicts"] == {"overall": {"m": "A", "M": "B"}[letter]}
        assert got["preference"]["overall"] == pytest.approx(expected, abs=1e-9)
        p_letter = expected - 1 if letter == "M" else 2 - expected
        assert got["confidence"]["overall"] == pytest.approx(p_letter, abs=1e-6)
        # The file's preference is the same answer mapped back from AlpacaEval's shuffle.
        given = row["preference"]
        assert min(abs(given - expected), abs(given - (3 - expected))) < 1e-6
    assert len({round(r["preference"]["overall"], 3) for r in results.values()}) > 3  # soft
    # AlpacaEval's leaderboard figures follow: the weighted win rate is the mean of the soft
    # preferences - 1, the discrete one that of the letters (its binarised annotator's).
    code, out, _ = run(capsys, "stats", project, "--by", "model", "--rubric", "ae2", "--json")
    assert code == 0
    (row,) = json.loads(out)["rubrics"][0]["rows"]
    softs = [results[i]["preference"]["overall"] - 1 for i in results]
    assert row["win_rate"] == pytest.approx(100 * sum(softs) / N)
    letters = [results[i]["verdicts"]["overall"] == "B" for i in results]
    assert row["discrete_win_rate"] == pytest.approx(100 * sum(letters) / N)


def test_an_m_answer_without_logprobs_is_its_letter_and_prose_is_a_parse_failure(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"instruction": f"q{i}", "output_1": f"a{i}", "output_2": f"b{i}"} for i in range(3)]
    project = pairs_project(tmp_path, rows)
    template = TEMPLATES / "alpaca_eval_clf_gpt4_turbo.txt"
    assert run(capsys, "rubric", "add", project, template, "--name", "ae2")[0] == 0
    add_profile(server, "--no-logprobs")
    server.script(["m", "M", "The best model is M"])
    assert run(capsys, "judge", project, "--rubric", "ae2", "--profile", "gpt")[0] == 0
    results = stored(project)
    assert [results[i]["verdicts"] for i in (1, 2)] == [{"overall": "A"}, {"overall": "B"}]
    assert [results[i]["confidence"] for i in (1, 2)] == [None, None]
    assert results[3]["status"] == "parse-failure"
    assert "not the identifier m or M" in results[3]["error"]


def test_the_chain_of_thought_variant_reads_the_letter_it_ends_with(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str]
) -> None:
    project = pairs_project(tmp_path, [{"instruction": "q", "output_1": "a", "output_2": "b"}])
    template = TEMPLATES / "alpaca_eval_clf_cot_gpt4_turbo.txt"
    assert run(capsys, "rubric", "add", project, template, "--name", "cot")[0] == 0
    add_profile(server)
    text = "### Concise explanation\nm is vague.\n\n### Which is best, m or M?\n"
    tokens = [TokenLogprob(text, -0.1, ((text, -0.1),))]
    tokens.append(TokenLogprob("M", math.log(0.8), (("M", math.log(0.8)), ("m", math.log(0.2)))))
    server.script([Reply(content=text + "M", logprobs=tokens)])
    assert run(capsys, "judge", project, "--rubric", "cot", "--profile", "gpt")[0] == 0
    (got,) = stored(project).values()
    assert got["verdicts"] == {"overall": "B"}
    assert got["preference"]["overall"] == pytest.approx(1.8)
    assert got["confidence"]["overall"] == pytest.approx(0.8)


# ---- the ranking judges ---------------------------------------------------------------------

RANKINGS = {
    "[{'model': 'model_1', 'rank': 1}, {'model': 'model_2', 'rank': 2}]": "A",
    "[{'model': 'model_2', 'rank': 1}, {'model': 'model_1', 'rank': 2}]": "B",
    ' [\n    {"model": "model_1", "rank": 2},\n    {"model": "model_2", "rank": 1}\n]': "B",
    "```python\n[{'model': 'model_1', 'rank': 1}, {'model': 'model_2', 'rank': 2}]\n```": "A",
}
# What AlpacaEval's ranking_parser returns for each (1 = output_1, 2 = output_2, None = NaN).
ALPACA_EVAL_SAYS = {1: Verdict.A, 2: Verdict.B}
NOT_RANKINGS = {
    "[{'model': 'model_1', 'rank': 3}, {'model': 'model_2', 'rank': 1}]": "model_1 has rank 3",
    "[{'model': 'model_1', 'rank': 1}, {'model': 'model_2', 'rank': 1}]": "both rank 1",
    "Model 1 is better.": "not a list",
    "[{'model': <model-name>, 'rank': <model-rank>}]": "not a list",
    "[{'model': 'model_2', 'rank': 1}]": "does not rank model_1",
}


@pytest.mark.parametrize("template", ["alpaca_eval_gpt4.txt", "claude_ranking.txt"])
def test_ranking_templates_read_the_judges_list(
    tmp_path: Path, server: OpenAIServer, capsys: pytest.CaptureFixture[str], template: str
) -> None:
    answers = [*RANKINGS, *NOT_RANKINGS]
    rows = [{"instruction": f"q{i}", "output_1": f"a{i}", "output_2": f"b{i}"} for i in range(9)]
    project = pairs_project(tmp_path, rows)
    code, out, err = run(capsys, "rubric", "add", project, TEMPLATES / template, "--name", "rank")
    assert code == 0, err
    assert "answer format ranking" in out
    add_profile(server)
    server.script(answers)
    assert run(capsys, "judge", project, "--rubric", "rank", "--profile", "gpt")[0] == 0
    sent = [r.json for r in server.requests if r.path in GENERATION_PATHS]
    assert sent[0]["max_tokens"] == 100 and "logprobs" not in sent[0]
    results = stored(project)
    for pair_id, answer in enumerate(answers, start=1):
        got = results[pair_id]
        if answer in RANKINGS:
            assert got["verdicts"] == {"overall": RANKINGS[answer]}, answer
            assert got["confidence"] is None and got["preference"] is None
        else:
            assert got["status"] == "parse-failure", answer
            assert NOT_RANKINGS[answer] in got["error"]


def test_rankings_read_as_alpaca_eval_reads_them() -> None:
    """Where AlpacaEval's ranking_parser gives model_1's rank (its doctests' answers), the
    verdict is that rank's output; the answers it reads as NaN are parse failures here."""
    answer = AnswerFormat(AnswerKind.RANKING)
    for text, rank in (
        ("[{'model': 'model_1', 'rank': 1}, {'model': 'model_2', 'rank': 2}]", 1),
        ("[{'model': 'model_1', 'rank': 2}, {'model': 'model_2', 'rank': 1}]", 2),
    ):
        assert parse_answer(text, answer, ["overall"]).verdicts == {
            "overall": ALPACA_EVAL_SAYS[rank]
        }
    nan = "[{'model': 'model_1', 'rank': 3}, {'model': 'model_2', 'rank': 1}]"
    assert not parse_answer(nan, answer, ["overall"]).ok
    said = "[{'model': 'model_2', 'rank': 1}, {'model': 'model_1', 'rank': 2}]"
    prose = f"My ranking:\n{said}\nModel 2 is better [it is precise]."
    assert parse_answer(prose, answer, ["overall"]).verdicts == {"overall": Verdict.B}
    other = said.replace("'rank': 1", "'rank': 0").replace("'rank': 2", "'rank': 1")
    twice = parse_answer(said + "\n" + other.replace("'rank': 0", "'rank': 2"), answer, ["x"])
    assert twice.error == "ambiguous: the answer gives rankings that disagree"


@pytest.mark.parametrize(
    "answer_text",
    ["[" + "1," * 450_000 + "]", "[{" * 450_000, ("[{'model': " + "x" * 1990 + "]") * 450],
)
def test_a_long_ranking_answer_reads_in_time_proportional_to_its_length(answer_text: str) -> None:
    start = time.monotonic()
    outcome = parse_answer(answer_text, AnswerFormat(AnswerKind.RANKING), ["overall"])
    assert not outcome.ok and time.monotonic() - start < 1.0


# ---- templates whose answer Tiebreak cannot read ----------------------------------------------


@pytest.mark.parametrize(
    ("template", "says"),
    [
        ("lmsys_gpt4.txt", "asks for scores on a scale of 1 to 10"),
        ("alpaca_eval_gpt4_fn.txt", "asks for a call of the function make_leaderboard"),
        ("alpaca_farm_greedy_gpt4.txt", "asks about 5 pairs in one request"),
        ("alpaca_farm_cot_json.txt", "asks for JSON with a true/false member"),
    ],
)
def test_a_template_whose_answer_cannot_be_read_is_refused_when_added(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], template: str, says: str
) -> None:
    project = new_project(tmp_path)
    before = table_digest(project)
    code, out, err = run(capsys, "rubric", "add", project, TEMPLATES / template)
    assert code == 1 and out == ""
    assert len(err) == 1 and says in err[0], err
    assert table_digest(project) == before
