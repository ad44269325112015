"""The saved model profiles and their keys, for the command line, the window and scripts:
listing, looking up and saving a profile, and where its key is kept (environment, keyring,
this session). The file is ``adapters/profiles_file.py``, the secrets ``adapters/keys.py``."""

from __future__ import annotations

from desktop.adapters import keys, profiles_file
from desktop.domain.profiles import ModelProfile


def load_profiles() -> dict[str, ModelProfile]:
    """Every profile by name, the built-in ``local`` first."""
    return profiles_file.load_profiles()


def get_profile(name: str) -> ModelProfile:
    """The profile of that name; an unknown name's one line lists the known ones."""
    return profiles_file.get_profile(name)


def shown_profiles() -> dict[str, ModelProfile]:
    """Every profile as a listing shows it: a key pasted into a model's name hidden."""
    return {name: keys.key_named(p) for name, p in profiles_file.load_profiles().items()}


def save_profile(profile: ModelProfile) -> ModelProfile:
    """Save a profile, the password in its base URL to the keyring (nothing is saved where
    the keyring cannot keep it) and a pasted key out of its model's name; the profile as
    saved."""
    return keys.store_profile(profile)


def key_source(profile: ModelProfile) -> str:
    """Where the profile's key would come from, for display (never the key itself)."""
    return keys.key_source(profile)


def set_key(profile_name: str, key: str) -> None:
    """Keep a profile's key in the keyring, read back so a silently failing one is found."""
    keys.set_key(profile_name, key)


def set_session_key(profile_name: str, key: str) -> None:
    """Keep a profile's key until this process ends (where no keyring can keep it)."""
    keys.set_session_key(profile_name, key)


def clear_key(profile_name: str) -> bool:
    """Forget a profile's key everywhere it is kept; True if there was one."""
    return keys.clear_key(profile_name)
