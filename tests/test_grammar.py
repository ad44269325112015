"""Free-text answers (one verdict, a comma list) constrained by a GBNF grammar where the
server takes one, as JSON answers are by a schema: negotiated per server, with the logprob
confidence of a one-token answer kept, and earlier results still readable."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from desktop.adapters.profiles_file import get_profile, save_profile
from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.domain.profiles import ModelProfile, local_profile
from desktop.domain.requests import answer_grammar
from desktop.domain.rubric import AnswerFormat, AnswerKind, Decoding
from desktop.services.judging import JobOptions, JudgeJob
from desktop.services.pair_list import counts
from desktop.services.pair_verdicts import pair_verdicts
from tests.judging_helpers import (
    COMMA,
    JSON_CHOICES,
    MODEL,
    SINGLE,
    generations,
    make_job,
    project,
    results,
)
from tests.openai_server import OpenAIServer, Reply, TokenLogprob

TAKES_GRAMMAR = {"capabilities": {"grammar": True}}


@pytest.fixture
def server():
    with OpenAIServer() as s:
        yield s


def test_grammars_admit_only_the_answer_shape() -> None:
    verdict = 'verdict ::= "A" | "B" | "tie" | "Tie"'
    assert answer_grammar(SINGLE) == f"root ::= verdict\n{verdict}\n"
    assert answer_grammar(COMMA) == f'root ::= verdict ", " verdict\n{verdict}\n'
    assert answer_grammar(JSON_CHOICES) is None  # a schema constrains JSON


def test_who_gets_a_grammar() -> None:
    remote = ModelProfile(name="r", model="m", base_url="https://api.example.com/v1")
    loopback = remote.with_changes(base_url="http://127.0.0.1:8080/v1")
    assert local_profile().sends_grammar()  # llama.cpp's server takes one
    assert not remote.sends_grammar() and not loopback.sends_grammar()  # untested: may refuse
    assert loopback.with_changes(capabilities={"grammar": True}).sends_grammar()
    assert not local_profile().with_changes(capabilities={"grammar": False}).sends_grammar()
    assert not local_profile().with_changes(structured="off").sends_grammar()


@pytest.mark.parametrize("api_mode", ["chat", "completions"])
def test_a_free_text_answer_is_sent_its_grammar(
    tmp_path: Path, server: OpenAIServer, api_mode: str
) -> None:
    path = project(tmp_path, 1)
    server.answer = "A, tie"
    with open_project(path) as store:
        make_job(store, server, COMMA, api_mode=api_mode, **TAKES_GRAMMAR).run()
        make_job(store, server, JSON_CHOICES, api_mode=api_mode, **TAKES_GRAMMAR).run()
        make_job(store, server, COMMA, api_mode=api_mode).run()  # untested server
    with_grammar, json_answer, untested = (r.json for r in generations(server))
    assert with_grammar["grammar"] == answer_grammar(COMMA)
    assert "grammar" not in json_answer and "grammar" not in untested


def test_the_confidence_of_a_constrained_verdict_is_read_at_its_token(
    tmp_path: Path, server: OpenAIServer
) -> None:
    """The grammar picked B, but the model's own likeliest first token was prose ("The"):
    B's confidence is its share among the verdict tokens the model weighed there."""
    top = (("The", -0.4), ("B", -1.0), ("A", -2.0), ("I", -2.5))
    server.script([Reply(content="B", logprobs=[TokenLogprob("B", -1.0, top)])])
    path = project(tmp_path, 1)
    with open_project(path) as store:
        make_job(store, server, SINGLE, **TAKES_GRAMMAR).run()
        row = results(store)[0]
    assert row["status"] == "ok" and row["verdicts"] == {"overall": "B"}
    expected = math.exp(-1.0) / (math.exp(-1.0) + math.exp(-2.0))
    assert row["confidence"]["overall"] == pytest.approx(expected, abs=1e-5)
    assert row["raw_completion"] == "B"


def test_a_grammar_keeps_parse_failures_honest(tmp_path: Path, server: OpenAIServer) -> None:
    """A server that ignores the grammar and rambles gets a parse failure, raw text kept."""
    server.script(["Both are fine, I suppose."])
    path = project(tmp_path, 1)
    with open_project(path) as store:
        make_job(store, server, SINGLE, **TAKES_GRAMMAR).run()
        row = results(store)[0]
    assert row["status"] == "parse-failure" and row["verdicts"] is None
    assert row["raw_completion"] == "Both are fine, I suppose."


def test_earlier_results_stay_readable_and_a_grammar_job_resumes(
    tmp_path: Path, server: OpenAIServer
) -> None:
    path = project(tmp_path, 4)
    with open_project(path) as store:
        before = make_job(store, server, SINGLE)  # judged before grammars: no grammar sent
        before.run()
        old_key = before.settings
        # JSON answers keep their key: nothing judged with a schema is asked again.
        json_keys = {
            make_job(store, server, JSON_CHOICES, structured="json_object", **caps).settings
            for caps in ({}, TAKES_GRAMMAR)
        }
        assert len(json_keys) == 1
        server.script(["B"] * 4)
        first = make_job(store, server, SINGLE, options={"limit": 2}, **TAKES_GRAMMAR)
        assert first.settings != old_key  # what is sent changed, so does the key
        first.run()
        shown = pair_verdicts(store, 3, SINGLE.name, MODEL, SINGLE.dimensions)
        assert shown.dimensions["overall"].judge.value == "A"  # the earlier answer, shown
        assert counts(store, SINGLE.name, MODEL) == (4, 4, 0)
        sent = len(generations(server))
        summary = make_job(store, server, SINGLE, **TAKES_GRAMMAR).run()  # resumed
        assert (summary.progress.total, summary.progress.skipped) == (2, 2)
        assert len(generations(server)) == sent + 2
        assert {r["settings_hash"] for r in results(store)} == {old_key, first.settings}


def test_profile_test_finds_whether_the_server_takes_a_grammar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A server that refuses the field is recorded as such and then never sent one."""
    for refuses in (False, True):
        with OpenAIServer(reject_grammar=refuses) as server:
            save_profile(
                ModelProfile(name="t", model=MODEL, base_url=server.base_url, needs_key=False)
            )
            assert main(["profile", "test", "t"]) == 0
            out = capsys.readouterr().out
            assert f"grammar {'no' if refuses else 'yes'}" in out
            assert get_profile("t").capabilities["grammar"] is not refuses
            path = project(tmp_path, 1, name=f"refuses-{refuses}.tiebreak")
            with open_project(path) as store:
                job = JudgeJob(
                    store,
                    SINGLE,
                    get_profile("t"),
                    base_url=server.base_url,
                    api_key=None,
                    options=JobOptions(),
                )
                assert job.run().progress.ok == 1
            assert ("grammar" in generations(server)[-1].json) is not refuses


@pytest.mark.parametrize("max_tokens", [1, 300])
def test_alpaca_eval_answers_have_grammars_the_local_server_parses(max_tokens: int) -> None:
    from llama_cpp import LlamaGrammar  # the local server's own parser of GBNF

    for kind in (AnswerKind.IDENTIFIER, AnswerKind.RANKING):
        rubric = dataclasses.replace(
            SINGLE, answer=AnswerFormat(kind), decoding=Decoding(max_tokens=max_tokens)
        )
        grammar = answer_grammar(rubric)
        assert grammar is not None
        LlamaGrammar.from_string(grammar, verbose=False)
        if kind is AnswerKind.IDENTIFIER and max_tokens == 1:
            assert grammar == 'root ::= "m" | "M"\n'
