"""API keys: the environment first, then the OS keyring, then a key held for this session.

Never a file. A machine with no usable keyring (headless Linux, or a backend that drops
writes without a word) is told so plainly, with the two ways that still work.

A password in a profile's base URL (``http://user:secret@host/v1``) is a secret too: it is
kept in the keyring as a key is (:func:`store_profile`), the URL is saved without it, and
it is sent as basic auth while the URL still names its user.

A server may echo the key it was sent in an error message ("Incorrect API key provided:
sk-..."), and a completion is the server's text too. :func:`key_masker` hides every key this
machine knows (the one in use, every profile's environment variable, keyring entry, session
key and base-URL password) in such text, where it enters the program, so no message, log or
project ever holds one; a key cut short (by the server, or by a cap on a message's length)
is hidden too, from its first :data:`MIN_PREFIX` characters on.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable

import keyring
import keyring.errors

from desktop.adapters.profiles_file import load_profiles, save_profile
from desktop.domain.base_urls import require_base_url, split_password, url_user
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import ModelProfile

SERVICE = "tiebreak"
URL_SERVICE = "tiebreak base URL password"  # one entry per profile, under its name
HIDDEN = "[key hidden]"
MIN_MASKED = 4  # a shorter "key" would hide ordinary words; no real key is that short
MIN_PREFIX = 8  # a key's first characters from which a cut-short key is still hidden
_session_keys: dict[str, str] = {}


class KeyStoreError(TiebreakError):
    """The keyring cannot keep a key on this machine."""


def _no_keyring(profile_name: str, why: str) -> KeyStoreError:
    return KeyStoreError(
        f"no usable keyring on this machine ({why}); set the key in an environment variable"
        f" (e.g. OPENAI_API_KEY) or keep it for this session only"
        f" (profile {profile_name})"
    )


def _no_keyring_for_password(profile_name: str, why: str) -> KeyStoreError:
    return KeyStoreError(
        f"no usable keyring on this machine ({why}) to keep the password in profile"
        f" {profile_name}'s base URL, and it is never written to a file; give the URL with"
        f" its password to --base-url for each command instead"
    )


def _keep(service: str, name: str, secret: str, refused: Callable[[str], KeyStoreError]) -> None:
    """Store a secret in the keyring and read it back, so a silently failing backend is
    found; ``refused(why)`` is the error that says so."""
    try:
        keyring.set_password(service, name, secret)
        kept = keyring.get_password(service, name)
    except keyring.errors.NoKeyringError:
        raise refused("no keyring backend") from None
    except keyring.errors.KeyringError as exc:
        raise refused(str(exc) or type(exc).__name__) from None
    if kept != secret:
        raise refused("the keyring did not keep it")


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
    _keep(SERVICE, profile_name, key, lambda why: _no_keyring(profile_name, why))


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


def url_password(profile: ModelProfile) -> str | None:
    """The password sent with a profile's base URL: the one still written in the URL (a
    profiles file from before passwords moved to the keyring, or ``--base-url``), else the
    keyring's while the URL names a user; None where there is none."""
    if profile.local or not profile.base_url:
        return None
    url, written = split_password(profile.base_url)
    if written is not None:
        return written
    if url_user(url) is None:
        return None  # a password is sent only to the URL that named its user
    try:
        return keyring.get_password(URL_SERVICE, profile.name)
    except keyring.errors.KeyringError:
        return None


def store_profile(profile: ModelProfile) -> ModelProfile:
    """Save a profile to profiles.toml, the password in its base URL to the keyring (read
    back, as a key is) and the URL without it; nothing is saved where the keyring cannot
    keep it. A URL that names no user any more forgets the password kept for the profile.
    Returns the profile as saved."""
    profile = key_named(profile)  # a key pasted as the model is never written to the file
    if not profile.base_url:
        save_profile(profile)
        return profile
    require_base_url(profile.base_url, f"profile {profile.name}")  # before anything is kept
    url, password = split_password(profile.base_url)
    name = profile.name
    if password:
        _keep(URL_SERVICE, name, password, lambda why: _no_keyring_for_password(name, why))
    elif password == "" or url_user(url) is None:
        with contextlib.suppress(keyring.errors.KeyringError):  # none kept is fine too
            keyring.delete_password(URL_SERVICE, name)
    saved = profile.with_changes(base_url=url)
    save_profile(saved)
    return saved


def known_keys() -> set[str]:
    """Every key this machine would send: each profile's environment variable (and
    OPENAI_API_KEY), its keyring entry and base-URL password, and the keys held for this
    session."""
    try:
        profiles = list(load_profiles().values())
    except TiebreakError:  # a damaged profiles file: still hide what can be found
        profiles = []
    names = {"OPENAI_API_KEY", *(p.key_env for p in profiles)}
    keys = {os.environ.get(name, "").strip() for name in names}
    for profile in profiles:
        with contextlib.suppress(keyring.errors.KeyringError):
            keys.add((keyring.get_password(SERVICE, profile.name) or "").strip())
        keys.add(url_password(profile) or "")
    keys.update(_session_keys.values())
    return {k for k in keys if len(k) >= MIN_MASKED}


def key_masker(in_use: Iterable[str | None] = ()) -> Callable[[str], str]:
    """A function that replaces every known key (and ``in_use``) in a text with
    ``[key hidden]``, and every run of a key's first :data:`MIN_PREFIX` characters or more
    (a key cut short). Keys are read once, here: make one per job or connection."""
    keys = known_keys() | {k.strip() for k in in_use if k and len(k.strip()) >= MIN_MASKED}
    if not keys:
        return lambda text: text
    # A long key is found by its first MIN_PREFIX characters, then followed as far as the
    # text goes along it (or along the longest key that starts so): linear in the text.
    starts: dict[str, list[str]] = {}
    for key in sorted(keys, key=len, reverse=True):
        starts.setdefault(key[:MIN_PREFIX] if len(key) >= MIN_PREFIX else key, []).append(key)
    pattern = re.compile("|".join(re.escape(s) for s in sorted(starts, key=len, reverse=True)))

    def mask(text: str) -> str:
        if not text:
            return text
        out: list[str] = []
        pos = 0
        while (found := pattern.search(text, pos)) is not None:
            end = max(_along(text, found.start(), key) for key in starts[found.group()])
            out += (text[pos : found.start()], HIDDEN)
            pos = end
        return "".join(out) + text[pos:] if out else text

    return mask


def _along(text: str, start: int, key: str) -> int:
    """Where the run of ``key``'s characters that starts at ``start`` ends."""
    end = start
    for char in key:
        if end == len(text) or text[end] != char:
            break
        end += 1
    return end


def key_named(profile: ModelProfile) -> ModelProfile:
    """The profile with its model's name shown and stored as ``[key hidden]`` where it is
    (or holds) a key this machine knows: a key pasted into the model's field. A judge is
    named after its model in the project, the report and every line printed, and the name
    goes to the server in each request."""
    given = split_password(profile.base_url or "")[1]  # a URL's password not yet kept
    mask = key_masker([get_key(profile), url_password(profile), given])
    model = mask(profile.model)
    model = HIDDEN if model.strip() == HIDDEN else model  # " sk-..." pasted with its spaces
    return profile if model == profile.model else profile.with_changes(model=model)
