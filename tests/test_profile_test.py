"""`tiebreak profile test`: beyond listing models, it judges demo pairs as a job would and
reports the time per pair (``--quick``: two pairs, one order; the quality figures of the full
test are ``tests/test_profile_quality.py``'s); it exits 1 when judging does not work."""

from __future__ import annotations

import re
import sys

import pytest

from desktop.adapters.profiles_file import save_profile
from desktop.cli.main import main
from desktop.domain.profiles import ModelProfile
from tests.judging_helpers import generations
from tests.local_server_helpers import CRASHED, stand_in
from tests.openai_server import OpenAIServer, Reply

TIMES = re.compile(
    r"judged 2 demo pairs \(href-overall\): first \d+\.\d s, then \d+\.\d s per pair"
)


def save(server: OpenAIServer) -> None:
    save_profile(ModelProfile(name="t", model="m", base_url=server.base_url, needs_key=False))


def test_two_demo_pairs_are_judged_and_timed(capsys: pytest.CaptureFixture[str]) -> None:
    with OpenAIServer() as server:
        save(server)
        assert main(["profile", "test", "t", "--quick"]) == 0
        judged = [r.json for r in generations(server) if "Human Response" in str(r.json)]
    out = capsys.readouterr().out
    assert out.startswith("profile t: answers;") and TIMES.search(out), out
    assert len(judged) == 2  # the rubric's real prompt for each, as a job sends it


def test_a_shape_the_server_refuses_is_a_no_not_a_problem(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """llama.cpp's server refuses OpenAI's json_schema with a 500; another server refuses
    llama.cpp's grammar: the summary says "no", without the refusal's text."""
    with OpenAIServer(reject_grammar=True) as server:
        save(server)
        assert main(["profile", "test", "t", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "grammar no;" in out and TIMES.search(out), out
    assert "grammar" not in out.split("grammar no;")[1], out


def test_judging_that_fails_is_said_and_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    def answer(request: dict) -> Reply | str:
        prompt = str(request.get("messages"))
        return Reply.error(400, "prompt too long") if "Human Response" in prompt else "A"

    with OpenAIServer(responder=answer) as server:
        save(server)
        assert main(["profile", "test", "t"]) == 1
    out = capsys.readouterr().out
    assert "profile t: answers;" in out
    assert "judging does NOT work: request refused (400): prompt too long" in out


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_the_local_check_names_a_server_that_crashes_while_judging(
    install_local_server, capsys: pytest.CaptureFixture[str]
) -> None:
    # Four tiny requests find what the server takes; the fifth is the first judged pair.
    install_local_server(stand_in(5, 1))
    assert main(["profile", "test", "local"]) == 1
    out = capsys.readouterr().out
    assert f"judging does NOT work: {CRASHED}" in out
