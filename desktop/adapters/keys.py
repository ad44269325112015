"""API keys: the environment first, then the OS keyring, then a key held for this session.

Never a file. A machine with no usable keyring (headless Linux, or a backend that drops
writes without a word) is told so plainly, with the two ways that still work.
"""

from __future__ import annotations

import os

import keyring
import keyring.errors

from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import ModelProfile

SERVICE = "tiebreak"
_session_keys: dict[str, str] = {}


class KeyStoreError(TiebreakError):
    """The keyring cannot keep a key on this machine."""


def _no_keyring(profile_name: str, why: str) -> KeyStoreError:
    return KeyStoreError(
        f"no usable keyring on this machine ({why}); set the key in an environment variable"
        f" (e.g. OPENAI_API_KEY) or keep it for this session only"
        f" (profile {profile_name})"
    )


def get_key(profile: ModelProfile) -> str | None:
    """The key for a profile: its environment variable wins, then the keyring, then a
    session key. None where there is none (fine for servers that need none)."""
    env = os.environ.get(profile.key_env, "").strip()
    if env:
        return env
    try:
        stored = keyring.get_password(SERVICE, profile.name)
    except keyring.errors.KeyringError:
        stored = None
    return stored or _session_keys.get(profile.name)


def key_source(profile: ModelProfile) -> str:
    """Where the key would come from, for display (never the key itself)."""
    if os.environ.get(profile.key_env, "").strip():
        return f"environment variable {profile.key_env}"
    try:
        if keyring.get_password(SERVICE, profile.name):
            return "keyring"
    except keyring.errors.KeyringError:
        pass
    if profile.name in _session_keys:
        return "this session only"
    return "none"


def set_key(profile_name: str, key: str) -> None:
    """Store a key in the keyring and read it back, so a silently failing backend is found."""
    key = key.strip()
    if not key:
        raise TiebreakError("the key is empty")
    try:
        keyring.set_password(SERVICE, profile_name, key)
        kept = keyring.get_password(SERVICE, profile_name)
    except keyring.errors.NoKeyringError:
        raise _no_keyring(profile_name, "no keyring backend") from None
    except keyring.errors.KeyringError as exc:
        raise _no_keyring(profile_name, str(exc) or type(exc).__name__) from None
    if kept != key:
        raise _no_keyring(profile_name, "the keyring did not keep the key")


def set_session_key(profile_name: str, key: str) -> None:
    _session_keys[profile_name] = key.strip()


def clear_key(profile_name: str) -> bool:
    """Forget a profile's key everywhere we keep one; True if there was one."""
    had = _session_keys.pop(profile_name, None) is not None
    try:
        keyring.delete_password(SERVICE, profile_name)
        had = True
    except keyring.errors.PasswordDeleteError:
        pass
    except keyring.errors.KeyringError:
        pass
    return had
