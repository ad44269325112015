"""`tiebreak profile test` is honest about quality: on the demo pairs with a known better
response, asked in both orders, how often the judge picks that response and how often its
verdict survives swapping A and B. A judge found order-inconsistent judges both orders by
default from then on, in the command line and in the window, which says so.

The judges are the project's own test server, answering as a judge that reads the pair
would (the better response, wherever it is shown) and as one that answers by position."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop.adapters.profiles_file import get_profile, save_profile
from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.domain.profiles import ModelProfile
from desktop.resources import resources_dir
from desktop.services.importing import import_file
from desktop.services.judge_check import known_better
from tests.judging_helpers import generations
from tests.openai_server import OpenAIServer

DEMO = [json.loads(line) for line in (resources_dir() / "demo_pairs.jsonl").open()]
KNOWN = known_better()


def sound_judge(request: dict) -> str:
    """Names the known better response of the pair asked about, in whichever place it is
    shown; a tie where none is known."""
    prompt = "\n".join(m["content"] for m in request.get("messages", []))
    for pair in DEMO:
        a, b = pair["response_a"], pair["response_b"]
        if pair["instruction"] in prompt and a in prompt and b in prompt:
            better = KNOWN.get(pair["id"])
            if better is None:
                return "tie"
            a_first = prompt.index(a) < prompt.index(b)
            return better.value if a_first else better.swapped().value
    return "A"


def save(server: OpenAIServer) -> None:
    save_profile(ModelProfile(name="t", model="m", base_url=server.base_url, needs_key=False))


def test_a_judge_that_answers_by_position_is_found_out_and_judges_both_orders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with OpenAIServer(answer="A") as server:
        save(server)
        assert main(["profile", "test", "t"]) == 0
        out = capsys.readouterr().out
        assert "judged 16 demo pairs (href-overall, both orders)" in out
        assert (
            "picks the better response in 16 of 32 answers (50%); keeps its verdict when A and"
            " B swap on 0 of 16 pairs (0%): order-inconsistent, so it judges both orders by"
            " default"
        ) in out
        assert get_profile("t").swap
        assert get_profile("t").quality == {"picks": 16, "answers": 32, "kept": 0, "pairs": 16}

        project = tmp_path / "p.tiebreak"
        with open_project(project, create=True) as store:
            import_file(store, resources_dir() / "demo_pairs.jsonl")
        asked = len(generations(server))
        args = ["judge", str(project), "--rubric", "href-overall", "--profile", "t"]
        assert main([*args, "--limit", "3"]) == 0
        assert len(generations(server)) - asked == 6  # both orders, without --swap
        asked = len(generations(server))
        assert main([*args, "--limit", "5", "--one-order"]) == 0
        assert len(generations(server)) - asked == 2


def test_a_sound_judge_keeps_its_verdicts_and_one_order(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with OpenAIServer(responder=sound_judge) as server:
        save(server)
        assert main(["profile", "test", "t"]) == 0
    out = capsys.readouterr().out
    assert (
        "picks the better response in 32 of 32 answers (100%); keeps its verdict when A and B"
        " swap on 16 of 16 pairs (100%);"
    ) in out
    assert "order-inconsistent" not in out
    assert not get_profile("t").swap
