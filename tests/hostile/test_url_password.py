"""A password in a base URL (``http://ada:PASSWORD@host/v1``) is kept as a key is, in the
keyring: profiles.toml holds the URL without it, no message or listing shows it (the
server unreachable, refusing, `profile list`, `profile test`, the settings dialog), and the
server still gets it as basic auth, so the profile keeps working."""

from __future__ import annotations

import base64
import json
import logging
import tomllib
from pathlib import Path

import pytest

from desktop.adapters.keys import URL_SERVICE
from desktop.adapters.profiles_file import profiles_path
from tests.hostile.conftest import Hostile, fingerprint
from tests.judging_helpers import JUST_EVAL_ANSWER, MODEL, project
from tests.keyring_backends import MemoryKeyring
from tests.openai_server import OpenAIServer

PASSWORD = "pw-0f9e8d7c6b5a"
DEAD = "127.0.0.1:9"  # the discard port: nothing answers there


def with_password(url: str) -> str:
    return url.replace("http://", f"http://ada:{PASSWORD}@")


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def saved() -> bytes:
    return profiles_path().read_bytes()


def test_a_profile_keeps_its_url_password_in_the_keyring_and_works(
    tmp_path: Path,
    hostile: Hostile,
    memory_keyring: MemoryKeyring,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)  # httpx's and openai's request logs, every URL in them
    monkeypatch.setenv("OPENAI_LOG", "debug")
    path = project(tmp_path, n=2)
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as server:
        url = with_password(server.base_url)
        add = hostile.main("profile", "add", "vllm", "--base-url", url, "--model", MODEL,
                           "--no-key")  # fmt: skip
        hostile.succeeded(add)
        assert "kept in the keyring" in add.stdout
        assert PASSWORD.encode() not in saved()
        kept = tomllib.loads(saved().decode())["profiles"]["vllm"]["base_url"]
        assert kept == server.base_url.replace("http://", "http://ada@")
        assert memory_keyring.passwords[(URL_SERVICE, "vllm")] == PASSWORD
        for words in (("profile", "list"), ("profile", "list", "--json")):
            listed = hostile.main(*words)
            hostile.succeeded(listed)
            assert PASSWORD not in listed.stdout + listed.stderr and "ada@" in listed.stdout
        json.loads(listed.stdout)
        run = hostile.main("judge", path, "--rubric", "just-eval", "--profile", "vllm")
        hostile.succeeded(run)
        assert "2 ok" in run.stdout
    assert {r.headers["authorization"] for r in server.requests} == {basic("ada", PASSWORD)}
    assert PASSWORD not in run.stdout + run.stderr
    assert "HTTP Request: POST" in caplog.text
    assert PASSWORD not in caplog.text and basic("ada", PASSWORD) not in caplog.text


def test_an_unreachable_server_is_named_without_the_password(
    tmp_path: Path, hostile: Hostile
) -> None:
    path = project(tmp_path, n=1)
    url = with_password(f"http://{DEAD}/v1")
    hostile.succeeded(hostile.main("profile", "add", "dead", "--base-url", url, "--model", "m",
                                   "--no-key"))  # fmt: skip
    judge = ("judge", path, "--rubric", "just-eval")
    run = hostile.main(*judge, "--profile", "dead")  # records the rubric in the project
    hostile.refused(run, says=f"judging stopped: cannot reach http://ada@{DEAD}/v1")
    assert PASSWORD not in run.stdout + run.stderr
    before = fingerprint(path)
    run = hostile.main("profile", "test", "dead")
    hostile.refused(run, says=f"cannot reach http://ada@{DEAD}/v1")
    assert PASSWORD not in run.stdout + run.stderr
    # Given on the command line, for one command: the same, in a real child process.
    run = hostile.cli(*judge, "--base-url", url, "--model", "m")
    hostile.refused(run, says=f"cannot reach http://ada@{DEAD}/v1", project=path, before=before)
    assert PASSWORD not in run.stdout + run.stderr


def test_a_password_left_in_an_older_profiles_file_is_masked_then_moved(
    hostile: Hostile, memory_keyring: MemoryKeyring
) -> None:
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as server:
        profiles_path().parent.mkdir(parents=True, exist_ok=True)
        profiles_path().write_text(
            f'[profiles.old]\nmodel = "{MODEL}"\nbase_url = "{with_password(server.base_url)}"\n'
            "needs_key = false\n"
        )
        listed = hostile.main("profile", "list")
        hostile.succeeded(listed)
        assert PASSWORD not in listed.stdout and "ada:***@" in listed.stdout
        tested = hostile.main("profile", "test", "old")
        hostile.succeeded(tested)
        assert "profile old: answers" in tested.stdout and PASSWORD not in tested.stdout
    assert PASSWORD.encode() not in saved()
    assert memory_keyring.passwords[(URL_SERVICE, "old")] == PASSWORD
    assert {r.headers["authorization"] for r in server.requests} == {basic("ada", PASSWORD)}


def test_the_settings_dialog_moves_a_typed_password_to_the_keyring(
    qtbot, tmp_path: Path, hostile: Hostile, memory_keyring: MemoryKeyring
) -> None:
    from PySide6.QtWidgets import QDialogButtonBox

    from desktop.services.app_settings import AppSettings
    from desktop.services.session import ReviewSession
    from desktop.ui.settings_dialog import SettingsDialog

    settings = AppSettings(reviewer="ada")
    session = ReviewSession.open(project(tmp_path, n=1), settings)
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as server:
        dialog = SettingsDialog(None, session)  # type: ignore[arg-type]
        qtbot.addWidget(dialog)
        dialog.profile.setCurrentText("(new profile)")
        dialog.name.setText("vllm")
        dialog.model.setText(MODEL)
        dialog.base_url.setText(with_password(server.base_url))
        dialog.test_button.click()
        qtbot.waitUntil(lambda: "testing" not in dialog.test_result.text(), timeout=60_000)
        assert "answers" in dialog.test_result.text(), dialog.test_result.text()
        shown = server.base_url.replace("http://", "http://ada@")
        assert dialog.base_url.text() == shown  # the field no longer shows it
        assert PASSWORD not in dialog.test_result.text()
        save = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Save)
        save.click()
        assert PASSWORD.encode() not in saved() and shown.encode() in saved()
        assert memory_keyring.passwords[(URL_SERVICE, "vllm")] == PASSWORD
        again = SettingsDialog(None, session)  # type: ignore[arg-type]
        qtbot.addWidget(again)
        assert again.base_url.text() == shown
        again.test_button.click()  # saved as shown, the profile still sends its password
        qtbot.waitUntil(lambda: "testing" not in again.test_result.text(), timeout=60_000)
        assert "answers" in again.test_result.text(), again.test_result.text()
    assert {r.headers["authorization"] for r in server.requests} == {basic("ada", PASSWORD)}
    hostile.held()


def test_a_url_that_names_no_user_forgets_the_password(
    hostile: Hostile, memory_keyring: MemoryKeyring
) -> None:
    """The password goes only to the URL that named its user: kept while the URL names
    ``ada@`` (as the dialog shows it), forgotten once it names nobody."""
    add = ("profile", "add", "p", "--model", "m", "--base-url")
    hostile.succeeded(hostile.main(*add, with_password("http://h/v1")))
    hostile.succeeded(hostile.main(*add, "http://ada@h/v1"))
    assert memory_keyring.passwords[(URL_SERVICE, "p")] == PASSWORD
    hostile.succeeded(hostile.main(*add, "http://other-host/v1"))
    assert (URL_SERVICE, "p") not in memory_keyring.passwords
