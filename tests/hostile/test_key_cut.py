"""A key cut short is still a key: one that straddles the 300-character limit on a server's
message, or one the server shortened itself ("sk-in-use-0c1d****5b6c"), shows none of its
characters from the eighth on, on the terminal or in the project's stored error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from desktop.adapters.keys import HIDDEN, MIN_PREFIX
from tests.hostile.conftest import Hostile
from tests.judging_helpers import MODEL, project
from tests.openai_server import MODELS_PATH, FaultRule, OpenAIServer, Reply

KEY = "sk-in-use-0c1d2e3f4a5b6c7d8e9f"
ENV = {"OPENAI_API_KEY": KEY}
PADDING = "The request was refused for a reason that takes a while to explain. " * 5


def prefixes(text: str) -> list[str]:
    """The key's first MIN_PREFIX characters or more, wherever they are in ``text``."""
    return [KEY[:n] for n in range(MIN_PREFIX, len(KEY) + 1) if KEY[:n] in text]


def stored_errors(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        return "\n".join(e or "" for (e,) in conn.execute("SELECT error FROM judge_results"))


CUTS = {
    # The key begins 20 characters before the 300-character limit on a server's message.
    "at our limit": PADDING[: 300 - 20 - len("bad key ")] + f"bad key {KEY} (check it)",
    # The server prints the first 14 characters and the last 4, as OpenAI does.
    "by the server": f"Incorrect API key provided: {KEY[:14]}{'*' * 12}{KEY[-4:]}.",
}


@pytest.mark.parametrize("cut", list(CUTS))
def test_a_key_cut_short_in_a_refusal_is_hidden(tmp_path: Path, hostile: Hostile, cut: str) -> None:
    path = project(tmp_path, n=1)
    with OpenAIServer() as server:
        server.script([Reply.error(400, CUTS[cut])])
        run = hostile.cli("judge", path, "--rubric", "just-eval", "--base-url", server.base_url,
                          "--model", MODEL, env=ENV)  # fmt: skip
        assert server.requests[-1].headers["authorization"] == f"Bearer {KEY}"
    assert run.code == 1 and "Traceback" not in run.stderr, run.stderr
    assert "request refused (400)" in run.stderr and HIDDEN in run.stderr
    assert prefixes(run.stdout + run.stderr) == []
    kept = stored_errors(path)
    assert "request refused (400)" in kept and prefixes(kept) == []
    hostile.held()


def test_a_key_cut_short_where_the_job_stops_is_hidden(tmp_path: Path, hostile: Hostile) -> None:
    path = project(tmp_path, n=1)
    with OpenAIServer() as server:
        server.add_rule(FaultRule(Reply.error(401, CUTS["at our limit"]), every=1,
                                  paths=(MODELS_PATH,)))  # fmt: skip
        run = hostile.cli("judge", path, "--rubric", "just-eval", "--base-url", server.base_url,
                          "--model", MODEL, env=ENV)  # fmt: skip
    hostile.refused(run, says=("refused the API key (401)", HIDDEN))
    assert prefixes(run.stderr) == []
