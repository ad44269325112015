"""A server that echoes the API key in its refusal: the one line on stderr says the key was
refused, with the key (and any other the machine keeps) hidden, and the project is left
exactly as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop.adapters.keys import HIDDEN
from desktop.adapters.profiles_file import save_profile
from desktop.domain.profiles import ModelProfile
from tests.hostile.conftest import Hostile, fingerprint
from tests.judging_helpers import MODEL, project
from tests.key_echo_helpers import echo
from tests.openai_server import MODELS_PATH, FaultRule, OpenAIServer

IN_USE = "sk-in-use-0c1d2e3f4a5b6c7d"
OTHER = "sk-other-env-8e9f0a1b2c3d"  # another profile's environment variable
ENV = {"OPENAI_API_KEY": IN_USE, "OTHER_ENV": OTHER}


@pytest.fixture(autouse=True)
def other_profile() -> None:
    save_profile(ModelProfile(name="other", model="m", base_url="http://h/v1", key_env="OTHER_ENV"))


@pytest.mark.parametrize("status", [401, 403])
def test_judge_refused_with_the_key_echoed(tmp_path: Path, hostile: Hostile, status: int) -> None:
    path = project(tmp_path, n=2)
    with OpenAIServer() as server:
        words = ("judge", path, "--rubric", "just-eval", "--base-url", server.base_url)
        hostile.succeeded(hostile.cli(*words, "--model", MODEL, env=ENV))  # rubric recorded
        before = fingerprint(path)
        server.responder = echo(server, status, (OTHER,))
        run = hostile.cli(*words, "--model", MODEL, "--redo", env=ENV)
        assert server.requests[-1].headers["authorization"] == f"Bearer {IN_USE}"
    hostile.refused(run, says=(f"refused the API key ({status})", HIDDEN), project=path,
                    before=before)  # fmt: skip
    assert IN_USE not in run.stdout + run.stderr and OTHER not in run.stdout + run.stderr


def test_profile_test_refused_with_the_key_echoed(tmp_path: Path, hostile: Hostile) -> None:
    with OpenAIServer() as server:
        save_profile(
            ModelProfile(name="echo", model=MODEL, base_url=server.base_url, key_env="ECHO_KEY")
        )
        server.add_rule(FaultRule(echo(server, 401, (OTHER,)), every=1, paths=(MODELS_PATH,)))
        run = hostile.cli("profile", "test", "echo", env={**ENV, "ECHO_KEY": IN_USE})
    hostile.refused(run, says=("refused the API key (401)", HIDDEN))
    assert IN_USE not in run.stderr and OTHER not in run.stderr
