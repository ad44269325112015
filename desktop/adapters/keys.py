"""API keys: the environment first, then the OS keyring, then a key held for this session.

Never a file. A machine with no usable keyring (headless Linux, or a backend that drops
writes without a word) is told so plainly, with the two ways that still work.

A server may echo the key it was sent in an error message ("Incorrect API key provided:
sk-..."), and a completion is the server's text too. :func:`key_masker` hides every key this
machine knows (the one in use, every profile's environment variable, keyring entry and
session key) in such text, where it enters the program, so no message, log or project ever
holds one.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable

import keyring
import keyring.errors

from desktop.adapters.profiles_file import load_profiles
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import ModelProfile

SERVICE = "tiebreak"
HIDDEN = "[key hidden]"
MIN_MASKED = 4  # a shorter "key" would hide ordinary words; no real key is that short
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


def known_keys() -> set[str]:
    """Every key this machine would send: each profile's environment variable (and
    OPENAI_API_KEY), its keyring entry, and the keys held for this session."""
    try:
        profiles = list(load_profiles().values())
    except TiebreakError:  # a damaged profiles file: still hide what can be found
        profiles = []
    names = {"OPENAI_API_KEY", *(p.key_env for p in profiles)}
    keys = {os.environ.get(name, "").strip() for name in names}
    for profile in profiles:
        with contextlib.suppress(keyring.errors.KeyringError):
            keys.add((keyring.get_password(SERVICE, profile.name) or "").strip())
    keys.update(_session_keys.values())
    return {k for k in keys if len(k) >= MIN_MASKED}


def key_masker(in_use: Iterable[str | None] = ()) -> Callable[[str], str]:
    """A function that replaces every known key (and ``in_use``) in a text with
    ``[key hidden]``. Keys are read once, here: make one per job or connection."""
    keys = known_keys() | {k.strip() for k in in_use if k and len(k.strip()) >= MIN_MASKED}
    if not keys:
        return lambda text: text
    pattern = re.compile("|".join(re.escape(k) for k in sorted(keys, key=len, reverse=True)))

    def mask(text: str) -> str:
        return pattern.sub(HIDDEN, text) if text else text

    return mask
