"""A server that echoes the API key it was sent (in a 400, 401, 403 or 500 message, a model
name or a completion) never gets that key, or any other key this machine keeps, into a
message, a log, the window or the project."""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

import pytest

from desktop.adapters.keys import HIDDEN, set_key, set_session_key
from desktop.adapters.profiles_file import save_profile
from desktop.adapters.store import open_project
from desktop.cli.main import main
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import ModelProfile
from desktop.services import connection
from tests.judging_helpers import MODEL, make_job, profile, project
from tests.key_echo_helpers import ALL, ENV_KEY, IN_USE, OTHER, SESSION, echo
from tests.openai_server import MODELS_PATH, FaultRule, OpenAIServer


@pytest.fixture(autouse=True)
def stored_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, env in (("other", "OTHER_ENV"), ("third", "THIRD_ENV"), ("fourth", "FOURTH_ENV")):
        save_profile(ModelProfile(name=name, model="m", base_url="http://h/v1", key_env=env))
    set_key("other", OTHER)
    set_session_key("third", SESSION)
    monkeypatch.setenv("FOURTH_ENV", ENV_KEY)


def leaks(text: str) -> list[str]:
    return [key for key in ALL if key in text]


def stored_text(path: Path) -> str:
    with sqlite3.connect(path) as conn:
        return "\n".join(line for line in conn.iterdump())


@pytest.mark.parametrize("status", [400, 500, 200])
def test_an_echoed_key_is_hidden_in_what_the_project_keeps(
    tmp_path: Path, status: int, caplog: pytest.LogCaptureFixture, monkeypatch
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_LOG", "debug")
    path = project(tmp_path, n=2)
    with OpenAIServer() as server, open_project(path) as store:
        server.responder = echo(server, status)
        summary = make_job(store, server, api_key=IN_USE, max_retries=1).run()
        assert server.requests[-1].headers["authorization"] == f"Bearer {IN_USE}"
    kept = stored_text(path)
    assert leaks(kept) == [] and HIDDEN in kept
    assert leaks(json.dumps(summary.errors)) == []
    if status != 200:
        assert summary.progress.errors == 2 and HIDDEN in summary.errors[0]
    assert leaks(caplog.text) == []


@pytest.mark.parametrize("status", [401, 403])
def test_a_refusal_that_echoes_the_key_stops_the_job_with_it_hidden(
    tmp_path: Path, status: int
) -> None:
    path = project(tmp_path, n=2)
    with OpenAIServer() as server, open_project(path) as store:
        server.responder = echo(server, status)
        summary = make_job(store, server, api_key=IN_USE).run()
    assert summary.stopped is not None and HIDDEN in summary.stopped
    assert leaks(summary.stopped) == []
    assert leaks(stored_text(path)) == []


def test_a_refused_key_on_the_command_line_is_hidden(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = project(tmp_path, n=2)
    with OpenAIServer() as server:
        save_profile(profile(server, needs_key=True, key_env="IN_USE_ENV"))
        set_key("test", IN_USE)
        server.responder = echo(server, 400)
        args = ["judge", str(path), "--rubric", "just-eval", "--profile", "test"]
        main(args)
        server.responder = echo(server, 401)
        assert main([*args, "--redo"]) == 1
        assert server.requests[-1].headers["authorization"] == f"Bearer {IN_USE}"
    out, err = capfd.readouterr()
    assert "refused the API key (401)" in err and "request refused (400)" in err
    assert leaks(out + err) == [] and HIDDEN in err


def test_a_connection_test_hides_an_echoed_key(tmp_path: Path) -> None:
    with OpenAIServer(models=(f"model-{IN_USE}",)) as server:
        checked = profile(server, needs_key=True, key_env="IN_USE_ENV")
        set_key("test", IN_USE)
        report = connection.test_connection(checked)
        assert leaks(report.summary("test")) == [] and HIDDEN in report.summary("test")
        server.add_rule(FaultRule(echo(server, 401), every=1, paths=(MODELS_PATH,)))
        with pytest.raises(TiebreakError) as refused:
            connection.test_connection(checked)
    assert leaks(str(refused.value)) == [] and HIDDEN in str(refused.value)


def test_an_echoed_key_is_hidden_in_the_window(qtbot, tmp_path: Path) -> None:
    from desktop.services.app_settings import AppSettings
    from desktop.services.session import ReviewSession
    from desktop.ui.main_window import MainWindow

    path = project(tmp_path, n=1)
    with OpenAIServer() as server:
        save_profile(profile(server, needs_key=True, key_env="IN_USE_ENV", max_retries=0))
        set_key("test", IN_USE)
        server.responder = echo(server, 500)
        settings = AppSettings(reviewer="ada", profile="test")
        window = MainWindow(ReviewSession.open(path, settings), settings)
        qtbot.addWidget(window)
        window.judging.judge_pair()
        qtbot.waitUntil(lambda: not window.judging.running, timeout=30_000)
        shown = window.display.verdicts.judge_info.text()
        window.context.runner.shutdown()
    assert "server error 500" in shown and HIDDEN in shown
    assert leaks(shown) == []


def test_a_batch_output_that_echoes_a_key_is_stored_hidden(tmp_path: Path) -> None:
    from desktop.services.judging.batch import export_batch, import_batch

    path = project(tmp_path, n=2)
    save_profile(profile("http://127.0.0.1:9/v1"))
    set_key("test", IN_USE)  # the batch was sent with the test profile's key
    with open_project(path) as store:
        job = make_job(store, "http://127.0.0.1:9/v1", api_key=IN_USE)
        export_batch(job, tmp_path / "requests.jsonl")
        ids = [
            json.loads(line)["custom_id"]
            for line in (tmp_path / "requests.jsonl").read_text().splitlines()
        ]
        body = {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": f"A {OTHER}"},
                }
            ],
        }
        lines = [
            {"custom_id": ids[0], "response": {"status_code": 200, "body": body}},
            {"custom_id": ids[1], "error": {"message": f"bad key {IN_USE} {SESSION}"}},
        ]
        output = tmp_path / "out.jsonl"
        output.write_text("".join(json.dumps(x) + "\n" for x in lines))
        import_batch(store, output)
    kept = stored_text(path)
    assert leaks(kept) == [] and kept.count(HIDDEN) >= 2


def test_a_key_cut_short_is_hidden_from_its_eighth_character_on() -> None:
    from desktop.adapters.keys import key_masker

    mask = key_masker([IN_USE])
    assert mask(f"a {IN_USE[:7]} b") == f"a {IN_USE[:7]} b"  # too short to tell from a word
    assert mask(f"a {IN_USE[:8]}x b") == f"a {HIDDEN}x b"
    assert mask(f"a {IN_USE[:19]}") == f"a {HIDDEN}"
    assert mask(f"{IN_USE}{IN_USE} {SESSION[:9]}") == f"{HIDDEN}{HIDDEN} {HIDDEN}"
    assert mask("") == ""
