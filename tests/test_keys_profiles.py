"""Keys live in the keyring or the environment, never in a file; profiles never hold one."""

from __future__ import annotations

from pathlib import Path

import keyring
import pytest

from desktop.adapters import keys
from desktop.adapters.config import config_dir
from desktop.adapters.profiles_file import get_profile, load_profiles, save_profile
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import ModelProfile
from tests.keyring_backends import DroppingKeyring, MemoryKeyring, NoKeyring

SECRET = "sk-test-abcdef0123456789"


def _profile(**changes: object) -> ModelProfile:
    base = ModelProfile(name="openai", model="gpt-4o-mini", base_url="https://api.example/v1")
    return base.with_changes(**changes)


def test_lookup_order_env_then_keyring_then_session(
    memory_keyring: MemoryKeyring, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = _profile()
    assert keys.get_key(profile) is None
    keys.set_session_key("openai", "session-key")
    assert keys.get_key(profile) == "session-key"
    keys.set_key("openai", SECRET)
    assert memory_keyring.passwords[("tiebreak", "openai")] == SECRET
    assert keys.get_key(profile) == SECRET
    assert keys.key_source(profile) == "keyring"
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    assert keys.get_key(profile) == "env-key"
    assert keys.key_source(profile) == "environment variable OPENAI_API_KEY"
    monkeypatch.setenv("MY_KEY", "named-env")
    assert keys.get_key(profile.with_changes(key_env="MY_KEY")) == "named-env"
    assert keys.clear_key("openai")
    monkeypatch.delenv("OPENAI_API_KEY")
    assert keys.get_key(profile) is None


@pytest.mark.parametrize("backend", [NoKeyring(), DroppingKeyring()])
def test_no_usable_keyring_is_said_plainly(backend: keyring.backend.KeyringBackend) -> None:
    keyring.set_keyring(backend)
    with pytest.raises(keys.KeyStoreError, match="no usable keyring") as info:
        keys.set_key("openai", SECRET)
    assert "environment variable" in str(info.value) and "session" in str(info.value)
    assert SECRET not in str(info.value)
    assert not any(
        SECRET in p.read_text(errors="ignore") for p in config_dir().rglob("*") if p.is_file()
    )


def test_profiles_round_trip_without_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    keys.set_key("openai", SECRET)
    save_profile(_profile(concurrency=16, structured="json_schema"))
    assert get_profile("openai").concurrency == 16
    assert "local" in load_profiles()
    text = (config_dir() / "profiles.toml").read_text()
    assert SECRET not in text and "gpt-4o-mini" in text


def test_local_profile_can_be_tuned_not_replaced() -> None:
    save_profile(get_profile("local").with_changes(concurrency=2))
    local = get_profile("local")
    assert local.local and local.concurrency == 2 and not local.needs_key


def test_broken_profiles_file_is_one_line(tmp_path: Path) -> None:
    path = config_dir() / "profiles.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[profiles.x]\nmodel = 1\nbogus = true\n")
    with pytest.raises(TiebreakError, match="unknown setting 'bogus'"):
        load_profiles()
    path.write_text("[profiles.x\n")
    with pytest.raises(TiebreakError, match="not valid TOML"):
        load_profiles()


def test_auto_structured_mode() -> None:
    assert _profile().structured_mode() == "json_schema"
    assert _profile(base_url="http://127.0.0.1:8080/v1").structured_mode() == "json_object"
    assert (
        _profile(capabilities={"json_schema": False, "json_object": True}).structured_mode()
        == "json_object"
    )
    assert _profile(structured="off").structured_mode() == "off"
