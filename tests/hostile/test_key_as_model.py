"""An API key pasted as the model's name (``--model sk-...``, or a profile's model) is
shown and stored as ``[key hidden]``: in every line printed, the judge's name in the
project, the report and the profiles file, and the request sent (issue 29, item 7)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import keyring
import pytest

from desktop.adapters.config import config_dir
from desktop.adapters.keys import HIDDEN, SERVICE
from desktop.adapters.profiles_file import save_profile
from desktop.domain.profiles import ModelProfile
from tests.hostile.conftest import Hostile
from tests.judging_helpers import project
from tests.openai_server import OpenAIServer

IN_USE = "sk-in-use-0c1d2e3f4a5b6c7d"  # OPENAI_API_KEY, which --base-url sends
OTHER = "sk-other-env-8e9f0a1b2c3d"  # another profile's environment variable
KEPT = "sk-kept-in-keyring-5a6b7c8d"  # another profile's keyring entry


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", IN_USE)
    monkeypatch.setenv("OTHER_ENV", OTHER)
    save_profile(ModelProfile(name="other", model="m", base_url="http://h/v1", key_env="OTHER_ENV"))
    save_profile(ModelProfile(name="kept", model="m", base_url="http://h/v1", key_env="NO_ENV"))
    keyring.set_password(SERVICE, "kept", KEPT)


def _dump(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return "\n".join(conn.iterdump())
    finally:
        conn.close()


@pytest.mark.parametrize("key", [IN_USE, OTHER, KEPT, f" {IN_USE} "], ids=repr)
def test_a_key_as_the_judge_model_is_hidden(tmp_path: Path, hostile: Hostile, key: str) -> None:
    path = project(tmp_path, n=2)
    with OpenAIServer() as server:
        judged = hostile.main(
            "judge", path, "--rubric", "just-eval", "--base-url", server.base_url, "--model", key
        )
        sent = [r.json.get("model") for r in server.requests if r.json]
    hostile.succeeded(judged)
    assert f"(model {HIDDEN})" in judged.stdout
    assert sent and set(sent) == {HIDDEN}
    report = tmp_path / "r.html"
    shown = hostile.main("judges", path)
    hostile.succeeded(hostile.main("report", path, report))
    hostile.succeeded(shown)
    assert HIDDEN in shown.stdout
    for text in (judged.stdout + judged.stderr, shown.stdout, _dump(path), report.read_text()):
        assert key.strip() not in text


@pytest.mark.parametrize("key", [IN_USE, OTHER, KEPT])
def test_a_key_as_a_profile_model_is_never_written(hostile: Hostile, key: str) -> None:
    run = hostile.main("profile", "add", "pasted", "--base-url", "http://h/v1", "--model", key)
    hostile.succeeded(run)
    assert key not in (config_dir() / "profiles.toml").read_text()
    listed = hostile.main("profile", "list")
    hostile.succeeded(listed)
    assert key not in listed.stdout and HIDDEN in listed.stdout


def test_a_profile_file_with_a_key_as_its_model(tmp_path: Path, hostile: Hostile) -> None:
    """A profiles file edited by hand (or written before): shown and judged hidden too."""
    path = project(tmp_path, n=1)
    with OpenAIServer() as server:
        save_profile(ModelProfile(name="hand", model=OTHER, base_url=server.base_url))
        listed = hostile.main("profile", "list")
        judged = hostile.main("judge", path, "--rubric", "just-eval", "--profile", "hand")
        sent = {r.json.get("model") for r in server.requests if r.json}
    hostile.succeeded(listed)
    hostile.succeeded(judged)
    assert sent == {HIDDEN}
    for text in (listed.stdout, judged.stdout + judged.stderr, _dump(path)):
        assert OTHER not in text
